package salvage_test

import (
	"context"
	"testing"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/resume"
)

// TestSalvageCanonicalSavepointWithoutFlinkRoot (issue 22 item 5): a
// canonical savepoint references only relative files, so without a Flink
// root it has no Flink path — which a restore needs and salvage does not
// (it restores no state): salvage reads it by key, names it by key, and a
// chain takes the salvage start instead of failing on "no Flink path".
// With the root given its path is named as before.
func TestSalvageCanonicalSavepointWithoutFlinkRoot(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	const job = "5e1f0000000000000000000000000003"
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "sp/", Root: "s3a://b/"}
	name := flinkckpttest.SavepointName(job, 1)
	for i, src := range []flinkckpttest.Source{flinkckpttest.KafkaSource("orders", "topic", 7, 9)} {
		src.InFile = i == 0
		if _, err := l.Savepoint(ctx, name, 4, &flinkckpttest.Checkpoint{Format: metadata.FormatCanonical, StateBackend: "canonical",
			Sources: []flinkckpttest.Source{src}}); err != nil {
			t.Fatal(err)
		}
	}
	job2 := jobgraph.JobFromUIDs("uid-0", "uid-1", "orders-v2")
	job2.AllUIDs = true
	for _, opts := range []*salvage.Options{{}, {Job: job2}, {Snapshot: "sp/" + name + "/"}} {
		r, err := salvage.NewResolver(b, "sp/", opts)
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(ctx)
		if err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
		pos, err := salvage.PositionOf(c.Position)
		if err != nil || pos.SnapshotKey != "sp/"+name+"/" || pos.Snapshot != "" || len(pos.Sources) != 1 || pos.Sources[0].Kafka[1].Offset != 9 {
			t.Errorf("%+v: position %+v, %v", opts, pos, err)
		}
		if c.Guarantee != resume.ExactInput {
			t.Errorf("%+v: %s", opts, c.Guarantee)
		}
	}
	// A chain with the restore path: the restore cannot name the savepoint
	// without a root (ErrNoFlinkPath is its failure), salvage is not blocked by it.
	restore, err := flinkckpt.NewResolver(b, "sp/", &flinkckpt.Options{Job: job2})
	if err != nil {
		t.Fatal(err)
	}
	sr, err := salvage.NewResolver(b, "sp/", &salvage.Options{Job: job2})
	if err != nil {
		t.Fatal(err)
	}
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{restore, sr}}).Resolve(ctx)
	if err != nil || d.Chosen == nil || d.Chosen.Resolver != salvage.DefaultName {
		t.Errorf("chain: %v\n%s", err, d.Explain())
	}
	// With the root, the path.
	r, _ := salvage.NewResolver(b, "sp/", &salvage.Options{Flink: &flinkckpt.Options{FlinkRoot: l.FlinkRoot()}})
	c, err := r.Resolve(ctx)
	if pos, _ := salvage.PositionOf(c.Position); err != nil || pos.Snapshot != "s3a://b/sp/"+name {
		t.Errorf("with the root: %+v %v", pos, err)
	}
}
