package salvage_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// TestChainSalvagesWhatTheNewJobCannotRestore: a chain of a flinkckpt
// resolver and a salvage resolver with the same new job, over the real
// KafkaSource savepoint. A refactored job whose source has a new uid cannot
// restore the source's state: the flinkckpt resolver has nothing to offer,
// and the salvage candidate starts every partition at offset 10, checked
// on kfake. The unchanged job restores the savepoint exactly-once, and
// salvage offers nothing.
func TestChainSalvagesWhatTheNewJobCannotRestore(t *testing.T) {
	ctx := context.Background()
	const dir = "v4-kafka-source-native-savepoint/"
	b := fixtureBucket(t)
	cl := kafkaCluster(t, 10, 20)
	chain := func(job *jobgraph.Job) (*resume.Decision, error) {
		t.Helper()
		flinkOpts := &flinkckpt.Options{FlinkRoot: "file:///fixtures/flink", Job: job}
		fr, err := flinkckpt.NewResolver(b, dir, flinkOpts)
		if err != nil {
			t.Fatal(err)
		}
		sr, err := salvage.NewResolver(b, dir, &salvage.Options{
			Flink: &flinkckpt.Options{FlinkRoot: "file:///fixtures/flink"}, Job: job, Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: cl}}})
		if err != nil {
			t.Fatal(err)
		}
		return (&resume.Chain{Resolvers: []resume.Resolver{fr, sr}}).Resolve(ctx)
	}

	// The refactored job given by its uid only: the savepoint's source
	// (no uid recorded in _metadata v4) may be a uid-less operator the new
	// job has unchanged. Unknown, so never salvaged on that guess (issue
	// 22 item 3): the restore is offered with a coded warning naming it,
	// and Flink settles it at once.
	refactored := jobgraph.JobFromUIDs("orders-kafka-source")
	d, err := chain(refactored)
	if err != nil {
		t.Fatalf("refactored job by uid: %v\n%s", err, d.Explain())
	}
	if d.Chosen == nil || d.Chosen.Resolver != flinkckpt.DefaultName || d.Chosen.Guarantee != resume.ExactlyOnce ||
		!d.Chosen.HasWarning(flinkckpt.WarnUnknownOperators) || !strings.Contains(warning(*d.Chosen, flinkckpt.WarnUnknownOperators), "cb16aa5adb311e8ac72482def19accbe") {
		t.Fatalf("refactored job by uid: chose %+v\n%s", d.Chosen, d.Explain())
	}
	if o := d.Considered[1]; o.Verdict != resume.VerdictNoPosition || !strings.Contains(o.Err.Error(), "unknown") {
		t.Errorf("salvage on a guess: %s %v", o.Verdict, o.Err)
	}

	// Said to name every operator (AllUIDs, --flink-all-uids): the source
	// state is dropped, and salvage starts it where it was.
	refactored.AllUIDs = true
	d, err = chain(refactored)
	if err != nil {
		t.Fatalf("refactored job: %v\n%s", err, d.Explain())
	}
	if d.Chosen == nil || d.Chosen.Resolver != salvage.DefaultName || d.Chosen.Guarantee != resume.ExactInput {
		t.Fatalf("refactored job: chose %+v\n%s", d.Chosen, d.Explain())
	}
	for i, s := range kafkaStarts(t, *d.Chosen) {
		if s.Partition != int32(i) || s.Offset != 10 || s.Lost != 0 {
			t.Errorf("partition %d: %+v", i, s)
		}
	}
	if !strings.Contains(strings.Join(d.Chosen.Reasons, "\n"), "cannot be restored into the new job (state of 1 operator(s) would be dropped: cb16aa5adb311e8ac72482def19accbe") {
		t.Errorf("reasons do not say why the state is lost: %q", d.Chosen.Reasons)
	}
	if o := d.Considered[0]; o.Verdict != resume.VerdictNoPosition {
		t.Errorf("flinkckpt resolver: %s %v", o.Verdict, o.Err)
	}

	// The unchanged job restores the savepoint.
	d, err = chain(jobgraph.JobFromUIDs("kafka-source-operator-uid"))
	if err != nil {
		t.Fatalf("same job: %v\n%s", err, d.Explain())
	}
	if d.Chosen == nil || d.Chosen.Resolver != flinkckpt.DefaultName || d.Chosen.Guarantee != resume.ExactlyOnce {
		t.Fatalf("same job: chose %+v\n%s", d.Chosen, d.Explain())
	}
	if o := d.Considered[1]; o.Verdict != resume.VerdictNoPosition || !errors.Is(o.Err, resume.ErrNoPosition) ||
		!strings.Contains(o.Err.Error(), "restores into the new job with its state") {
		t.Errorf("salvage: %s %v", o.Verdict, o.Err)
	}
}

// TestSalvageWhenParallelismForbidsTheRestore: the new job has every
// operator of the savepoint but a parallelism above its max parallelism,
// so no restore can succeed. The snapshot to salvage is still the newest
// of the job's application (the default choice ignores the new job's
// parallelism), and its positions are offered.
func TestSalvageWhenParallelismForbidsTheRestore(t *testing.T) {
	ctx := context.Background()
	const dir = "v4-kafka-source-native-savepoint/"
	b := fixtureBucket(t)
	cl := kafkaCluster(t, 10, 20)
	job := jobgraph.JobFromUIDs("kafka-source-operator-uid")
	job.Parallelism = 4096
	sr, err := salvage.NewResolver(b, dir, &salvage.Options{
		Flink: &flinkckpt.Options{FlinkRoot: "file:///fixtures/flink"}, Job: job, Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: cl}}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := sr.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Guarantee != resume.ExactInput || !strings.Contains(strings.Join(c.Reasons, "\n"), "parallelism 4096") {
		t.Errorf("guarantee %s reasons %q", c.Guarantee, c.Reasons)
	}
	for i, s := range kafkaStarts(t, c) {
		if s.Partition != int32(i) || s.Offset != 10 {
			t.Errorf("partition %d: %+v", i, s)
		}
	}
}
