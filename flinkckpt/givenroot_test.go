package flinkckpt_test

import (
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
)

// TestGivenFlinkRootNamesAncestorOfPrefix: the resolver looks at one job
// dir (prefix ck/<job>/) and is given the checkpoint root
// (execution.checkpointing.dir, s3a://bucket/ck), the job dir's own URI, or
// the bucket root: all map the same way, healthy checkpoints verify, and the
// -s path is the real one.
func TestGivenFlinkRootNamesAncestorOfPrefix(t *testing.T) {
	for _, root := range []string{"s3a://bucket/ck", "s3a://bucket/ck/", "s3a://bucket/ck/" + jobA, "s3a://bucket/", "s3a://bucket"} {
		t.Run(strings.ReplaceAll(root, "/", "_"), func(t *testing.T) {
			e := newEnv(t, "ck/", "s3a://bucket/", nil)
			e.chk(jobA, 3, t0, nil)
			w := e.chk(jobA, 4, t0, &flinkckpttest.Checkpoint{Shared: shared("x", 2)})
			r, err := flinkckpt.NewResolver(e.bucket, "ck/"+jobA+"/", &flinkckpt.Options{FlinkRoot: root})
			if err != nil {
				t.Fatal(err)
			}
			c, err := r.Resolve(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			p, _ := flinkckpt.PositionOf(c.Position)
			if p.CheckpointID != 4 || p.Path != w.FlinkPath || hasLine(c.Reasons, "broken") {
				t.Errorf("chose %d path %q (want %q), reasons %q", p.CheckpointID, p.Path, w.FlinkPath, c.Reasons)
			}
			s, err := flinkckpt.Inspect(e.ctx, e.bucket, w.Dir, &flinkckpt.Options{FlinkRoot: root})
			if err != nil || s.State != flinkckpt.StateComplete || s.Path != w.FlinkPath {
				t.Errorf("inspect: %v %s path %q", err, s.State, s.Path)
			}
		})
	}
}

// TestGivenFlinkRootInsideOrBesidePrefixRefused: a root that names a dir
// inside or beside the prefix cannot be reconciled with it; the options
// are refused before any I/O instead of guessing a -s path.
func TestGivenFlinkRootInsideOrBesidePrefixRefused(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	for _, tc := range []struct{ prefix, root string }{
		{"ck/", "s3a://bucket/ck/" + jobA},
		{"ck/" + jobA + "/", "s3a://bucket/ck/" + jobB},
		{"ck/" + jobA + "/", "s3a://bucket/ck/" + jobA + "/chk-3"},
	} {
		_, err := flinkckpt.NewResolver(e.bucket, tc.prefix, &flinkckpt.Options{FlinkRoot: tc.root})
		if err == nil || !strings.Contains(err.Error(), "inside or beside") {
			t.Errorf("prefix %q root %q: err %v", tc.prefix, tc.root, err)
		}
		if _, err := flinkckpt.List(e.ctx, e.bucket, tc.prefix, &flinkckpt.Options{FlinkRoot: tc.root}); err == nil {
			t.Errorf("List prefix %q root %q: no error", tc.prefix, tc.root)
		}
	}
	if e.rec.Total() != 0 {
		t.Errorf("storage calls before refusing: %s", e.rec)
	}
}
