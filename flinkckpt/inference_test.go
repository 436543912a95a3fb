package flinkckpt_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// TestInferredSingleEntropySegment: at parallelism 1 a checkpoint has one
// entropy-injected file (or several sharing one segment). Inference must
// not make the entropy segment part of the root: the checkpoint verifies
// and the -s path has no entropy segment. It costs one probe call; with
// Options.EntropyKey the entropy reading comes first.
func TestInferredSingleEntropySegment(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   []string
		opts    *flinkckpt.Options
		attribs int
	}{
		{"OneFile", []string{"s-1"}, nil, 1 + 1},
		{"SharedSegment", shared("s", 3), nil, 3 + 1},
		{"OneFileWithEntropyKey", []string{"s-1"}, &flinkckpt.Options{EntropyKey: "_entropy_"}, 1 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "ck/", "s3a://bucket/", nil)
			e.chk(jobA, 1, t0.Add(-time.Minute), nil)
			w := e.chk(jobA, 2, t0, &flinkckpttest.Checkpoint{Shared: tc.files, Entropy: "Xa1"})
			e.rec.Reset()
			c, p := e.mustResolve(tc.opts)
			if p.CheckpointID != 2 || p.Path != w.FlinkPath || hasLine(c.Reasons, "broken") {
				t.Errorf("chose %d path %q (want %q), reasons %q", p.CheckpointID, p.Path, w.FlinkPath, c.Reasons)
			}
			if got := e.rec.Count(blobtest.OpAttributes); got != tc.attribs {
				t.Errorf("%d attribute calls, want %d", got, tc.attribs)
			}
			s, err := flinkckpt.Inspect(e.ctx, e.bucket, w.Dir, tc.opts)
			if err != nil || s.State != flinkckpt.StateComplete || s.Path != w.FlinkPath {
				t.Errorf("inspect: %v %s path %q", err, s.State, s.Path)
			}
		})
	}
	t.Run("RealDirNotEntropy", func(t *testing.T) {
		// hdfs://ns/flink/ is the bucket root: the one segment is a real dir.
		e := newEnv(t, "data/ck/", "hdfs://ns/flink/", nil)
		w := e.chk(jobA, 2, t0, &flinkckpttest.Checkpoint{Shared: []string{"s-1"}})
		c, p := e.mustResolve(nil)
		if p.Path != w.FlinkPath || hasLine(c.Reasons, "broken") {
			t.Errorf("path %q (want %q), reasons %q", p.Path, w.FlinkPath, c.Reasons)
		}
	})
}

// TestNoMappingBorrowedFromBrokenOrOtherHead: a snapshot without absolute
// references never borrows the mapping of a head that failed verification
// or of another job dir: without a Flink root it has no Flink path (an
// invented -s path may not exist), and when it is the one to choose Resolve
// fails asking for the root — choosing an older one would roll back what it
// committed.
func TestNoMappingBorrowedFromBrokenOrOtherHead(t *testing.T) {
	t.Run("BrokenNewerInSameJobDir", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://other-root/", nil)
		e.chk(jobA, 1, t0.Add(-time.Minute), nil)
		// chk-2 references a file under another root that does not exist.
		e.chk(jobA, 2, t0, &flinkckpttest.Checkpoint{Absolute: []string{"s3a://bucket/zz/ck/" + jobA + "/shared/gone"}})
		_, err := e.resolve(nil)
		if !errors.Is(err, flinkckpt.ErrNoFlinkPath) || errors.Is(err, resume.ErrNoPosition) ||
			!strings.Contains(err.Error(), "chk-1 of job "+jobA+` (key "ck/`+jobA+`/chk-1/") is the snapshot to choose but has no Flink path`) || !strings.Contains(err.Error(), "Options.FlinkRoot") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("OtherJobDir", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 3, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		e.chk(jobB, 5, t0.Add(time.Hour), nil) // newer, relative references only
		if _, err := e.resolve(nil); !errors.Is(err, flinkckpt.ErrNoFlinkPath) || !strings.Contains(err.Error(), "chk-5 of job "+jobB) {
			t.Errorf("err %v", err)
		}
		_, p := e.mustResolve(withRoot(e))
		if p.JobID != jobB || p.Path != "s3a://bucket/ck/"+jobB+"/chk-5" {
			t.Errorf("with the root chose %s path %q", p.Key, p.Path)
		}
	})
}

// TestSavepointWithRelativeReferencesOnly: Flink writes savepoints with
// relative references only. Without a Flink root such a savepoint has no
// -s path: Resolve fails naming its key and asking for the root (ExactlyOnce
// with an empty launch would give the operator nothing to run, and "no
// position" a stateless start); with one it is offered.
func TestSavepointWithRelativeReferencesOnly(t *testing.T) {
	e := newEnv(t, "sp/", "s3a://bucket/", nil)
	w := e.savepoint(flinkckpttest.SavepointName(jobA, 1), 9, t0, nil)
	_, err := e.resolve(nil)
	if !errors.Is(err, flinkckpt.ErrNoFlinkPath) || errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), `(key "`+w.Dir+`")`) ||
		!strings.Contains(err.Error(), "references are all relative") || !strings.Contains(err.Error(), "--flink-root") {
		t.Errorf("err %v", err)
	}
	c, p := e.mustResolve(withRoot(e))
	if p.Path != w.FlinkPath || len(c.Position.Launch().Args) != 2 {
		t.Errorf("path %q launch %+v", p.Path, c.Position.Launch())
	}
}

// TestFallbackRootForRelativeOnlySnapshots: a canonical savepoint gives no
// absolute path to infer the Flink root from; the fallback root (resumectl
// derives it from the storage URL) names it, with a warning, while a
// checkpoint with absolute references keeps its inferred root.
func TestFallbackRootForRelativeOnlySnapshots(t *testing.T) {
	e := newEnv(t, "sp/", "s3a://bucket/", nil)
	w := e.savepoint(flinkckpttest.SavepointName(jobA, 1), 9, t0, nil)
	c, p := e.mustResolve(&flinkckpt.Options{FallbackFlinkRoot: "s3://bucket/"})
	if want := "s3://bucket/" + strings.TrimSuffix(w.Dir, "/"); p.Path != want {
		t.Errorf("path %q, want %q", p.Path, want)
	}
	if !hasWarning(c.Warnings, flinkckpt.WarnPathFromLocation, "comes from the storage location") {
		t.Errorf("warnings %q lack the fallback warning", c.Warnings)
	}
	snaps, err := flinkckpt.List(e.ctx, e.bucket, "sp/", &flinkckpt.Options{FallbackFlinkRoot: "s3://bucket/"})
	if err != nil || len(snaps) != 1 || snaps[0].Path != p.Path {
		t.Errorf("List: %+v, %v", snaps, err)
	}

	ck := newEnv(t, "ck/", "s3a://bucket/", nil)
	ck.chk(jobA, 5, t0, &flinkckpttest.Checkpoint{Shared: []string{"s-1", "s-2"}})
	c, p = ck.mustResolve(&flinkckpt.Options{FallbackFlinkRoot: "s3://bucket/"})
	if !strings.HasPrefix(p.Path, "s3a://bucket/ck/") || c.HasWarning(flinkckpt.WarnPathFromLocation) {
		t.Errorf("inferred root lost: path %q, warnings %q", p.Path, c.Warnings)
	}
	if _, err := flinkckpt.NewResolver(e.bucket, "sp/", &flinkckpt.Options{FallbackFlinkRoot: "not a uri"}); err == nil {
		t.Error("a bad fallback root was accepted")
	}
}

func containsAny(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
