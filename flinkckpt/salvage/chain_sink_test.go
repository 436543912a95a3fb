package salvage_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
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

// A restore and a salvage of one snapshot in one chain (NewResolvers, one
// checker set) ask the sink's brokers once: with MemoTransactions, one
// DescribeTransactions request in all, on a 3-broker cluster. The salvage
// of the still-open transaction is data-loss (a stateless start never
// commits it); the restore is exactly-once until the deadline.
func TestRestoreAndSalvageAskTheSinkOnce(t *testing.T) {
	ctx := context.Background()
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Brokers: 3})
	k.CreateTopic(kafkaoffsettest.Topic{Name: "topic", Partitions: 2})
	k.CreateTopic(kafkaoffsettest.Topic{Name: "out", Partitions: 1})
	times := make([]time.Time, 20)
	for i := range times {
		times[i] = time.Now()
	}
	for p := range int32(2) {
		k.Produce("topic", p, times...)
	}
	tx := k.BeginTransaction("job-sink-0-5")
	tx.Produce("out", 0, time.Now())
	log := kafkaoffset.Log{Client: k.Client}
	got, err := log.DescribeTransactions(ctx, []string{"job-sink-0-5"})
	if err != nil {
		t.Fatal(err)
	}
	_, b := committerSavepoint(t, flinkckpttest.KafkaCommitterElement(5, "job-sink-0-5", got["job-sink-0-5"].ProducerID, got["job-sink-0-5"].Epoch))
	var hs []*kfake.FaultHandle
	for n := range k.Kafka.ListenAddrs() {
		hs = append(hs, k.Kafka.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DescribeTransactions}, Nodes: []int32{int32(n)}, Observe: true, Count: -1}))
	}
	rs, err := salvage.NewResolvers(b, "", &flinkckpt.Options{FlinkRoot: "s3a://b/", Live: &livecheck.Checkers{Kafka: log, KafkaSink: livecheck.MemoTransactions(log)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := (&resume.Chain{Resolvers: rs, Policy: resume.Policy{MinGuarantee: resume.DataLoss}}).Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	grades := map[string]resume.Guarantee{}
	for _, o := range d.Considered {
		if o.Candidate != nil {
			grades[o.Resolver] = o.Candidate.Guarantee
		}
	}
	if grades[flinkckpt.DefaultName] != resume.ExactlyOnce || grades[salvage.DefaultName] != resume.DataLoss {
		t.Errorf("grades %v", grades)
	}
	total := 0
	for _, h := range hs {
		total += h.Hits()
	}
	if total != 1 {
		t.Errorf("DescribeTransactions: %d requests, want 1", total)
	}
}
