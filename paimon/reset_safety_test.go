package paimon_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume/localblob"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// TestResetRefusesSidecarBuckets: gocloud's fileblob writes
// consumer-<id>.attrs unless opened with MetadataDontWrite, and Paimon reads
// that file as a consumer at snapshot 0 (expiry stops for the whole table).
// The mode cannot be told from the bucket, so ResetConsumer refuses every
// fileblob bucket before writing anything; localblob writes.
func TestResetRefusesSidecarBuckets(t *testing.T) {
	for name, opts := range map[string]*fileblob.Options{
		"sidecar":   nil,
		"dontwrite": {Metadata: fileblob.MetadataDontWrite},
	} {
		dir := t.TempDir()
		fb, err := fileblob.OpenBucket(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		tb := paimontest.New(t, fb, "t").CommitEvery(3, t0, time.Minute)
		os.RemoveAll(filepath.Join(dir, "t", "consumer"))
		tbl := openTable(t, fb, tb.Path(), nil)
		_, err = tbl.ResetConsumer(bg, "job", 2, &paimon.ResetOptions{Force: true})
		if err == nil || !strings.Contains(err.Error(), "consumer-job.attrs") {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "t", "consumer")); err == nil {
			t.Errorf("%s: something was written to consumer/", name)
		}
		fb.Close()
	}
	dir := t.TempDir()
	lb, err := localblob.OpenBucket(dir, &localblob.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Close()
	tb := paimontest.New(t, lb, "t").CommitEvery(3, t0, time.Minute)
	if _, err := openTable(t, lb, tb.Path(), nil).ResetConsumer(bg, "job", 2, nil); err != nil {
		t.Fatal(err)
	}
	if got := names(t, filepath.Join(dir, "t", "consumer")); len(got) != 1 || got[0] != "consumer-job" {
		t.Errorf("consumer/ holds %q", got)
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

// appearingConsumer is a job starting meanwhile: every Wait (the reset's
// observation) is a checkpoint that writes its consumer file.
func appearingConsumer(b *blob.Bucket, key string, next int64) func(context.Context, time.Duration) error {
	return func(ctx context.Context, _ time.Duration) error {
		next++
		return b.WriteAll(ctx, key, paimon.ConsumerJSON(next), nil)
	}
}

// TestResetRefusesALiveConsumer: a consumer file modified within the quiet
// period, or rewritten while the reset watches it, belongs to a running job
// that would undo the reset: ErrConsumerActive, nothing written. Force
// writes anyway.
func TestResetRefusesALiveConsumer(t *testing.T) {
	b, tb := newTable(t, 10, nil)
	tb.Consumer("job", 6)
	key := tb.Key("consumer/consumer-job")
	wb, rec := blobtest.Wrap(b, nil)
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

	// Modified 20 s ago: within the one-minute quiet period.
	rec.SetModTime(key, now.Add(-20*time.Second))
	o := fastOpts()
	o.Now = func() time.Time { return now }
	tbl := openTable(t, wb, tb.Path(), o)
	_, err := tbl.ResetConsumer(bg, "job", 3, nil)
	if !errors.Is(err, paimon.ErrConsumerActive) || !strings.Contains(err.Error(), "modified 20s ago") {
		t.Errorf("recently modified: %v", err)
	}
	plan, err := tbl.PlanResetConsumer(bg, "job", 3)
	if err != nil || !hasSub(plan.Warnings, paimon.WarnConsumerRecentlyModified) {
		t.Errorf("the dry run does not warn: %+v, %v", plan, err)
	}

	// Outside the quiet period, but the job checkpoints while the reset
	// watches (paimontest's live consumer rewrites the file between looks).
	live := tb.LiveConsumer("job", 6)
	lb, lrec := blobtest.Wrap(b, &blobtest.Options{Before: live.Before})
	lo := fastOpts()
	tbl = openTable(t, lb, tb.Path(), lo)
	_, err = tbl.ResetConsumer(bg, "job", 3, &paimon.ResetOptions{QuietPeriod: -1})
	if !errors.Is(err, paimon.ErrConsumerActive) || !strings.Contains(err.Error(), "changed during a 5s observation") || live.Checkpoints() == 0 {
		t.Errorf("live consumer: %v (%d checkpoints)", err, live.Checkpoints())
	}
	if rec.Count(blobtest.OpWrite)+lrec.Count(blobtest.OpWrite) != 0 {
		t.Errorf("%d writes after refusals", rec.Count(blobtest.OpWrite)+lrec.Count(blobtest.OpWrite))
	}

	// A new consumer that a starting job creates while the reset watches.
	o.Wait = appearingConsumer(b, tb.Key("consumer/consumer-new"), 1)
	tbl = openTable(t, wb, tb.Path(), o)
	if _, err = tbl.ResetConsumer(bg, "new", 3, nil); !errors.Is(err, paimon.ErrConsumerActive) || !strings.Contains(err.Error(), "it appeared") {
		t.Errorf("appearing consumer: %v", err)
	}

	// Force: written.
	plan, err = tbl.ResetConsumer(bg, "job", 3, &paimon.ResetOptions{Force: true})
	if err != nil || !plan.Written {
		t.Fatalf("forced: %+v, %v", plan, err)
	}
}

// TestResetExpectPrevious: the value the dry run saw is checked right
// before the write.
func TestResetExpectPrevious(t *testing.T) {
	b, tb := newTable(t, 10, nil)
	tb.Consumer("job", 6)
	wb, rec := blobtest.Wrap(b, nil)
	tbl := openTable(t, wb, tb.Path(), nil)
	for name, o := range map[string]*paimon.ResetOptions{
		"other value": {ExpectPrevious: ptr64(5), Force: true},
		"absent":      {ExpectAbsent: true, Force: true},
	} {
		if _, err := tbl.ResetConsumer(bg, "job", 8, o); !errors.Is(err, paimon.ErrUnexpectedPrevious) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := tbl.ResetConsumer(bg, "new", 8, &paimon.ResetOptions{ExpectPrevious: ptr64(6), Force: true}); !errors.Is(err, paimon.ErrUnexpectedPrevious) || !strings.Contains(err.Error(), "found no consumer file") {
		t.Errorf("expected a file that is not there: %v", err)
	}
	if _, err := tbl.ResetConsumer(bg, "job", 8, &paimon.ResetOptions{ExpectPrevious: ptr64(6), ExpectAbsent: true}); err == nil {
		t.Error("ExpectPrevious with ExpectAbsent accepted")
	}
	if rec.Count(blobtest.OpWrite) != 0 {
		t.Fatalf("%d writes after refusals", rec.Count(blobtest.OpWrite))
	}
	plan, err := tbl.ResetConsumer(bg, "job", 8, &paimon.ResetOptions{ExpectPrevious: ptr64(6), Force: true})
	if err != nil || !plan.Written || *plan.Previous != 6 {
		t.Errorf("matching expectation: %+v, %v", plan, err)
	}
}

// TestResetSnapshotExpiresDuringTheWrite: expiry deletes snapshot-<n>
// between the checks and the write; the reset says so after writing.
func TestResetSnapshotExpiresDuringTheWrite(t *testing.T) {
	b, tb := newTable(t, 10, nil)
	wb, _ := blobtest.Wrap(b, &blobtest.Options{Before: func(ctx context.Context, c blobtest.Call, inner *blob.Bucket) {
		if c.Op == blobtest.OpWrite {
			inner.Delete(ctx, tb.Key("snapshot/snapshot-4"))
		}
	}})
	tbl := openTable(t, wb, tb.Path(), nil)
	plan, err := tbl.ResetConsumer(bg, "job", 4, &paimon.ResetOptions{ExpectAbsent: true})
	if plan == nil || !plan.Written || !errors.Is(err, paimon.ErrSnapshotNotFound) || !strings.Contains(err.Error(), "no longer exists") {
		t.Errorf("plan %+v, %v", plan, err)
	}
}

// TestResetRefusesIDsAbove2To62: a next snapshot or an expected previous
// value above MaxID is refused before any call to the store (it used to be
// looked up as snapshot-9223372036854775807).
func TestResetRefusesIDsAbove2To62(t *testing.T) {
	b, tb := newTable(t, 10, nil)
	tb.Consumer("job", 6)
	wb, rec := blobtest.Wrap(b, nil)
	tbl := openTable(t, wb, tb.Path(), nil)
	rec.Reset()
	for _, c := range []struct {
		next int64
		o    *paimon.ResetOptions
	}{
		{math.MaxInt64, nil},
		{paimon.MaxID + 1, &paimon.ResetOptions{Force: true}},
		{8, &paimon.ResetOptions{ExpectPrevious: ptr64(math.MaxInt64), Force: true}},
		{8, &paimon.ResetOptions{ExpectPrevious: ptr64(0), Force: true}},
	} {
		if _, err := tbl.ResetConsumer(bg, "job", c.next, c.o); err == nil || !strings.Contains(err.Error(), "is not a snapshot id (1 to 2^62)") {
			t.Errorf("next %d, %+v: %v", c.next, c.o, err)
		}
		if c.next > paimon.MaxID {
			if _, err := tbl.PlanResetConsumer(bg, "job", c.next); err == nil {
				t.Errorf("plan to %d accepted", c.next)
			}
		}
	}
	if n := rec.Total(); n != 0 {
		t.Errorf("%d calls to the store (%s), want none", n, rec)
	}
}
