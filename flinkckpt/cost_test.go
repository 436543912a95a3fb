package flinkckpt_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// listSpy records the prefixes of list calls.
type listSpy struct {
	mu       sync.Mutex
	prefixes []string
}

func (s *listSpy) fault(c blobtest.Call) error {
	if c.Op == blobtest.OpList {
		s.mu.Lock()
		s.prefixes = append(s.prefixes, c.Key)
		s.mu.Unlock()
	}
	return nil
}

func (s *listSpy) check(t *testing.T) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.prefixes {
		if strings.Contains(p, "/shared/") || strings.Contains(p, "/taskowned/") {
			t.Errorf("listed %q: shared/ and taskowned/ must never be listed", p)
		}
	}
}

// TestCostModel enforces the documented cost (see doc.go and the package
// README figures): list pages = 1 + j + Σ⌈entries/1000⌉ + 1 verification
// listing; reads = one _metadata per job dir and savepoint dir, plus one per
// skipped snapshot; attribute calls = files referenced outside the chosen
// snapshot's own dir.
func TestCostModel(t *testing.T) {
	type counts struct{ List, Read, Attributes int }
	t.Run("ThreeJobDirsAndASavepoint", func(t *testing.T) {
		spy := &listSpy{}
		e := newEnv(t, "ck/", "s3a://bucket/", &blobtest.Options{Fault: spy.fault})
		jobs := []string{jobA, jobB, "cccccccccccccccccccccccccccccccc"}
		for j, job := range jobs {
			for i := int64(1); i <= 5; i++ {
				e.chk(job, i, t0.Add(time.Duration(j)*time.Hour+time.Duration(i)*time.Minute),
					&flinkckpttest.Checkpoint{Shared: shared(fmt.Sprintf("j%d-c%d", j, i), 2), Exclusive: 2})
			}
		}
		e.savepoint(flinkckpttest.SavepointName(jobA, 1), 3, t0, nil)
		e.rec.Reset()
		_, p := e.mustResolve(nil)
		if p.JobID != jobs[2] || p.CheckpointID != 5 {
			t.Fatalf("chose %+v", p)
		}
		got := counts{e.rec.Count(blobtest.OpList), e.rec.Count(blobtest.OpRead), e.rec.Count(blobtest.OpAttributes)}
		want := counts{List: 1 + 3 + 1, Read: 3 + 1, Attributes: 2}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("calls (-want +got):\n%s\n%s", diff, e.rec)
		}
		spy.check(t)
	})
	t.Run("SkippedSnapshotsCostOneReadEach", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 3)})
		e.chk(jobA, 2, t0, &flinkckpttest.Checkpoint{Shared: shared("b", 3), SkipFiles: true}) // broken: verified, then skipped
		e.chk(jobA, 3, t0, &flinkckpttest.Checkpoint{Incomplete: true})
		e.chk(jobA, 4, t0, &flinkckpttest.Checkpoint{Corrupt: true})
		e.rec.Reset()
		_, p := e.mustResolve(nil)
		if p.CheckpointID != 1 {
			t.Fatalf("chose %d", p.CheckpointID)
		}
		got := counts{e.rec.Count(blobtest.OpList), e.rec.Count(blobtest.OpRead), e.rec.Count(blobtest.OpAttributes)}
		want := counts{List: 1 + 1 + 2, Read: 4, Attributes: 3 + 3}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("calls (-want +got):\n%s\n%s", diff, e.rec)
		}
	})
	t.Run("2500CheckpointsPage", func(t *testing.T) {
		spy := &listSpy{}
		e := newEnv(t, "", "s3a://bucket/ck/", &blobtest.Options{Fault: spy.fault})
		ctx := context.Background()
		for i := 1; i < 2500; i++ { // old checkpoints: dirs with state, never read
			if err := e.mem.WriteAll(ctx, fmt.Sprintf("%s/chk-%d/state", jobA, i), []byte("x"), nil); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < 3000; i++ { // a big shared/ dir: never listed
			if err := e.mem.WriteAll(ctx, fmt.Sprintf("%s/shared/f-%d", jobA, i), make([]byte, 16), nil); err != nil {
				t.Fatal(err)
			}
		}
		e.chk(jobA, 2500, t0, &flinkckpttest.Checkpoint{Shared: []string{"f-1", "f-2999"}})
		e.rec.Reset()
		_, p := e.mustResolve(nil)
		if p.CheckpointID != 2500 {
			t.Fatalf("chose %d", p.CheckpointID)
		}
		got := counts{e.rec.Count(blobtest.OpList), e.rec.Count(blobtest.OpRead), e.rec.Count(blobtest.OpAttributes)}
		// Attributes: 2 shared files + 1 probe: the inferred root
		// s3a://bucket/ck/ has one segment before the key, which could be
		// entropy (the probe finds the file under the first reading).
		want := counts{List: 1 + 3 + 1, Read: 1, Attributes: 2 + 1}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("calls (-want +got):\n%s\n%s", diff, e.rec)
		}
		// root: 1 job dir; job dir: 2500 chk dirs + shared/; own dir: _metadata + 1 exclusive file.
		if listed := e.rec.Listed(); listed != 1+2501+2 {
			t.Errorf("listed %d entries, want %d", listed, 1+2501+2)
		}
		spy.check(t)
	})
	t.Run("VerificationIsConcurrent", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", &blobtest.Options{Latency: 2 * time.Millisecond})
		e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Shared: shared("s", 40)})
		e.rec.Reset()
		e.mustResolve(&flinkckpt.Options{Concurrency: 8})
		if got := e.rec.MaxInFlight(); got < 2 || got > 8 {
			t.Errorf("max in flight %d, want concurrent attribute calls bounded by 8", got)
		}
		if got := e.rec.Count(blobtest.OpAttributes); got != 40 {
			t.Errorf("%d attribute calls, want 40", got)
		}
	})
}
