package salvage_test

import (
	"context"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// The source-ahead race for Kafka: the old job's KafkaSource committed
// checkpoint 5's offsets (10 on both partitions) and its sink committer
// had not committed checkpoint 5's transactions when it crashed. The
// salvage candidate at the same positions proves them pending
// (data-loss); the kafka-offsets start at the group's commit, at the
// snapshot's positions, never commits them either: it inherits the loss
// (chain.sink-pending), never replay. Asserted committed, it is replay
// again.
func TestSourceAheadRaceKafka(t *testing.T) {
	ctx := context.Background()
	cl := kafkaCluster(t, 2, 100)
	commit(t, cl, "g", "topic", map[int32]int64{0: 10, 1: 10})
	w, b := committerSavepoint(t, k1Element(t))
	for _, committed := range []bool{false, true} {
		sr, err := salvage.NewResolver(b, "", &salvage.Options{Snapshot: w.Dir, Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: cl}}, SinkCommitted: committed})
		if err != nil {
			t.Fatal(err)
		}
		kr, err := kafkaoffset.NewResolver(cl, []string{"topic"}, &kafkaoffset.Options{Group: "g"})
		if err != nil {
			t.Fatal(err)
		}
		d, err := (&resume.Chain{Resolvers: []resume.Resolver{sr, kr}, Policy: resume.Policy{MinGuarantee: resume.DataLoss}}).Resolve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]*resume.Candidate{}
		for _, o := range d.Considered {
			got[o.Resolver] = o.Candidate
		}
		s, k := got[salvage.DefaultName], got[kafkaoffset.DefaultName]
		if s == nil || k == nil {
			t.Fatalf("considered %+v", d.Considered)
		}
		switch {
		case !committed && (s.Guarantee != resume.DataLoss || k.Guarantee > s.Guarantee || !strings.Contains(warning(*k, resume.WarnSinkPending), "checkpoint 8")):
			t.Errorf("pending: salvage %s, kafka-offsets %s %v", s.Guarantee, k.Guarantee, k.Warnings)
		case committed && (k.Guarantee != resume.Replay || k.HasWarning(resume.WarnSinkPending)):
			t.Errorf("asserted committed: kafka-offsets %s %v", k.Guarantee, k.Warnings)
		}
	}
}
