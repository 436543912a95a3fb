package flinkckpt_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/internal/fixtures"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/resume"
)

// appOps returns n operator ids of application app.
func appOps(app string, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, jobgraph.OperatorID(fmt.Sprintf("%s-op-%d", app, i)))
	}
	return out
}

// TestApplicationCheck (item 3): heads whose operator-id sets do not
// overlap belong to different applications. A cluster-wide checkpoint root
// or savepoint dir with several applications fails with the list of them
// unless the job is identified — by its job id, an anchor snapshot, or the
// new job's operators — instead of ranking one application's snapshot
// against another's.
func TestApplicationCheck(t *testing.T) {
	const zero = "00000000000000000000000000000000"
	orders, payments := appOps("orders", 3), appOps("payments", 5)
	build := func(t *testing.T) *env {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 10, t0, &flinkckpttest.Checkpoint{OperatorIDs: orders, Shared: shared("a", 1)})
		e.chk(jobB, 20, t0.Add(time.Hour), &flinkckpttest.Checkpoint{OperatorIDs: payments, Shared: shared("b", 1)})
		return e
	}
	t.Run("NotIdentified", func(t *testing.T) {
		e := build(t)
		_, err := e.resolve(nil)
		var ae *flinkckpt.ApplicationsError
		if !errors.As(err, &ae) || !errors.Is(err, flinkckpt.ErrSeveralApplications) || errors.Is(err, resume.ErrNoPosition) {
			t.Fatalf("err %v", err)
		}
		want := []flinkckpt.Application{
			{JobIDs: []string{jobB}, Operators: 5, Newest: t0.Add(time.Hour)},
			{JobIDs: []string{jobA}, Operators: 3, Newest: t0},
		}
		if diff := cmp.Diff(want, ae.Applications); diff != "" {
			t.Errorf("applications (-want +got):\n%s", diff)
		}
		if !strings.Contains(err.Error(), `"ck/" holds snapshots of 2 applications and the job is not identified`) ||
			!strings.Contains(err.Error(), "1) job dirs "+jobB+", 5 operators, newest 2026-11-29T11:00:00Z") {
			t.Errorf("message %v", err)
		}
	})
	t.Run("ByJobID", func(t *testing.T) {
		e := build(t)
		c, p := e.mustResolve(&flinkckpt.Options{JobID: jobA})
		if p.JobID != jobA || p.CheckpointID != 10 || hasLine(c.Reasons, "another application") {
			t.Errorf("chose %s, reasons %q", p.Key, c.Reasons)
		}
	})
	t.Run("ByNewJobsOperators", func(t *testing.T) {
		// Options.Job serves twice: it picks the application (the one
		// sharing most of its operators) and then every snapshot of that
		// application must restore into it.
		e := build(t)
		job := &jobgraph.Job{}
		for _, id := range orders {
			if err := job.AddOperatorID(id); err != nil {
				t.Fatal(err)
			}
		}
		c, p := e.mustResolve(&flinkckpt.Options{Job: job})
		if p.JobID != jobA || p.CheckpointID != 10 || c.Guarantee != resume.ExactlyOnce || p.AllowNonRestoredState ||
			!hasLine(c.Reasons, `^chk-20 of job `+jobB+`: another application \(no operator in common with the new job's application\): not considered`) ||
			!hasLine(c.Reasons, `^restores into the new job: 3 of 3 operators matched by id`) {
			t.Errorf("chose %s (%s), reasons %q", p.Key, c.Guarantee, c.Reasons)
		}
		_, err := e.resolve(&flinkckpt.Options{Job: jobgraph.JobFromUIDs("unrelated")})
		var ae *flinkckpt.ApplicationsError
		if !errors.As(err, &ae) || !strings.Contains(ae.Why, "none of them has any of the new job's 1 operators") {
			t.Errorf("unrelated job: err %v", err)
		}
	})
	t.Run("ByNewJobsOperatorsThenCompatibility", func(t *testing.T) {
		// A new job with two of the orders application's three operators
		// still identifies that application, but its snapshot holds state
		// for the third: rejected (never the other application's snapshot
		// instead), or with AllowNonRestoredState offered as exact-input.
		e := build(t)
		job := &jobgraph.Job{AllUIDs: true}
		for _, id := range orders[:2] {
			if err := job.AddOperatorID(id); err != nil {
				t.Fatal(err)
			}
		}
		_, err := e.resolve(&flinkckpt.Options{Job: job})
		if !errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), "chk-10 of job "+jobA+": the new job has no operator for the state of "+orders[2]) ||
			!strings.Contains(err.Error(), "chk-20 of job "+jobB+": another application") {
			t.Fatalf("err %v", err)
		}
		c, p := e.mustResolve(&flinkckpt.Options{Job: job, AllowNonRestoredState: true})
		if p.JobID != jobA || p.CheckpointID != 10 || c.Guarantee != resume.ExactInput || !p.AllowNonRestoredState ||
			!c.HasWarning(flinkckpt.WarnDroppedState) {
			t.Errorf("chose %s (%s), warnings %q", p.Key, c.Guarantee, c.Warnings)
		}
	})
	t.Run("ByAnchor", func(t *testing.T) {
		e := build(t)
		anchor := (&flinkckpttest.Spec{Version: 4, CheckpointID: 3, OperatorIDs: payments}).Metadata()
		_, p := e.mustResolve(&flinkckpt.Options{Anchor: jobgraph.JobOfCheckpoint(anchor)})
		if p.JobID != jobB {
			t.Errorf("chose %s", p.Key)
		}
	})
	t.Run("SharedOperatorJoinsApplications", func(t *testing.T) {
		// A restarted job (new job id) keeps its operator ids: one
		// application, ranked by time as always.
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 10, t0, &flinkckpttest.Checkpoint{OperatorIDs: orders, Shared: shared("a", 1)})
		e.chk(jobB, 3, t0.Add(time.Hour), &flinkckpttest.Checkpoint{OperatorIDs: append(orders[:1:1], appOps("orders-v2", 2)...), Shared: shared("b", 1)})
		_, p := e.mustResolve(nil)
		if p.JobID != jobB {
			t.Errorf("chose %s", p.Key)
		}
	})
	t.Run("FixedIDSavepointsMatchedByOperators", func(t *testing.T) {
		// Before Flink 1.16 every application-mode job with HA was job
		// 000…0, so every savepoint is savepoint-000000-…: the prefix says
		// nothing; the operators of the job dir's checkpoint do.
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(zero, 40, t0, &flinkckpttest.Checkpoint{OperatorIDs: orders, Shared: shared("a", 1)})
		mine := flinkckpttest.SavepointName(zero, 1)
		theirs := flinkckpttest.SavepointName(zero, 2)
		e.savepoint(mine, 30, t0.Add(-time.Hour), &flinkckpttest.Checkpoint{OperatorIDs: orders})
		e.savepoint(theirs, 90, t0.Add(time.Hour), &flinkckpttest.Checkpoint{OperatorIDs: payments})
		c, p := e.mustResolve(&flinkckpt.Options{JobID: zero, FlinkRoot: e.l.FlinkRoot()})
		if p.JobID != zero || p.CheckpointID != 40 || !hasLine(c.Reasons, `^`+theirs+`: another application`) ||
			!hasLine(c.Reasons, `^newer than `+mine+` by _metadata modification time`) {
			t.Errorf("chose %s, reasons %q", p.Key, c.Reasons)
		}
		// Without the job dir's checkpoint nothing tells the savepoints
		// apart but an anchor.
		sp := newEnv(t, "sp/", "s3a://bucket/", nil)
		sp.savepoint(mine, 30, t0.Add(-time.Hour), &flinkckpttest.Checkpoint{OperatorIDs: orders})
		sp.savepoint(theirs, 90, t0.Add(time.Hour), &flinkckpttest.Checkpoint{OperatorIDs: payments})
		_, err := sp.resolve(&flinkckpt.Options{JobID: zero, FlinkRoot: sp.l.FlinkRoot()})
		var ae *flinkckpt.ApplicationsError
		if !errors.As(err, &ae) || len(ae.Applications) != 2 || !strings.Contains(ae.Why, "job "+zero+" has no readable checkpoint") ||
			ae.Applications[0].Savepoints[0] != theirs {
			t.Errorf("savepoints only: err %v", err)
		}
		anchor := (&flinkckpttest.Spec{Version: 4, OperatorIDs: orders}).Metadata()
		_, p = sp.mustResolve(&flinkckpt.Options{JobID: zero, FlinkRoot: sp.l.FlinkRoot(), Anchor: jobgraph.JobOfCheckpoint(anchor)})
		if p.Key != "sp/"+mine+"/" {
			t.Errorf("with the anchor chose %s", p.Key)
		}
	})
}

// TestApplicationCheckRealFixtures: the two real KafkaSource savepoints
// were taken by different job ids of one application (same operator ids):
// one application, no error. A savepoint of another real job next to them
// makes two, and Resolve lists them.
func TestApplicationCheckRealFixtures(t *testing.T) {
	dir := fixtures.Dir(t)
	fb, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	mem := memblob.OpenBucket(nil)
	defer mem.Close()
	ctx := context.Background()
	copyTree := func(from, to string) {
		t.Helper()
		it := fb.List(nil)
		for {
			o, err := it.Next(ctx)
			if err != nil {
				break
			}
			if !strings.HasPrefix(o.Key, from+"/") || o.IsDir {
				continue
			}
			data, err := fb.ReadAll(ctx, o.Key)
			if err != nil {
				t.Fatal(err)
			}
			if err := mem.WriteAll(ctx, to+strings.TrimPrefix(o.Key, from), data, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	copyTree("v4-kafka-source-native-savepoint/savepoint-3c7c0a-07c49f841952", "sp/savepoint-3c7c0a-07c49f841952")
	copyTree("v5-kafka-source-enum3-savepoint/savepoint-246fa1-85f387ecce0c", "sp/savepoint-246fa1-85f387ecce0c")
	opts := &flinkckpt.Options{FlinkRoot: "file:/savepoints/sp"}
	r, _ := flinkckpt.NewResolver(mem, "sp/", opts)
	if _, err := r.Resolve(ctx); err != nil {
		t.Fatalf("one application: %v", err)
	}
	copyTree("v4-flink1.19-complexkeyed-savepoint", "sp/savepoint-0a0a0a-000000000001")
	_, err = r.Resolve(ctx)
	var ae *flinkckpt.ApplicationsError
	if !errors.As(err, &ae) || len(ae.Applications) != 2 {
		t.Fatalf("err %v", err)
	}
	got := map[int]int{}
	for _, a := range ae.Applications {
		got[a.Operators] = len(a.Savepoints)
	}
	if diff := cmp.Diff(map[int]int{2: 2, 4: 1}, got); diff != "" {
		t.Errorf("operators → savepoints (-want +got):\n%s", diff)
	}
}
