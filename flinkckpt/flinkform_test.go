package flinkckpt_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// TestFlinkFormReferences (item 1): Flink writes Path.toString(), which
// has no "//" when the URI has no authority: a local checkpoint dir
// file:///data/ck gives references file:/data/ck/<job>/shared/…, and
// hdfs:///flink/ck (the default name service) gives hdfs:/flink/ck/….
// Those references are verified under a root given in either spelling (or
// inferred): a deleted shared file makes the checkpoint broken, never
// exactly-once, and List says so.
func TestFlinkFormReferences(t *testing.T) {
	for _, tc := range []struct {
		name, root, prefix string
		opts               *flinkckpt.Options
		wantPath           string
	}{
		{"FileInferred", "file:///data/", "ck/", nil, "file:///data/ck/" + jobA + "/chk-2"},
		{"FileRootFlinkSpelling", "file:///data/", "ck/", &flinkckpt.Options{FlinkRoot: "file:/data/ck"}, "file:///data/ck/" + jobA + "/chk-2"},
		{"FileRootURISpelling", "file:///data/", "ck/", &flinkckpt.Options{FlinkRoot: "file:///data/ck"}, "file:///data/ck/" + jobA + "/chk-2"},
		{"FileRootLocalhost", "file:///data/", "ck/", &flinkckpt.Options{FlinkRoot: "file://localhost/data/ck/"}, "file:///data/ck/" + jobA + "/chk-2"},
		{"HdfsInferred", "hdfs:///flink/", "ck/", nil, "hdfs:///flink/ck/" + jobA + "/chk-2"},
		{"HdfsRootFlinkSpelling", "hdfs:///flink/", "ck/", &flinkckpt.Options{FlinkRoot: "hdfs:/flink/ck"}, "hdfs:///flink/ck/" + jobA + "/chk-2"},
		{"HdfsDefaultNameService", "hdfs:///flink/", "ck/", &flinkckpt.Options{FlinkRoot: "hdfs://ns/flink/ck", DefaultFS: "hdfs://ns"}, "hdfs://ns/flink/ck/" + jobA + "/chk-2"},
		{"HdfsDefaultNameServiceInferred", "hdfs:///flink/", "ck/", &flinkckpt.Options{DefaultFS: "hdfs://ns/"}, "hdfs://ns/flink/ck/" + jobA + "/chk-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.prefix, tc.root, nil)
			e.l.PathString = true
			e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 2)})
			w := e.chk(jobA, 2, t0.Add(time.Minute), &flinkckpttest.Checkpoint{Shared: shared("b", 2)})
			for _, f := range w.Metadata.Files {
				if !f.Relative && strings.Contains(f.Path, "://") {
					t.Fatalf("reference %q is not in Flink's spelling", f.Path)
				}
			}
			c, p := e.mustResolve(tc.opts)
			if p.CheckpointID != 2 || p.Path != tc.wantPath || !p.Verified || p.CheckedFiles != 3 || p.UncheckedFiles != 0 {
				t.Fatalf("got %+v, want path %s", p, tc.wantPath)
			}
			if hasLine(c.Reasons, "relative") || c.HasWarning(flinkckpt.WarnUnverifiedReferences) {
				t.Errorf("reasons %q, warnings %q", c.Reasons, c.Warnings)
			}
			if err := e.mem.Delete(e.ctx, "ck/"+jobA+"/shared/b-0001.sst"); err != nil {
				t.Fatal(err)
			}
			c, p = e.mustResolve(tc.opts)
			if p.CheckpointID != 1 || !hasLine(c.Reasons, `^chk-2 .*broken: 1 of 3 referenced files missing, first: ck/`+jobA+`/shared/b-0001.sst`) ||
				!c.HasWarning(flinkckpt.WarnOlderThanBroken) {
				t.Errorf("after deleting a shared file: chose %d, reasons %q", p.CheckpointID, c.Reasons)
			}
			snaps, err := flinkckpt.List(e.ctx, e.bucket, tc.prefix, tc.opts)
			if err != nil || len(snaps) != 2 || snaps[0].State != flinkckpt.StateBroken || snaps[1].State != flinkckpt.StateComplete {
				t.Errorf("List: %v %+v", err, snaps)
			}
		})
	}
}

// TestFlinkFormOnLocalFiles (item 1): the same on a real local directory
// through fileblob, with the root resumectl derives for a local path, in
// both spellings.
func TestFlinkFormOnLocalFiles(t *testing.T) {
	dir := filepath.ToSlash(t.TempDir())
	fb, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fb.Close() })
	b, rec := blobtest.Wrap(fb, nil)
	t.Cleanup(func() { b.Close() })
	l := &flinkckpttest.Layout{Bucket: fb, Prefix: "ck/", Root: "file://" + dir + "/", PathString: true}
	e := &env{t: t, ctx: t.Context(), mem: fb, bucket: b, rec: rec, l: l}
	e.chk(jobA, 7, t0, &flinkckpttest.Checkpoint{Shared: shared("x", 3)})
	for _, root := range []string{"file://" + dir + "/ck", "file:" + dir + "/ck"} {
		c, p := e.mustResolve(&flinkckpt.Options{FlinkRoot: root})
		if p.CheckpointID != 7 || p.Path != "file://"+dir+"/ck/"+jobA+"/chk-7" || !p.Verified || p.CheckedFiles != 4 {
			t.Errorf("root %s: %+v, warnings %q", root, p, c.Warnings)
		}
	}
}

// TestUnmappableSameSchemeIsMappingError (item 1): a reference on the
// snapshot's own file system that its root does not cover is a mapping
// error (a wrong root, or state in a place nobody mapped), not a warning:
// the snapshot fails and Resolve reports ErrMapping, not "no position".
func TestUnmappableSameSchemeIsMappingError(t *testing.T) {
	e := newEnv(t, "ck/", "file:///data/", nil)
	e.l.PathString = true
	e.chk(jobA, 3, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1), Absolute: []string{"file:/mnt/other/dstl/log-1"}})
	_, err := e.resolve(&flinkckpt.Options{FlinkRoot: "file:///data/ck"})
	if !errors.Is(err, flinkckpt.ErrMapping) || errors.Is(err, resume.ErrNoPosition) ||
		!strings.Contains(err.Error(), "not under its Flink root") || !strings.Contains(err.Error(), "file:/mnt/other/dstl/log-1") {
		t.Errorf("err %v", err)
	}
	// Mapping the other directory (the changelog's dstl.dfs.base-path)
	// verifies the file there.
	other := memblob.OpenBucket(nil)
	t.Cleanup(func() { other.Close() })
	if err := other.WriteAll(e.ctx, "dstl/log-1", make([]byte, 16), nil); err != nil {
		t.Fatal(err)
	}
	_, p := e.mustResolve(&flinkckpt.Options{FlinkRoot: "file:///data/ck",
		ExtraRoots: []flinkckpt.ExtraRoot{{FlinkRoot: "file:///mnt/other", Bucket: other}}})
	if !p.Verified || p.CheckedFiles != 3 {
		t.Errorf("with the extra root: %+v", p)
	}
}

// TestFlinkRootContradictsReferences (issue #11): a Flink root that
// contradicts where the snapshot's own absolute references say it lives
// fails that snapshot, naming both, instead of offering an exactly-once
// candidate whose -s path does not exist.
func TestFlinkRootContradictsReferences(t *testing.T) {
	// The job ran against s3a://staging/ck; the tree is read as if it were
	// s3a://prod/ck.
	e := newEnv(t, "ck/", "s3a://staging/", nil)
	e.chk(jobA, 5, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 2)})
	_, err := e.resolve(&flinkckpt.Options{FlinkRoot: "s3a://prod/ck"})
	if !errors.Is(err, flinkckpt.ErrMapping) || errors.Is(err, resume.ErrNoPosition) {
		t.Fatalf("err %v", err)
	}
	for _, want := range []string{"the Flink root s3a://prod/ck puts it at s3a://prod/ck/" + jobA + "/chk-5",
		"its _metadata's absolute references say it lives at s3a://staging/ck/" + jobA + "/chk-5 (root s3a://staging/)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err %v\nlacks %q", err, want)
		}
	}
	// A copy inside the bucket: the references still name the old place,
	// which the given root maps (issue 22: a sibling prefix of the same
	// bucket never contradicts the root). Flink reads the files there, so
	// they are checked there: offered while they exist, broken once gone.
	e2 := newEnv(t, "restore/ck/", "s3a://bucket/", nil)
	e2.chk(jobA, 5, t0, &flinkckpttest.Checkpoint{Absolute: []string{"s3a://bucket/ck/" + jobA + "/shared/a-1"}})
	if err := e2.mem.WriteAll(e2.ctx, "ck/"+jobA+"/shared/a-1", make([]byte, 16), nil); err != nil {
		t.Fatal(err)
	}
	_, p := e2.mustResolve(&flinkckpt.Options{FlinkRoot: "s3a://bucket/restore/ck"})
	if p.Path != "s3a://bucket/restore/ck/"+jobA+"/chk-5" || !p.Verified || p.CheckedFiles != 2 {
		t.Errorf("copy: %+v", p)
	}
	if err := e2.mem.Delete(e2.ctx, "ck/"+jobA+"/shared/a-1"); err != nil {
		t.Fatal(err)
	}
	snaps, _ := flinkckpt.List(e2.ctx, e2.bucket, "restore/ck/", &flinkckpt.Options{FlinkRoot: "s3a://bucket/restore/ck"})
	if len(snaps) != 1 || snaps[0].State != flinkckpt.StateBroken || !strings.Contains(snaps[0].Reason, "missing, first: ck/"+jobA+"/shared/a-1") {
		t.Errorf("List: %+v", snaps)
	}
	if err := e2.mem.WriteAll(e2.ctx, "ck/"+jobA+"/shared/a-1", make([]byte, 16), nil); err != nil {
		t.Fatal(err)
	}
	// Saying where the old place is (an extra root) accepts the copy: its
	// files are checked there.
	_, p = e2.mustResolve(&flinkckpt.Options{FlinkRoot: "s3a://bucket/restore/ck",
		ExtraRoots: []flinkckpt.ExtraRoot{{FlinkRoot: "s3a://bucket/ck", Bucket: e2.mem, Prefix: "ck/"}}})
	if p.Path != "s3a://bucket/restore/ck/"+jobA+"/chk-5" || !p.Verified {
		t.Errorf("with the old place mapped: %+v", p)
	}
}
