package flinkckpt_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume"
)

// TestReferencedFileSizeMustMatch: a referenced state file must have
// exactly the size _metadata records. One byte short and one byte long are
// both broken (a file larger than recorded was rewritten or is another
// file), and the older checkpoint is chosen with the reason; the exact size
// verifies.
func TestReferencedFileSizeMustMatch(t *testing.T) {
	for _, tc := range []struct {
		name  string
		delta int // bytes added to (or, negative, cut from) the newest checkpoint's first file
		want  int64
	}{
		{"Exact", 0, 2},
		{"OneByteLonger", 1, 1},
		{"OneByteShorter", -1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "", "hdfs://ns/flink/ck/", nil)
			e.chk(jobA, 1, t0, nil)
			w := e.chk(jobA, 2, t0.Add(time.Minute), nil)
			data, err := e.mem.ReadAll(e.ctx, w.Files[0])
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.delta > 0:
				data = append(data, make([]byte, tc.delta)...)
			case tc.delta < 0:
				data = data[:len(data)+tc.delta]
			}
			if err := e.mem.WriteAll(e.ctx, w.Files[0], data, nil); err != nil {
				t.Fatal(err)
			}
			c, p := e.mustResolve(&flinkckpt.Options{FlinkRoot: "hdfs://ns/flink/ck"})
			if p.CheckpointID != tc.want {
				t.Fatalf("chose chk-%d, want chk-%d; reasons %q", p.CheckpointID, tc.want, c.Reasons)
			}
			if tc.delta != 0 && !hasLine(c.Reasons, `^chk-2 .*broken: 1 of 1 referenced files of the wrong size, first: `+w.Files[0]+`$`) {
				t.Errorf("reasons %q", c.Reasons)
			}
			if tc.delta == 0 && (!p.Verified || c.Guarantee != resume.ExactlyOnce) {
				t.Errorf("exact size: verified %v guarantee %s", p.Verified, c.Guarantee)
			}
		})
	}
}

// TestNewJobMatchingTwoApplicationsEquallyIsAnError: a new job that shares
// as many operators with one application as with another does not
// identify either; Resolve lists both and says so, never choosing the
// newest application's snapshot silently. One more operator in common
// with one of them picks it.
func TestNewJobMatchingTwoApplicationsEquallyIsAnError(t *testing.T) {
	orders, payments := appOps("orders", 3), appOps("payments", 5)
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 10, t0, &flinkckpttest.Checkpoint{OperatorIDs: orders, Shared: shared("a", 1)})
	e.chk(jobB, 20, t0.Add(time.Hour), &flinkckpttest.Checkpoint{OperatorIDs: payments, Shared: shared("b", 1)})
	job := func(ids ...string) *jobgraph.Job {
		j := &jobgraph.Job{}
		for _, id := range ids {
			if err := j.AddOperatorID(id); err != nil {
				t.Fatal(err)
			}
		}
		return j
	}
	for _, ids := range [][]string{
		{orders[0], payments[0]},
		{orders[0], orders[1], payments[0], payments[1]},
	} {
		_, err := e.resolve(&flinkckpt.Options{Job: job(ids...), AllowNonRestoredState: true})
		var ae *flinkckpt.ApplicationsError
		if !errors.As(err, &ae) || !errors.Is(err, flinkckpt.ErrSeveralApplications) || len(ae.Applications) != 2 ||
			ae.Why != "the new job's operators match "+strconv.Itoa(len(ids)/2)+" of several equally" {
			t.Errorf("%d operators, half of each: err %v", len(ids), err)
		}
	}
	// One more in common with the older application: it is chosen.
	_, p := e.mustResolve(&flinkckpt.Options{Job: job(orders[0], orders[1], payments[0]), AllowNonRestoredState: true})
	if p.JobID != jobA || p.CheckpointID != 10 {
		t.Errorf("2 of orders, 1 of payments: chose %s", p.Key)
	}
	_, p = e.mustResolve(&flinkckpt.Options{Job: job(orders[0], payments[0], payments[1]), AllowNonRestoredState: true})
	if p.JobID != jobB || p.CheckpointID != 20 {
		t.Errorf("1 of orders, 2 of payments: chose %s", p.Key)
	}
}

// TestParallelismUpToTheSnapshotsMaxParallelism: Flink restores keyed
// state into a parallelism equal to the snapshot's max parallelism (each
// subtask gets one key group) and refuses one above it
// (StateAssignmentOperation.checkParallelismPreconditions).
func TestParallelismUpToTheSnapshotsMaxParallelism(t *testing.T) {
	keyed := metadata.Operator{ID: id(0), Parallelism: 2, MaxParallelism: 128,
		SubtaskStates: []metadata.SubtaskState{{ManagedKeyed: &metadata.KeyedHandle{Type: metadata.TypeKeyGroupsV2}}}}
	cp := &metadata.Checkpoint{Operators: []metadata.Operator{keyed}}
	for _, tc := range []struct {
		par        int
		compatible bool
	}{{127, true}, {128, true}, {129, false}} {
		j := &jobgraph.Job{Parallelism: tc.par}
		if err := j.Add(jobgraph.JobOperator{ID: id(0)}); err != nil {
			t.Fatal(err)
		}
		c := jobgraph.CheckCompat(cp, j)
		above := false
		for _, p := range c.Problems {
			above = above || p.Code == jobgraph.ProblemParallelismAboveMaxPar && p.Fatal
		}
		if c.Compatible != tc.compatible || above == tc.compatible || len(c.Problems) != map[bool]int{true: 0, false: 1}[tc.compatible] {
			t.Errorf("parallelism %d, max parallelism 128: compatible %v, problems %+v; want compatible %v", tc.par, c.Compatible, c.Problems, tc.compatible)
		}
		// The same bound per operator.
		j = &jobgraph.Job{}
		if err := j.Add(jobgraph.JobOperator{ID: id(0), Parallelism: tc.par}); err != nil {
			t.Fatal(err)
		}
		if c := jobgraph.CheckCompat(cp, j); c.Compatible != tc.compatible {
			t.Errorf("operator parallelism %d: compatible %v, want %v", tc.par, c.Compatible, tc.compatible)
		}
	}
}

// TestMergedFileMustHoldEverySegment: with Flink 1.20's file merging, a
// subtask's state is a segment (start, size) of a shared physical file; the
// file must be at least as long as the furthest segment's end (it may be
// longer: other states' segments). Exactly that long or longer verifies;
// one byte shorter is broken, and the checkpoint is not chosen.
func TestMergedFileMustHoldEverySegment(t *testing.T) {
	ctx := context.Background()
	const job = "6f1e00000000000000000000000000aa"
	dir := "ck/" + job + "/chk-5/"
	mergedKey := "ck/" + job + "/taskowned/merged-1"
	src := flinkckpttest.KafkaSource("orders", "orders", 10, 11)
	src.Parallelism = 2
	src.Splits[1].Subtask = 1
	op, _ := src.Operator(4, nil)
	var merged []byte
	merged = append(merged, strings.Repeat("x", 37)...)
	for i := range op.SubtaskStates {
		h := op.SubtaskStates[i].ManagedOperator
		stream := h.Stream.Data
		h.Type, h.TaskOwnedDir, h.SharedDir = metadata.TypeFileMergingOperator, "s3a://bucket/ck/"+job+"/taskowned", "s3a://bucket/ck/"+job+"/shared"
		h.Stream = &metadata.StreamHandle{Type: metadata.TypeSegment, Path: "s3a://bucket/" + mergedKey, Name: "logical-" + strconv.Itoa(i),
			Start: int64(len(merged)), Size: int64(len(stream))}
		merged = append(merged, stream...)
	}
	need := len(merged) // the last segment's end
	data, err := flinkckpttest.Encode(&metadata.Checkpoint{Version: 4, CheckpointID: 5, Operators: []metadata.Operator{op}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		size     int
		verified bool
	}{{need, true}, {need + 13, true}, {need - 1, false}} {
		b := memblob.OpenBucket(nil)
		defer b.Close()
		if err := b.WriteAll(ctx, dir+"_metadata", data, nil); err != nil {
			t.Fatal(err)
		}
		file := append(append([]byte(nil), merged...), make([]byte, max(tc.size-need, 0))...)[:tc.size]
		if err := b.WriteAll(ctx, mergedKey, file, nil); err != nil {
			t.Fatal(err)
		}
		r, err := flinkckpt.NewResolver(b, "ck/", &flinkckpt.Options{FlinkRoot: "s3a://bucket/ck"})
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(ctx)
		if !tc.verified {
			if err == nil || !strings.Contains(err.Error(), "wrong size") {
				t.Errorf("merged file of %d bytes, segments need %d: chose %v, err %v", tc.size, need, c.Position, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("merged file of %d bytes, segments need %d: %v", tc.size, need, err)
		}
		p, err := flinkckpt.PositionOf(c.Position)
		if err != nil || p.CheckpointID != 5 || !p.Verified {
			t.Errorf("merged file of %d bytes: %+v %v; reasons %q", tc.size, p, err, c.Reasons)
		}
	}
}

// TestEqualTimeAndIDRankByKey: two savepoints with the same checkpoint id
// and the same modification time rank by key, the lower first, whichever is
// listed or written first: the same answer on every run, and the reason
// says why.
func TestEqualTimeAndIDRankByKey(t *testing.T) {
	for _, order := range [][]int{{1, 2}, {2, 1}} {
		e := newEnv(t, "sp/", "s3a://bucket/", nil)
		names := map[int]string{1: flinkckpttest.SavepointName(jobA, 1), 2: flinkckpttest.SavepointName(jobA, 2)}
		low, high := names[1], names[2]
		if high < low {
			low, high = high, low
		}
		for _, i := range order {
			e.savepoint(names[i], 7, t0, nil)
		}
		c, p := e.mustResolve(&flinkckpt.Options{FlinkRoot: e.l.FlinkRoot()})
		if p.Key != "sp/"+low+"/" || !hasLine(c.Reasons, `ranks above `+high+`: same effective modification time .* and checkpoint id 7; first by key`) {
			t.Errorf("written %v: chose %s, reasons %q", order, p.Key, c.Reasons)
		}
	}
}

// TestConsecutiveIDsAreOneRun: within a job dir consecutive checkpoint ids
// are one run of the job, ordered by id whatever the modification times say
// (chk-2 copied later than chk-3); only a gap in the ids starts another run,
// which is then ordered by time.
func TestConsecutiveIDsAreOneRun(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
	e.chk(jobA, 2, t0.Add(2*time.Hour), &flinkckpttest.Checkpoint{Shared: shared("b", 1)})
	e.chk(jobA, 3, t0.Add(time.Hour), &flinkckpttest.Checkpoint{Shared: shared("c", 1)})
	c, p := e.mustResolve(nil)
	if p.CheckpointID != 3 {
		t.Errorf("chose chk-%d, want chk-3 (one run: the id decides); reasons %q", p.CheckpointID, c.Reasons)
	}
}
