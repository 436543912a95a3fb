package flinkckpt_test

import (
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
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
// another bucket or scheme are never mapped into this bucket.
func TestAbsoluteReferencesElsewhereNotChecked(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Shared: shared("s", 2), Absolute: []string{
		"s3a://other-bucket/ck/" + jobA + "/shared/s-0000.sst", // same key, other bucket
		"hdfs://ns/ck/" + jobA + "/shared/s-0001.sst",          // other scheme
		"file:///etc/passwd",
	}})
	for _, opts := range []*flinkckpt.Options{nil, {FlinkRoot: "s3a://bucket/ck"}} {
		c, _ := e.mustResolve(opts)
		if !hasWarning(c.Warnings, flinkckpt.WarnUnverifiedReferences, `^references not checked: 3 of 6 referenced files not checked`) {
			t.Errorf("%+v: warnings %q", opts, c.Warnings)
		}
		if _, err := e.resolve(&flinkckpt.Options{Strict: true}); !errors.Is(err, resume.ErrNoPosition) {
			t.Errorf("strict: err %v", err)
		}
	}
}

// TestOversizedMetadataRefusedBeforeReading: a _metadata object larger
// than the limit is broken without its content being read.
func TestOversizedMetadataRefusedBeforeReading(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 1, t0, nil)
	big := append(header(4), make([]byte, 4<<20)...)
	if err := e.mem.WriteAll(e.ctx, "ck/"+jobA+"/chk-2/_metadata", big, nil); err != nil {
		t.Fatal(err)
	}
	var c resume.Candidate
	var p *flinkckpt.Position
	n := allocBytes(func() { c, p = e.mustResolve(&flinkckpt.Options{MaxMetadataSize: 1 << 20, FlinkRoot: e.l.FlinkRoot()}) })
	if p.CheckpointID != 1 || !hasLine(c.Reasons, `chk-2 .*too large: 4194320 bytes, limit 1048576`) {
		t.Errorf("chose %d, reasons %q", p.CheckpointID, c.Reasons)
	}
	if n > 2<<20 {
		t.Errorf("allocated %d bytes: the oversized file was read", n)
	}
}
