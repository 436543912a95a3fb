package flinkckpt_test

import (
	"testing"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
)

// TestLeadingZeroChkDirsIgnored: Flink never pads checkpoint ids; chk-007
// is not a checkpoint dir (it used to be read as chk-7/, a key that does
// not exist).
func TestLeadingZeroChkDirsIgnored(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	w := e.chk(jobA, 5, t0, &flinkckpttest.Checkpoint{Shared: shared("s", 1)})
	data, err := e.mem.ReadAll(e.ctx, w.Dir+"_metadata")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.mem.WriteAll(e.ctx, "ck/"+jobA+"/chk-007/_metadata", data, nil); err != nil {
		t.Fatal(err)
	}
	_, p := e.mustResolve(nil)
	if p.Key != w.Dir {
		t.Errorf("chose %s", p.Key)
	}
	snaps, err := flinkckpt.List(e.ctx, e.bucket, "ck/", nil)
	if err != nil || len(snaps) != 1 || snaps[0].Key != w.Dir {
		t.Errorf("list: %v %+v", err, snaps)
	}
}

// TestHugeChkIDsIgnored: a chk-<n> dir above 2^62 (chk-9223372036854775807,
// or one that does not fit int64) is not a checkpoint: the real one wins.
func TestHugeChkIDsIgnored(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	w := e.chk(jobA, 5, t0, &flinkckpttest.Checkpoint{Shared: shared("s", 1)})
	data, err := e.mem.ReadAll(e.ctx, w.Dir+"_metadata")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"9223372036854775807", "4611686018427387905", "99999999999999999999"} {
		if err := e.mem.WriteAll(e.ctx, "ck/"+jobA+"/chk-"+n+"/_metadata", data, nil); err != nil {
			t.Fatal(err)
		}
	}
	_, p := e.mustResolve(nil)
	if p.Key != w.Dir {
		t.Errorf("chose %s", p.Key)
	}
	snaps, err := flinkckpt.List(e.ctx, e.bucket, "ck/", nil)
	if err != nil || len(snaps) != 1 || snaps[0].Key != w.Dir {
		t.Errorf("list: %v %+v", err, snaps)
	}
}
