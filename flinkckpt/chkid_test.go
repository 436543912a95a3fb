package flinkckpt_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
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

// TestHugeCheckpointIDInMetadataIsMalformed: a _metadata whose checkpoint id
// is above 2^62 is malformed (metadata.MaxCheckpointID), not the newest of
// its lineage: a savepoint saying 9223372036854775807 used to outrank the
// job's real savepoint by id; now the real one is chosen and the huge one
// is listed as broken.
func TestHugeCheckpointIDInMetadataIsMalformed(t *testing.T) {
	e := newEnv(t, "sp/", "s3a://bucket/", nil)
	good := e.savepoint("savepoint-"+jobA[:6]+"-000000000001", 7, t0, &flinkckpttest.Checkpoint{})
	for i, id := range []int64{math.MaxInt64, metadata.MaxCheckpointID + 1} {
		e.savepoint(fmt.Sprintf("savepoint-%s-00000000000%d", jobA[:6], i+2), id, t0.Add(time.Minute), &flinkckpttest.Checkpoint{})
	}
	_, p := e.mustResolve(withRoot(e))
	if p.Key != good.Dir || p.CheckpointID != 7 {
		t.Errorf("chose %s (checkpoint %d), want %s", p.Key, p.CheckpointID, good.Dir)
	}
	snaps, _ := flinkckpt.List(e.ctx, e.bucket, "sp/", withRoot(e))
	broken := 0
	for _, s := range snaps {
		if s.Key != good.Dir && s.State == flinkckpt.StateBroken && strings.Contains(s.Reason, "is above 2^62") {
			broken++
		}
	}
	if broken != 2 {
		t.Errorf("list: %+v, want the two huge ids broken", snaps)
	}
}
