package flinkckpt_test

import (
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume"
)

func header(version int32) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0x4960672D)
	b = binary.BigEndian.AppendUint32(b, uint32(version))
	return binary.BigEndian.AppendUint64(b, 7)
}

// allocBytes returns the bytes allocated while f runs.
func allocBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestEscapingRelativePathsRefused: relative paths that leave the
// checkpoint dir, or only look relative, make the checkpoint broken even
// when the target exists; the older clean checkpoint is chosen.
func TestEscapingRelativePathsRefused(t *testing.T) {
	for _, rel := range []string{"../chk-1/00000001-exclusive-0", "../../" + jobB + "/shared/x", "/etc/passwd", "s3://other/x", "a/../../x", "..", `..\x`, ""} {
		t.Run(strings.ReplaceAll(rel, "/", "_"), func(t *testing.T) {
			e := newEnv(t, "ck/", "s3a://bucket/", nil)
			e.chk(jobA, 1, t0, nil)
			md := (&flinkckpttest.Spec{Version: 4, CheckpointID: 2, Operators: 1, Relative: []string{rel}, FileSize: 16}).Metadata()
			data, err := flinkckpttest.Encode(md)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.mem.WriteAll(e.ctx, "ck/"+jobA+"/chk-2/_metadata", data, nil); err != nil {
				t.Fatal(err)
			}
			e.rec.SetModTime("ck/"+jobA+"/chk-2/_metadata", t0)
			c, p := e.mustResolve(&flinkckpt.Options{FlinkRoot: "s3a://bucket/ck"})
			if p.CheckpointID != 1 || !hasLine(c.Reasons, `^chk-2 .*broken: 1 relative paths refused`) {
				t.Errorf("chose %d, reasons %q", p.CheckpointID, c.Reasons)
			}
		})
	}
}

// TestAbsoluteReferencesElsewhereNotChecked: absolute references into
// another scheme are never mapped into this bucket: they are not checked,
// so the snapshot is not offered unless unverified snapshots are allowed.
// A reference on the snapshot's own file system (s3a://) in another bucket
// is a mapping error until an extra root maps that bucket: unverified (it
// lies outside the root), never broken, so AllowUnverified takes it with
// its warning (issue 33 item 3).
func TestAbsoluteReferencesElsewhereNotChecked(t *testing.T) {
	t.Run("OtherSchemes", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Shared: shared("s", 2), Absolute: []string{
			"hdfs://ns/ck/" + jobA + "/shared/s-0001.sst", // other scheme
			"file:///etc/passwd",
		}})
		for _, opts := range []*flinkckpt.Options{{}, {FlinkRoot: "s3a://bucket/ck"}} {
			if _, err := e.resolve(opts); !errors.Is(err, flinkckpt.ErrUnverified) || errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), "unverified: 2 of 5 referenced files not checked") {
				t.Errorf("%+v: err %v", opts, err)
			}
			opts.AllowUnverified = true
			c, p := e.mustResolve(opts)
			if p.Verified || p.UncheckedFiles != 2 || p.CheckedFiles != 3 || p.ReferencedFiles != 5 ||
				!hasWarning(c.Warnings, flinkckpt.WarnUnverifiedReferences, `^references not checked .*2 of 5 referenced files not checked`) {
				t.Errorf("%+v: %+v, warnings %q", opts, p, c.Warnings)
			}
		}
	})
	t.Run("SameSchemeOtherBucket", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		other := memblob.OpenBucket(nil)
		t.Cleanup(func() { other.Close() })
		if err := other.WriteAll(e.ctx, "ck/"+jobA+"/shared/s-0000.sst", make([]byte, 16), nil); err != nil {
			t.Fatal(err)
		}
		e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Shared: shared("s", 2), Absolute: []string{
			"s3a://other-bucket/ck/" + jobA + "/shared/s-0000.sst", // same key, other bucket
		}})
		for _, opts := range []*flinkckpt.Options{{}, {FlinkRoot: "s3a://bucket/ck"}} {
			_, err := e.resolve(opts)
			if !errors.Is(err, flinkckpt.ErrMapping) || !errors.Is(err, flinkckpt.ErrUnverified) || errors.Is(err, resume.ErrNoPosition) ||
				!strings.Contains(err.Error(), "first: s3a://other-bucket/ck/"+jobA+"/shared/s-0000.sst") {
				t.Errorf("%+v: err %v", opts, err)
			}
		}
		c, p := e.mustResolve(&flinkckpt.Options{AllowUnverified: true})
		if p.Verified || p.UncheckedFiles != 1 || !hasWarning(c.Warnings, flinkckpt.WarnUnverifiedReferences, `s3a://other-bucket/ck/`) {
			t.Errorf("allowed unverified: %+v, warnings %q", p, c.Warnings)
		}
		c, p = e.mustResolve(&flinkckpt.Options{ExtraRoots: []flinkckpt.ExtraRoot{{FlinkRoot: "s3a://other-bucket/", Bucket: other}}})
		if !p.Verified || p.CheckedFiles != 4 || c.HasWarning(flinkckpt.WarnUnverifiedReferences) ||
			len(p.ExtraRoots) != 1 || p.ExtraRoots[0] != "s3a://other-bucket/" {
			t.Errorf("extra root: %+v, warnings %q", p, c.Warnings)
		}
		if err := other.Delete(e.ctx, "ck/"+jobA+"/shared/s-0000.sst"); err != nil {
			t.Fatal(err)
		}
		_, err := e.resolve(&flinkckpt.Options{ExtraRoots: []flinkckpt.ExtraRoot{{FlinkRoot: "s3a://other-bucket/", Bucket: other}}})
		if !errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), "broken: 1 of 4 referenced files missing, first: ck/"+jobA+"/shared/s-0000.sst") {
			t.Errorf("deleted in the other bucket: err %v", err)
		}
	})
}

// TestOversizedMetadataRefusedBeforeReading: a _metadata object larger
// than the limit stops resolution, typed and naming the key, size, limit
// and the flag, without its content being read and without falling back to
// the older checkpoint.
func TestOversizedMetadataRefusedBeforeReading(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 1, t0, nil)
	big := append(header(4), make([]byte, 4<<20)...)
	if err := e.mem.WriteAll(e.ctx, "ck/"+jobA+"/chk-2/_metadata", big, nil); err != nil {
		t.Fatal(err)
	}
	var err error
	n := allocBytes(func() { _, err = e.resolve(&flinkckpt.Options{MaxMetadataSize: 1 << 20, FlinkRoot: e.l.FlinkRoot()}) })
	var tl *flinkckpt.TooLargeError
	if !errors.As(err, &tl) || tl.Key != "ck/"+jobA+"/chk-2/_metadata" || tl.Size != 4194320 || tl.Limit != 1<<20 ||
		!errors.Is(err, metadata.ErrTooLarge) || errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), "--flink-max-metadata-size") {
		t.Errorf("err %v", err)
	}
	if n > 2<<20 {
		t.Errorf("allocated %d bytes: the oversized file was read", n)
	}
	snaps, _ := flinkckpt.List(e.ctx, e.bucket, "ck/", &flinkckpt.Options{MaxMetadataSize: 1 << 20, FlinkRoot: e.l.FlinkRoot()})
	if len(snaps) != 2 || snaps[0].State != flinkckpt.StateTooLarge || snaps[1].State != flinkckpt.StateComplete {
		t.Fatalf("List: %+v", snaps)
	}
	// Its Flink path is named like the others' (from the given root, or
	// the location's likely root), though its _metadata was not read.
	if want := "s3a://bucket/ck/" + jobA + "/chk-2"; snaps[0].Path != want {
		t.Errorf("too-large Path %q, want %q", snaps[0].Path, want)
	}
	snaps, _ = flinkckpt.List(e.ctx, e.bucket, "ck/", &flinkckpt.Options{MaxMetadataSize: 1 << 20, FallbackFlinkRoot: "s3://bucket/"})
	if want := "s3://bucket/ck/" + jobA + "/chk-2"; len(snaps) != 2 || snaps[0].Path != want {
		t.Errorf("too-large with a fallback root: %+v, want Path %q", snaps, want)
	}
}
