package salvage_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/resume"
)

// refactoredLayout writes checkpoint 41 of a job whose KafkaSource has uid
// orders-source.
func refactoredLayout(t testing.TB) *flinkckpttest.Layout {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	t.Cleanup(func() { bucket.Close() })
	l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "ck/", Root: "s3a://prod-state/"}
	l.Checkpoint(ctx, "6f1e0000000000000000000000000001", 41, &flinkckpttest.Checkpoint{
		Sources: []flinkckpttest.Source{flinkckpttest.KafkaSource("orders-source", "orders", 1200, 1187, 1203)},
	})
	return l
}

// TestNewResolvers: one description gives both resolvers; the job that
// still fits restores the checkpoint, the refactored one (a new source uid)
// starts exactly at its offsets.
func TestNewResolvers(t *testing.T) {
	l := refactoredLayout(t)
	decide := func(job *jobgraph.Job) *resume.Decision {
		t.Helper()
		rs, err := salvage.NewResolvers(l.Bucket, "ck/", &flinkckpt.Options{FlinkRoot: l.FlinkRoot(), Job: job}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 2 || rs[0].Name() != flinkckpt.DefaultName || rs[1].Name() != salvage.DefaultName {
			t.Fatalf("resolvers %v", rs)
		}
		d, err := (&resume.Chain{Resolvers: rs}).Resolve(context.Background())
		if err != nil {
			t.Fatalf("%v\n%s", err, d.Explain())
		}
		return d
	}
	same := jobgraph.JobFromUIDs("orders-source")
	for _, id := range []string{"6006b2d487f26b614f1c6bf3543d3b8a", "c49f9afd6c708fcc3cdcba1bd00469ba"} { // the test job's other stateful operators
		same.Operators = append(same.Operators, jobgraph.JobOperator{ID: id})
	}
	if d := decide(same); d.Chosen.Resolver != flinkckpt.DefaultName || d.Chosen.Guarantee != resume.ExactlyOnce {
		t.Errorf("the same job: chose %s %s\n%s", d.Chosen.Resolver, d.Chosen.Guarantee, d.Explain())
	}
	refactored := jobgraph.JobFromUIDs("orders-source-v2")
	refactored.AllUIDs = true // the job's only operator: the snapshot's other state is dropped, not unknown
	d := decide(refactored)
	if d.Chosen.Resolver != salvage.DefaultName || d.Chosen.Guarantee != resume.ExactInput ||
		d.Chosen.Position.Launch().Options["scan.startup.specific-offsets"] != "partition:0,offset:1200;partition:1,offset:1187;partition:2,offset:1203" {
		t.Errorf("the refactored job: chose %s %s %v", d.Chosen.Resolver, d.Chosen.Guarantee, d.Chosen.Position.Launch())
	}
	if _, err := salvage.NewResolvers(l.Bucket, "ck/", &flinkckpt.Options{Name: salvage.DefaultName}, nil); err == nil {
		t.Error("two resolvers of one name accepted")
	}
}

// TestFromThatChecksTheJobIsAnError: a flinkckpt resolver that checks the
// new job as salvage's From would never offer the snapshot to salvage.
// NewResolver refuses it; a From that wraps one fails at Resolve (a setup
// error), instead of a silent "no position".
func TestFromThatChecksTheJobIsAnError(t *testing.T) {
	l := refactoredLayout(t)
	job := jobgraph.JobFromUIDs("orders-source-v2")
	job.AllUIDs = true // all of the job's uids: the old source's state is dropped
	fr, err := flinkckpt.NewResolver(l.Bucket, "ck/", &flinkckpt.Options{FlinkRoot: l.FlinkRoot(), Job: job})
	if err != nil {
		t.Fatal(err)
	}
	_, err = salvage.NewResolver(l.Bucket, "ck/", &salvage.Options{From: fr, Job: job, Flink: &flinkckpt.Options{FlinkRoot: l.FlinkRoot()}})
	if !errors.Is(err, salvage.ErrFromChecksJob) {
		t.Fatalf("NewResolver with a job-checking From: err %v", err)
	}

	wrapped := resume.ResolverFunc("checkpoints", fr.Resolve)
	sr, err := salvage.NewResolver(l.Bucket, "ck/", &salvage.Options{From: wrapped, Job: job, Flink: &flinkckpt.Options{FlinkRoot: l.FlinkRoot()}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sr.Resolve(context.Background())
	if !errors.Is(err, salvage.ErrFromChecksJob) || errors.Is(err, resume.ErrNoPosition) {
		t.Errorf("Resolve with a wrapped job-checking From: err %v (no position: %v)", err, errors.Is(err, resume.ErrNoPosition))
	}
	// A From that allows non-restored state offers the snapshot: fine.
	fa, err := flinkckpt.NewResolver(l.Bucket, "ck/", &flinkckpt.Options{FlinkRoot: l.FlinkRoot(), Job: job, AllowNonRestoredState: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := salvage.NewResolver(l.Bucket, "ck/", &salvage.Options{From: fa, Job: job, Flink: &flinkckpt.Options{FlinkRoot: l.FlinkRoot()}}); err != nil {
		t.Errorf("a From that allows non-restored state: %v", err)
	}
}

// A job was refactored: one call builds the checkpoint resolver and the
// salvage resolver from the same description of the new job, so the chain
// restores state when it still fits and otherwise starts every source
// exactly where the checkpoint had it.
func ExampleNewResolvers() {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "ck/", Root: "s3a://prod-state/"}
	l.Checkpoint(ctx, "6f1e0000000000000000000000000001", 41, &flinkckpttest.Checkpoint{
		Sources: []flinkckpttest.Source{flinkckpttest.KafkaSource("orders-source", "orders", 1200, 1187, 1203)},
	})

	job := jobgraph.JobFromUIDs("orders-source-v2") // the source's uid changed
	job.AllUIDs = true                              // and it is the job's only operator
	rs, err := salvage.NewResolvers(bucket, "ck/", &flinkckpt.Options{
		FlinkRoot: l.FlinkRoot(),
		Job:       job,
	}, &salvage.Checks{ /* flinkckpt.Options.Live checks the offsets live, for both */ })
	if err != nil {
		panic(err)
	}
	d, err := (&resume.Chain{Resolvers: rs}).Resolve(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Chosen.Resolver, d.Chosen.Guarantee)
	fmt.Println(d.Chosen.Position.Launch().Options["scan.startup.specific-offsets"])
	fmt.Println(d.Considered[0].Resolver, d.Considered[0].Verdict, errors.Is(d.Considered[0].Err, flinkckpt.ErrIncompatible))
	// Output:
	// flink-salvage exact-input
	// partition:0,offset:1200;partition:1,offset:1187;partition:2,offset:1203
	// flink-checkpoints no-position true
}
