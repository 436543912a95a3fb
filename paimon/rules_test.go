package paimon_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
)

// TestConsumerAtTheEarliestKeptChangelog: with decoupled changelogs the
// read continues below the earliest snapshot from long-lived changelogs.
// Snapshots below 8 expired, changelogs below 4 too: a consumer at 4 (the
// earliest kept changelog) reads everything it had not read (replay: the
// old job may have read on past it, but nothing is lost);
// a consumer at 3 lost snapshot 3 (data loss, moved up to 4). Both sides of
// the boundary, so "n < earliest changelog" cannot become "<=" or be
// dropped unnoticed.
func TestConsumerAtTheEarliestKeptChangelog(t *testing.T) {
	for _, tc := range []struct {
		next     int64
		want     resume.Guarantee
		wantNext int64
	}{
		{4, resume.Replay, 4},
		{3, resume.DataLoss, 4},
		{5, resume.Replay, 5},
	} {
		b, tb := newTable(t, 10, nil)
		tb.Consumer("job", tc.next).ExpireKeepChangelog(8).ExpireChangelogBefore(4)
		r, err := paimon.NewResolver(openTable(t, b, tb.Path(), nil), "job", &paimon.Options{TableOptions: decoupled})
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(bg)
		if err != nil {
			t.Fatalf("consumer at %d: %v", tc.next, err)
		}
		p, err := paimon.PositionOf(c.Position)
		if err != nil {
			t.Fatal(err)
		}
		if c.Guarantee != tc.want || p.NextSnapshot != tc.wantNext || p.EarliestChangelog != 4 && tc.next < 8 {
			t.Errorf("consumer at %d: %s next %d earliest changelog %d, want %s next %d\nreasons %q\nwarnings %q",
				tc.next, c.Guarantee, p.NextSnapshot, p.EarliestChangelog, tc.want, tc.wantNext, c.Reasons, c.Warnings)
		}
		if lost := c.HasWarning(paimon.WarnExpiredBeforeRead); lost != (tc.want == resume.DataLoss) {
			t.Errorf("consumer at %d: expired-before-read warning %v; warnings %q", tc.next, lost, c.Warnings)
		}
	}
}

// TestResetRefusesAConsumerWhoseOnlyChangeIsItsTime: an idle running job
// rewrites its consumer file with the same nextSnapshot on every
// checkpoint, so the only change an observation sees is the modification
// time. On a plain memblob bucket (which stamps each write with the
// machine's clock; the other tests' bucket pins every write's time and
// cannot show this) a rewrite of the same bytes during the observation is
// refused as a live job, and nothing is written; without the rewrite the
// same reset goes through.
func TestResetRefusesAConsumerWhoseOnlyChangeIsItsTime(t *testing.T) {
	ctx := context.Background()
	mem := memblob.OpenBucket(nil)
	defer mem.Close()
	tb := paimontest.New(t, mem, "wh/default.db/t")
	tb.CommitEvery(10, t0, time.Minute).Consumer("job", 6)
	key := tb.Key("consumer/consumer-job")
	content, err := mem.ReadAll(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	rewrites := 0
	rewrite := func(ctx context.Context, _ time.Duration) error {
		// The running job's checkpoint: the same bytes, written again. The
		// machine's clock moves on between two writes; loop (bounded) until
		// memblob stamped a different time, so the test does not depend on
		// the clock's resolution.
		before, err := mem.Attributes(ctx, key)
		if err != nil {
			return err
		}
		for i := 0; i < 1000; i++ {
			if err := mem.WriteAll(ctx, key, content, nil); err != nil {
				return err
			}
			rewrites++
			after, err := mem.Attributes(ctx, key)
			if err != nil {
				return err
			}
			if !after.ModTime.Equal(before.ModTime) {
				return nil
			}
		}
		return errors.New("memblob stamped 1000 writes with the same time")
	}
	// Now is an hour on: the file is outside the quiet period, so only the
	// observation can see the job.
	later := func() time.Time { return time.Now().Add(time.Hour) }
	tbl, err := paimon.NewTable(mem, tb.Path(), &paimon.TableOptions{Now: later, Wait: rewrite, ConsumerRetryInterval: -1, HintRetryInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tbl.ResetConsumer(ctx, "job", 8, &paimon.ResetOptions{Observe: time.Second})
	if !errors.Is(err, paimon.ErrConsumerActive) || rewrites == 0 {
		t.Fatalf("reset of a consumer rewritten during the observation: err %v (rewrites %d), want ErrConsumerActive", err, rewrites)
	}
	if got := err.Error(); !strings.Contains(got, "its modification time changed") {
		t.Errorf("error %q does not say what changed", got)
	}
	if data, err := mem.ReadAll(ctx, key); err != nil || string(data) != string(content) {
		t.Errorf("consumer file %q after the refused reset, want %q unchanged (%v)", data, content, err)
	}

	idle, err := paimon.NewTable(mem, tb.Path(), &paimon.TableOptions{Now: later, Wait: noWait, ConsumerRetryInterval: -1, HintRetryInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := idle.ResetConsumer(ctx, "job", 8, &paimon.ResetOptions{Observe: time.Second}); err != nil {
		t.Fatalf("idle consumer: %v", err)
	}
	if n, err := tbl.Consumer(ctx, "job"); err != nil || n.NextSnapshot != 8 {
		t.Errorf("after the reset: %+v %v", n, err)
	}
}

// TestConsumerExpirationBoundaries: Paimon's expiry deletes a consumer
// whose file is older than consumer.expiration-time (ConsumerManager:
// modification time before now − expiration), so idle exactly that long
// is still kept: "close to", not "expired"; one millisecond more is
// expired. Idle from 4/5 of the time on is "close to"; below, neither.
func TestConsumerExpirationBoundaries(t *testing.T) {
	for _, tc := range []struct {
		idle              time.Duration
		expired, expiring bool
	}{
		{time.Hour + time.Millisecond, true, false},
		{time.Hour, false, true},
		{48 * time.Minute, false, true},
		{48*time.Minute - time.Millisecond, false, false},
		{10 * time.Minute, false, false},
	} {
		b, tb := newTable(t, 10, nil)
		tb.Schema(map[string]string{"consumer.expiration-time": "1 h"}).Commit(at(11)).Consumer("job", 7)
		now := func() time.Time { return tNow.Add(tc.idle) }
		r, err := paimon.NewResolver(openTable(t, b, tb.Path(), nil), "job", &paimon.Options{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(bg)
		if err != nil {
			t.Fatal(err)
		}
		if c.HasWarning(paimon.WarnConsumerExpired) != tc.expired || c.HasWarning(paimon.WarnConsumerExpiring) != tc.expiring {
			t.Errorf("idle %s of 1 h: warnings %q, want expired %v, expiring %v", tc.idle, c.Warnings, tc.expired, tc.expiring)
		}
	}
}

// TestBindConsumerWarningAtTheEnds: a start by time without a consumer
// file asks to bind the consumer first whenever the start is a snapshot
// that exists, also the earliest (1) and the latest (10) — never the
// "only a long-lived changelog" warning for the earliest snapshot — and
// not for the next commit (11), which expiry cannot delete.
func TestBindConsumerWarningAtTheEnds(t *testing.T) {
	for _, tc := range []struct {
		start time.Time
		next  int64
		bind  bool
	}{
		{at(1).Add(-time.Hour), 1, true},
		{at(10), 10, true},
		{at(20), 11, false},
	} {
		b, tb := newTable(t, 10, nil)
		r, err := paimon.NewResolver(openTable(t, b, tb.Path(), nil), "job", &paimon.Options{StartTime: tc.start})
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(bg)
		if err != nil {
			t.Fatal(err)
		}
		p, err := paimon.PositionOf(c.Position)
		if err != nil || p.NextSnapshot != tc.next {
			t.Fatalf("start %s: next %d, want %d (%v)", tc.start, p.NextSnapshot, tc.next, err)
		}
		if c.HasWarning(paimon.WarnBindConsumerFirst) != tc.bind || c.HasWarning(paimon.WarnChangelogOnlyStart) {
			t.Errorf("start at %d: warnings %q, want bind %v and no changelog-only start", tc.next, c.Warnings, tc.bind)
		}
	}
}
