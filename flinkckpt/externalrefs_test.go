package flinkckpt_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume"
)

// TestDSTLFilesNeverAnchorTheRoot (issue 22 item 1): a changelog backend's
// DSTL files live under state.changelog.dstl.dfs.base-path
// (<base>/<job>/dstl/<uuid>), whose job-id segment matches the snapshot's
// key. They never vote on the snapshot's root: at every ratio of DSTL to
// materialized files the newest checkpoint is chosen with its real -s path,
// inferred or given, and its DSTL files are verified where they are — in
// the same bucket through the root, in another through Options.ExtraRoots,
// and refused (a mapping error, never a contradiction) when nobody maps
// them.
func TestDSTLFilesNeverAnchorTheRoot(t *testing.T) {
	for _, ratio := range []struct{ dstl, shared int }{{1, 3}, {3, 3}, {4, 1}, {12, 2}} {
		name := fmt.Sprintf("%dDSTL%dShared", ratio.dstl, ratio.shared)
		t.Run("SameBucket"+name, func(t *testing.T) {
			e := newEnv(t, "ck/", "s3a://bucket/", nil)
			var w *flinkckpttest.Written
			for id := int64(1); id <= 2; id++ {
				w = e.chk(jobA, id, t0.Add(time.Duration(id)*time.Minute), &flinkckpttest.Checkpoint{Shared: shared(fmt.Sprint("m", id), ratio.shared),
					DSTL: &flinkckpttest.DSTL{Base: "s3a://bucket/changelog", Files: ratio.dstl}})
			}
			if !strings.Contains(strings.Join(fileRefs(t, e, w), " "), "s3a://bucket/changelog/"+jobA+"/dstl/") {
				t.Fatalf("no DSTL reference written: %q", fileRefs(t, e, w))
			}
			for _, opts := range []*flinkckpt.Options{nil, {FlinkRoot: "s3a://bucket/"}, {FlinkRoot: "s3a://bucket/ck"}} {
				c, p := e.mustResolve(opts)
				if p.CheckpointID != 2 || p.Path != w.FlinkPath || !p.Verified || p.CheckedFiles != 1+ratio.shared+ratio.dstl {
					t.Errorf("%+v: chose %d path %q verified %v checked %d (want %q), reasons %q", opts, p.CheckpointID, p.Path, p.Verified, p.CheckedFiles, w.FlinkPath, c.Reasons)
				}
			}
			s, err := flinkckpt.Inspect(e.ctx, e.bucket, w.Dir, nil)
			if err != nil || s.State != flinkckpt.StateComplete || s.Path != w.FlinkPath {
				t.Errorf("inspect: %v %s %q: %s", err, s.State, s.Path, s.Reason)
			}
		})
		t.Run("OtherBucket"+name, func(t *testing.T) {
			e := newEnv(t, "ck/", "s3a://bucket/", nil)
			other := memblob.OpenBucket(nil)
			t.Cleanup(func() { other.Close() })
			var w *flinkckpttest.Written
			for id := int64(1); id <= 2; id++ {
				w = e.chk(jobA, id, t0.Add(time.Duration(id)*time.Minute), &flinkckpttest.Checkpoint{Shared: shared(fmt.Sprint("m", id), ratio.shared),
					DSTL: &flinkckpttest.DSTL{Base: "s3a://dstl-bucket/changelog", Files: ratio.dstl, Bucket: other, Key: "changelog/"}})
			}
			extra := []flinkckpt.ExtraRoot{{FlinkRoot: "s3a://dstl-bucket/changelog", Bucket: other, Prefix: "changelog/"}}
			for _, opts := range []*flinkckpt.Options{{ExtraRoots: extra}, {FlinkRoot: "s3a://bucket/", ExtraRoots: extra}} {
				c, p := e.mustResolve(opts)
				if p.CheckpointID != 2 || p.Path != w.FlinkPath || !p.Verified || p.CheckedFiles != 1+ratio.shared+ratio.dstl {
					t.Errorf("root %q: chose %d path %q verified %v checked %d (want %q), reasons %q", opts.FlinkRoot, p.CheckpointID, p.Path, p.Verified, p.CheckedFiles, w.FlinkPath, c.Reasons)
				}
			}
			// Not mapped: refused, naming a DSTL file, never blaming the root.
			for _, opts := range []*flinkckpt.Options{nil, {FlinkRoot: "s3a://bucket/"}} {
				_, err := e.resolve(opts)
				if !errors.Is(err, flinkckpt.ErrMapping) || errors.Is(err, resume.ErrNoPosition) || strings.Contains(err.Error(), "contradicts") ||
					!strings.Contains(err.Error(), "first: s3a://dstl-bucket/changelog/"+jobA+"/dstl/") {
					t.Errorf("%+v: err %v", opts, err)
				}
			}
			// A DSTL file gone from the other bucket breaks the checkpoint
			// there; the older one is chosen.
			k := "changelog/" + strings.TrimPrefix(flinkckpttest.DSTLFile("s3a://dstl-bucket/changelog", jobA, 2, 0), "s3a://dstl-bucket/changelog/")
			if err := other.Delete(e.ctx, k); err != nil {
				t.Fatal(err)
			}
			c, p := e.mustResolve(&flinkckpt.Options{ExtraRoots: extra})
			if p.CheckpointID != 1 || !hasLine(c.Reasons, "chk-2 of job "+jobA+": broken: 1 of .* missing, first: "+k) {
				t.Errorf("chose %d, reasons %q", p.CheckpointID, c.Reasons)
			}
		})
	}
	t.Run("DSTLOnly", func(t *testing.T) {
		// No materialized file: nothing shaped like the layout, so no root
		// to infer (never one from the DSTL base); the given root works.
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		w := e.chk(jobA, 4, t0, &flinkckpttest.Checkpoint{DSTL: &flinkckpttest.DSTL{Base: "s3a://bucket/changelog", Files: 3}})
		if _, err := e.resolve(nil); !errors.Is(err, flinkckpt.ErrNoFlinkPath) {
			t.Errorf("err %v", err)
		}
		_, p := e.mustResolve(withRoot(e))
		if p.Path != w.FlinkPath || !p.Verified || p.CheckedFiles != 4 {
			t.Errorf("%+v", p)
		}
	})
}

// TestMigratedRootSharedFiles (issue 22 item 1): after the checkpoint dir
// moved (ck1 → ck2) under the same job id (application mode with HA), the
// new checkpoints still reference shared files under the old root. At any
// ratio of old to new files the root is the one the new files name, the
// old files are verified where they are, and the given bucket root or
// checkpoint root never contradicts them.
func TestMigratedRootSharedFiles(t *testing.T) {
	const job = "00000000000000000000000000000000"
	for _, old := range []int{1, 5} {
		t.Run(fmt.Sprint(old, "Old"), func(t *testing.T) {
			e := newEnv(t, "ck2/", "s3a://bucket/", nil)
			var abs []string
			for i := range old {
				k := fmt.Sprintf("ck1/%s/shared/old-%d.sst", job, i)
				if err := e.mem.WriteAll(e.ctx, k, make([]byte, 16), nil); err != nil {
					t.Fatal(err)
				}
				abs = append(abs, "s3a://bucket/"+k)
			}
			w := e.chk(job, 9, t0, &flinkckpttest.Checkpoint{Shared: shared("new", 2), Absolute: abs})
			for _, opts := range []*flinkckpt.Options{nil, {FlinkRoot: "s3a://bucket/"}, {FlinkRoot: "s3a://bucket/ck2"}} {
				_, p := e.mustResolve(opts)
				if p.Path != "s3a://bucket/ck2/"+job+"/chk-9" || p.Path != w.FlinkPath || !p.Verified || p.CheckedFiles != 1+2+old {
					t.Errorf("%+v: %+v", opts, p)
				}
			}
		})
	}
	t.Run("OnlyOldFilesGivenRoot", func(t *testing.T) {
		// Every shared file is inherited: with the root given they are
		// checked where they are, not taken for a wrong root.
		e := newEnv(t, "ck2/", "s3a://bucket/", nil)
		k := "ck1/" + job + "/shared/old-0.sst"
		if err := e.mem.WriteAll(e.ctx, k, make([]byte, 16), nil); err != nil {
			t.Fatal(err)
		}
		e.chk(job, 9, t0, &flinkckpttest.Checkpoint{Absolute: []string{"s3a://bucket/" + k}})
		for _, root := range []string{"s3a://bucket/", "s3a://bucket/ck2"} {
			_, p := e.mustResolve(&flinkckpt.Options{FlinkRoot: root})
			if p.Path != "s3a://bucket/ck2/"+job+"/chk-9" || !p.Verified {
				t.Errorf("root %s: %+v", root, p)
			}
		}
	})
}

// TestSiblingPrefixReferences (issue 22 item 1): shared files under a
// sibling prefix of the same bucket (another job's dir of another
// checkpoint root, or the same job id's) are verified under the given
// bucket root, and a healthy checkpoint is chosen at its own path.
func TestSiblingPrefixReferences(t *testing.T) {
	for _, sibling := range []string{"ck-old/" + jobA + "/shared/", "ck-old/" + jobB + "/shared/", "other/" + jobA + "/dstl/"} {
		t.Run(strings.ReplaceAll(sibling, "/", "_"), func(t *testing.T) {
			e := newEnv(t, "ck/", "s3a://bucket/", nil)
			var abs []string
			for i := range 3 {
				k := fmt.Sprintf("%sf-%d", sibling, i)
				if err := e.mem.WriteAll(e.ctx, k, make([]byte, 16), nil); err != nil {
					t.Fatal(err)
				}
				abs = append(abs, "s3a://bucket/"+k)
			}
			e.chk(jobA, 2, t0.Add(-time.Minute), nil)
			w := e.chk(jobA, 3, t0, &flinkckpttest.Checkpoint{Shared: shared("own", 1), Absolute: abs})
			for _, opts := range []*flinkckpt.Options{nil, {FlinkRoot: "s3a://bucket/"}, {FlinkRoot: "s3a://bucket/ck"}} {
				c, p := e.mustResolve(opts)
				if p.CheckpointID != 3 || p.Path != w.FlinkPath || !p.Verified || p.CheckedFiles != 5 {
					t.Errorf("%+v: chose %d %+v, reasons %q", opts, p.CheckpointID, p, c.Reasons)
				}
			}
			// Only sibling files: with the bucket root given, still fine.
			e2 := newEnv(t, "ck/", "s3a://bucket/", nil)
			for i := range 3 {
				if err := e2.mem.WriteAll(e2.ctx, fmt.Sprintf("%sf-%d", sibling, i), make([]byte, 16), nil); err != nil {
					t.Fatal(err)
				}
			}
			w2 := e2.chk(jobA, 3, t0, &flinkckpttest.Checkpoint{Absolute: abs})
			_, p := e2.mustResolve(&flinkckpt.Options{FlinkRoot: "s3a://bucket/"})
			if p.Path != w2.FlinkPath || !p.Verified {
				t.Errorf("only sibling files: %+v", p)
			}
		})
	}
}

// fileRefs reads back the file references of the _metadata written.
func fileRefs(t *testing.T, e *env, w *flinkckpttest.Written) []string {
	t.Helper()
	s, err := flinkckpt.Inspect(e.ctx, e.mem, w.Dir, &flinkckpt.Options{SkipVerify: true})
	if err != nil && s.Metadata == nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range s.Metadata.Files {
		out = append(out, f.Path)
	}
	return out
}
