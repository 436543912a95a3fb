package salvage_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// The review's case: a checkpoint, the group's commits and the salvaged
// start all at offset 10 of topic "orders", whose records below 50 were
// deleted. Every candidate is graded data-loss, the checkpoint's restore
// too (it used to be exactly-once, chosen, while the two others said 40
// records per partition were gone), so nothing is chosen by default, and
// the restore only under --min-guarantee data-loss, launched with
// earliest-offset. The three positions say where they start each
// partition alike (resume.InputStarter), which is what the chain grades a
// candidate down by when another proved its input gone.
func TestChainConsistentOverDeletedRecords(t *testing.T) {
	ctx := context.Background()
	k := kafkaoffsettest.New(t, nil)
	k.CreateTopic(kafkaoffsettest.Topic{Name: "orders", Partitions: 2})
	times := make([]time.Time, 100)
	for i := range times {
		times[i] = time.Date(2026, 12, 1, 10, 0, i, 0, time.UTC)
	}
	for p := range int32(2) {
		k.Produce("orders", p, times...)
		k.DeleteRecords("orders", p, 50)
	}
	k.Commit("orders-job", "orders", map[int32]int64{0: 10, 1: 10})

	b := memblob.OpenBucket(nil)
	defer b.Close()
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "s3a://b/"}
	if _, err := l.Checkpoint(ctx, "00000000000000000000000000000c01", 7, &flinkckpttest.Checkpoint{
		Sources: []flinkckpttest.Source{flinkckpttest.KafkaSource("orders-source", "orders", 10, 10)}}); err != nil {
		t.Fatal(err)
	}
	log := kafkaoffset.Log{Client: k.Client}
	fo := &flinkckpt.Options{FlinkRoot: "s3a://b/ck/", Live: &livecheck.Checkers{Kafka: log}}
	fr, err := flinkckpt.NewResolver(b, "ck/", fo)
	if err != nil {
		t.Fatal(err)
	}
	kr, err := kafkaoffset.NewResolver(k.Client, []string{"orders"}, &kafkaoffset.Options{Group: "orders-job"})
	if err != nil {
		t.Fatal(err)
	}
	sr, err := salvage.NewResolver(b, "ck/", &salvage.Options{Flink: &flinkckpt.Options{FlinkRoot: "s3a://b/ck/"}, Live: &livecheck.Checkers{Kafka: log}})
	if err != nil {
		t.Fatal(err)
	}
	chain := &resume.Chain{Resolvers: []resume.Resolver{fr, sr, kr}}
	d, err := chain.Resolve(ctx)
	if !errors.Is(err, resume.ErrRefused) || resume.Classify(d, err) != resume.ResultRefused || d.Chosen != nil {
		t.Fatalf("chosen %v, err %v: want every candidate refused for data loss", d.Chosen, err)
	}
	for _, o := range d.Considered {
		if o.Candidate == nil || o.Candidate.Guarantee != resume.DataLoss {
			t.Errorf("%s: %+v, want a data-loss candidate", o.Resolver, o.Candidate)
		}
	}
	want := []resume.InputStart{{Input: "kafka:orders/0", Offset: 10, GoneBelow: 50}, {Input: "kafka:orders/1", Offset: 10, GoneBelow: 50}}
	for _, o := range d.Considered {
		if diff := cmp.Diff(want, o.Candidate.Position.(resume.InputStarter).InputStarts()); diff != "" {
			t.Errorf("%s: input starts (-want +got):\n%s", o.Resolver, diff)
		}
		if o.Candidate.HasWarning(resume.WarnProvedLost) {
			t.Errorf("%s: graded by the chain, not by itself: %v", o.Resolver, o.Candidate.Warnings)
		}
	}
	// The loss line names the records lost (10..49), not those still in the
	// log after them (issue 33 item 9), in every candidate's report.
	facters := 0
	for _, o := range d.Considered {
		f, ok := o.Candidate.Position.(interface{ Facts() []resume.Fact })
		if !ok {
			continue // the restore's loss is in its warnings, checked below
		}
		facters++
		var loss []string
		for _, x := range f.Facts() {
			if x.Label == resume.FactLoss {
				loss = append(loss, x.Text)
			}
		}
		if diff := cmp.Diff([]string{"orders/0: 40 records (offsets 10..49)", "orders/1: 40 records (offsets 10..49)"}, loss); diff != "" {
			t.Errorf("%s: loss facts (-want +got):\n%s", o.Resolver, diff)
		}
	}
	if facters != 2 {
		t.Errorf("%d candidates state facts, want salvage's and kafka's", facters)
	}
	if w := d.Considered[0].Candidate.Warnings; !strings.Contains(warningsText(w), "orders/0: 40 records (offsets 10..49)") {
		t.Errorf("checkpoint warnings %v", w)
	}

	chain.Policy.MinGuarantee = resume.DataLoss
	d, err = chain.Resolve(ctx)
	if err != nil || d.Chosen == nil || d.Chosen.Guarantee != resume.DataLoss || d.Chosen.Resolver != fr.Name() ||
		d.Chosen.Position.Launch().Options["scan.startup.mode"] != "earliest-offset" {
		t.Fatalf("under data-loss: chosen %+v, err %v", d.Chosen, err)
	}
}

func warningsText(ws []resume.Warning) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(string(w.Code) + ": " + w.Text + "\n")
	}
	return b.String()
}
