package flinkckpt_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// twoLocations is the usual Flink layout: checkpoints (ck/ in one bucket)
// and savepoints (sp/ in another), read by one resolver.
type twoLocations struct {
	ck, sp *env
}

func newTwoLocations(t *testing.T) *twoLocations {
	return &twoLocations{ck: newEnv(t, "ck/", "s3a://ck-bucket/", nil), sp: newEnv(t, "sp/", "s3a://sp-bucket/", nil)}
}

// opts returns Options over both locations, on top of o.
func (x *twoLocations) opts(o flinkckpt.Options) *flinkckpt.Options {
	o.FlinkRoot = x.ck.l.FlinkRoot()
	o.Locations = []flinkckpt.Location{{Bucket: x.sp.bucket, Prefix: x.sp.l.Prefix, FlinkRoot: x.sp.l.FlinkRoot()}}
	return &o
}

func (x *twoLocations) resolve(t *testing.T, o flinkckpt.Options) (resume.Candidate, error) {
	t.Helper()
	r, err := flinkckpt.NewResolver(x.ck.bucket, x.ck.l.Prefix, x.opts(o))
	if err != nil {
		t.Fatal(err)
	}
	return r.Resolve(context.Background())
}

func (x *twoLocations) mustResolve(t *testing.T, o flinkckpt.Options) (resume.Candidate, *flinkckpt.Position) {
	t.Helper()
	c, err := x.resolve(t, o)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	p, err := flinkckpt.PositionOf(c.Position)
	if err != nil {
		t.Fatal(err)
	}
	return c, p
}

// TestLocationsApplicationCheck: a savepoint dir beside the checkpoint
// root is part of the application check. Two resolvers, one per location,
// would let another application's newer savepoint win on time.
func TestLocationsApplicationCheck(t *testing.T) {
	const zero = "00000000000000000000000000000000"
	orders, payments := appOps("orders", 3), appOps("payments", 5)
	t.Run("NotIdentified", func(t *testing.T) {
		x := newTwoLocations(t)
		x.ck.chk(jobA, 5, t0, &flinkckpttest.Checkpoint{OperatorIDs: orders, Shared: shared("a", 1)})
		x.sp.savepoint(flinkckpttest.SavepointName(jobB, 1), 9, t0.Add(time.Hour), &flinkckpttest.Checkpoint{OperatorIDs: payments})
		_, err := x.resolve(t, flinkckpt.Options{})
		var ae *flinkckpt.ApplicationsError
		if !errors.As(err, &ae) || errors.Is(err, resume.ErrNoPosition) {
			t.Fatalf("err %v", err)
		}
		if len(ae.Applications) != 2 || len(ae.Locations) != 2 || ae.Locations[1] != "sp/" {
			t.Errorf("applications %+v, locations %q", ae.Applications, ae.Locations)
		}
		if !strings.Contains(err.Error(), `"ck/" and "sp/" hold snapshots of 2 applications and the job is not identified`) {
			t.Errorf("message %v", err)
		}
	})
	t.Run("FixedJobIDSavepointOfAnotherApplication", func(t *testing.T) {
		// Before Flink 1.16 every application-mode job had job id 000…0:
		// the savepoint's prefix matches the job, its operators do not.
		x := newTwoLocations(t)
		x.ck.chk(zero, 5, t0, &flinkckpttest.Checkpoint{OperatorIDs: orders, Shared: shared("a", 1)})
		other := flinkckpttest.SavepointName(zero, 1)
		x.sp.savepoint(other, 9, t0.Add(time.Hour), &flinkckpttest.Checkpoint{OperatorIDs: payments})
		c, p := x.mustResolve(t, flinkckpt.Options{JobID: zero})
		if p.Savepoint || p.CheckpointID != 5 || p.Location != 0 {
			t.Fatalf("chose %+v", p)
		}
		if !hasLine(c.Reasons, `^`+other+`: another application`) {
			t.Errorf("reasons %q", c.Reasons)
		}
	})
	t.Run("ByNewJobsOperators", func(t *testing.T) {
		x := newTwoLocations(t)
		x.ck.chk(jobA, 5, t0, &flinkckpttest.Checkpoint{OperatorIDs: orders, Shared: shared("a", 1)})
		x.sp.savepoint(flinkckpttest.SavepointName(jobB, 1), 9, t0.Add(time.Hour), &flinkckpttest.Checkpoint{OperatorIDs: payments})
		job := &jobgraph.Job{}
		for _, id := range payments {
			if err := job.AddOperatorID(id); err != nil {
				t.Fatal(err)
			}
		}
		_, p := x.mustResolve(t, flinkckpt.Options{Job: job})
		if !p.Savepoint || p.Location != 1 || p.Path != "s3a://sp-bucket/sp/"+flinkckpttest.SavepointName(jobB, 1) {
			t.Errorf("chose %+v", p)
		}
	})
}

// TestLocationsLineage: a job's checkpoint outranks the savepoints it took
// at lower ids though they sit in another location and were copied later,
// and an upgrade that takes such a savepoint warns that the job
// checkpointed on after it.
func TestLocationsLineage(t *testing.T) {
	sp := flinkckpttest.SavepointName(jobA, 1)
	build := func(t *testing.T) *twoLocations {
		x := newTwoLocations(t)
		x.ck.chk(jobA, 20, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		x.sp.savepoint(sp, 15, t0.Add(24*time.Hour), &flinkckpttest.Checkpoint{Action: metadata.ActionNone})
		return x
	}
	t.Run("CheckpointOutranksCopiedSavepoint", func(t *testing.T) {
		c, p := build(t).mustResolve(t, flinkckpt.Options{})
		if p.Savepoint || p.CheckpointID != 20 || p.Location != 0 {
			t.Fatalf("chose %+v", p)
		}
		if !c.HasWarning(flinkckpt.WarnLineageOverTime) || !hasLine(c.Reasons, `^ranks above `+sp+`: that is a savepoint of the same job at a lower checkpoint id \(15 vs 20\)`) {
			t.Errorf("reasons %q, warnings %q", c.Reasons, c.Warnings)
		}
	})
	t.Run("UpgradeTakesTheSavepointAndWarns", func(t *testing.T) {
		c, p := build(t).mustResolve(t, flinkckpt.Options{Intent: flinkckpt.IntentUpgrade})
		if !p.Savepoint || p.Location != 1 || p.Key != "sp/"+sp+"/" {
			t.Fatalf("chose %+v", p)
		}
		if !hasWarning(c.Warnings, flinkckpt.WarnSavepointWhileRunning, `job dir ck/`+jobA+`/ holds later checkpoints \(up to chk-20\)`) {
			t.Errorf("warnings %q", c.Warnings)
		}
	})
}

// TestLocationsEmptyAndObserve: "nothing at all is stored" needs every
// location empty; the observation window watches every location.
func TestLocationsEmptyAndObserve(t *testing.T) {
	t.Run("BothEmpty", func(t *testing.T) {
		// Named by their Flink URIs when given (a local directory is never "").
		_, err := newTwoLocations(t).resolve(t, flinkckpt.Options{})
		if !errors.Is(err, flinkckpt.ErrEmptyLocation) || !strings.Contains(err.Error(), `"s3a://ck-bucket/ck" and "s3a://sp-bucket/sp"`) {
			t.Errorf("err %v", err)
		}
	})
	t.Run("EmptySavepointDir", func(t *testing.T) {
		x := newTwoLocations(t)
		x.ck.chk(jobA, 3, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		if _, p := x.mustResolve(t, flinkckpt.Options{}); p.CheckpointID != 3 {
			t.Errorf("chose %+v", p)
		}
	})
	t.Run("NewSavepointWhileObserving", func(t *testing.T) {
		x := newTwoLocations(t)
		x.ck.chk(jobA, 3, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		wait := func(ctx context.Context, d time.Duration) error {
			x.sp.savepoint(flinkckpttest.SavepointName(jobA, 2), 4, t0.Add(time.Minute), nil)
			return nil
		}
		_, err := x.resolve(t, flinkckpt.Options{Observe: time.Minute, Wait: wait})
		var sr *flinkckpt.StillRunningError
		if !errors.As(err, &sr) || sr.Location != "sp/" || len(sr.Appeared) != 1 || !strings.HasPrefix(sr.Appeared[0], "sp/savepoint-") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("QuietWindowSaysBoth", func(t *testing.T) {
		x := newTwoLocations(t)
		x.ck.chk(jobA, 3, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		x.sp.savepoint(flinkckpttest.SavepointName(jobA, 2), 2, t0.Add(-time.Hour), nil)
		c, _ := x.mustResolve(t, flinkckpt.Options{Observe: time.Minute, Wait: func(context.Context, time.Duration) error { return nil }})
		if !hasLine(c.Reasons, `^observed "ck/" for 1m0s: no new checkpoint appeared.*; observed "sp/" for 1m0s: no new savepoint appeared`) {
			t.Errorf("reasons %q", c.Reasons)
		}
	})
}

// TestLocationsRefused: locations that overlap in one bucket would count a
// snapshot twice, and a location needs a bucket.
func TestLocationsRefused(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	for _, tc := range []struct {
		name string
		loc  flinkckpt.Location
		want string
	}{
		{"Inside", flinkckpt.Location{Bucket: e.bucket, Prefix: "ck/sp/"}, `overlaps prefix "ck/"`},
		{"Same", flinkckpt.Location{Bucket: e.bucket, Prefix: "/ck"}, `overlaps prefix "ck/"`},
		{"NilBucket", flinkckpt.Location{Prefix: "sp/"}, "nil bucket"},
		{"BadRoot", flinkckpt.Location{Bucket: e.bucket, Prefix: "sp/", FlinkRoot: "not a uri"}, "location 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := flinkckpt.NewResolver(e.bucket, "ck/", &flinkckpt.Options{Locations: []flinkckpt.Location{tc.loc}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := flinkckpt.NewResolver(e.bucket, "ck/", &flinkckpt.Options{Locations: []flinkckpt.Location{{Bucket: e.bucket, Prefix: "sp/"}}}); err != nil {
		t.Errorf("beside in one bucket: %v", err)
	}
}

// TestStoragePanicReachesTheCaller: a driver that panics in one of the
// concurrent storage calls panics in the goroutine that called Resolve
// (where a resume.Chain recovers it), not in a goroutine of its own that
// would end the process.
func TestStoragePanicReachesTheCaller(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", &blobtest.Options{Before: func(_ context.Context, c blobtest.Call, _ *blob.Bucket) {
		if c.Op == blobtest.OpRead {
			panic("driver bug near " + c.Key)
		}
	}})
	e.chk(jobA, 3, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
	r, err := flinkckpt.NewResolver(e.bucket, "ck/", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got any
	func() {
		defer func() { got = recover() }()
		_, _ = r.Resolve(context.Background())
	}()
	if s, _ := got.(string); !strings.HasPrefix(s, "driver bug near ck/") {
		t.Errorf("recovered %v", got)
	}
}
