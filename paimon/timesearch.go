package paimon

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// StreamingStart is where a streaming read with scan.timestamp-millis starts
// (Paimon's ContinuousFromTimestampStartingScanner): the snapshot after the
// last one committed before the time, or the earliest when all retained
// snapshots are newer.
type StreamingStart struct {
	// Next is the first snapshot the read returns; Latest+1 when every
	// snapshot is older than the time (the read waits for the next commit).
	Next int64
	// Before is the last snapshot committed before the time; nil when every
	// retained snapshot is at or after it.
	Before *Snapshot
	// Earliest is the earliest retained snapshot, as read.
	Earliest *Snapshot
	// Latest is the latest snapshot id.
	Latest int64
}

// timeSearch is the answer of one binary search: the last snapshot whose
// time is before (or at, when inclusive) the time.
type timeSearch struct {
	lastID   int64     // earliest.ID-1 when there is none
	last     *Snapshot // nil when there is none
	earliest *Snapshot
	latest   int64
	cache    map[int64]*Snapshot
}

// searchRestarts bounds how often a search starts again because a snapshot
// it needed expired meanwhile.
const searchRestarts = 3

// search runs a binary search over snapshot ids, assuming commit times do not
// decrease with ids (Paimon's SnapshotManager makes the same assumption). It
// reads the two hints, the earliest snapshot and at most ceil(log2 n)
// snapshots in between.
func (t *Table) search(ctx context.Context, ms int64, inclusive bool) (*timeSearch, error) {
	before := func(s *Snapshot) bool {
		if inclusive {
			return s.TimeMillis <= ms
		}
		return s.TimeMillis < ms
	}
	var lastErr error
	for attempt := 0; attempt < searchRestarts; attempt++ {
		latest, _, err := t.latestID(ctx)
		if err != nil {
			return nil, err
		}
		if attempt > 0 {
			// A snapshot vanished: expiry ran, or the LATEST hint names a
			// snapshot that does not exist. Trust only a listing now.
			_, hi, ok, err := t.listIDs(ctx, t.snapshotDir(), "snapshot-")
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, fmt.Errorf("paimon: no snapshot under %s: %w", t.snapshotDir(), ErrSnapshotNotFound)
			}
			latest = hi
		}
		e, _, err := t.earliestID(ctx)
		if err != nil {
			return nil, err
		}
		first, err := t.snapshotFrom(ctx, e, min(e+earliestSnapshotRetries, latest))
		if err != nil {
			if errors.Is(err, ErrSnapshotNotFound) {
				lastErr = err
				continue
			}
			return nil, err
		}
		res := &timeSearch{earliest: first, latest: latest, lastID: first.ID - 1, cache: map[int64]*Snapshot{first.ID: first}}
		if !before(first) {
			return res, nil
		}
		last, err := bisect(ctx, first, latest, t.Snapshot, before, res.cache)
		if err != nil {
			if errors.Is(err, ErrSnapshotNotFound) {
				lastErr = err // expired meanwhile: start again
				continue
			}
			return nil, err
		}
		res.last = last
		res.lastID = last.ID
		return res, nil
	}
	return nil, wrapf(lastErr, "paimon: time search under %s: snapshots kept vanishing (expiry running?)", t.snapshotDir())
}

// bisect returns the file with the largest id in [first.ID, hi] for which
// before holds, given that it holds for first and that it holds for a prefix
// of the ids (commit times do not decrease). It reads at most
// ceil(log2(hi-first.ID+1)) files and records them in cache.
func bisect(ctx context.Context, first *Snapshot, hi int64, read func(context.Context, int64) (*Snapshot, error), before func(*Snapshot) bool, cache map[int64]*Snapshot) (*Snapshot, error) {
	lo, last := first.ID, first
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		s, err := read(ctx, mid)
		if err != nil {
			return nil, err
		}
		cache[mid] = s
		if before(s) {
			lo, last = mid, s
		} else {
			hi = mid - 1
		}
	}
	return last, nil
}

// changelogStart is where a streaming read from ms starts inside the
// long-lived changelogs [lo, hi] (decoupled changelog, every snapshot at or
// after ms): after the last changelog committed before ms, or at lo. last is
// nil when every changelog is at or after ms.
func (t *Table) changelogStart(ctx context.Context, ms, lo, hi int64) (first, last *Snapshot, err error) {
	first, err = t.Changelog(ctx, lo)
	if err != nil {
		return nil, nil, err
	}
	before := func(s *Snapshot) bool { return s.TimeMillis < ms }
	if !before(first) {
		return first, nil, nil
	}
	last, err = bisect(ctx, first, hi, t.Changelog, before, map[int64]*Snapshot{})
	return first, last, err
}

// EarlierOrEqual returns the last snapshot committed at or before at
// (Paimon's earlierOrEqualTimeMills). When every retained snapshot is newer
// the error wraps ErrSnapshotNotFound.
func (t *Table) EarlierOrEqual(ctx context.Context, at time.Time) (*Snapshot, error) {
	res, err := t.search(ctx, at.UnixMilli(), true)
	if err != nil {
		return nil, err
	}
	if res.last == nil {
		return nil, fmt.Errorf("paimon: no snapshot at or before %s under %s (earliest snapshot-%d is at %s): %w",
			fmtTime(at), t.snapshotDir(), res.earliest.ID, fmtTime(res.earliest.Time), ErrSnapshotNotFound)
	}
	return res.last, nil
}

// LaterOrEqual returns the first snapshot committed at or after at (Paimon's
// laterOrEqualTimeMills). When every snapshot is older the error wraps
// ErrSnapshotNotFound.
func (t *Table) LaterOrEqual(ctx context.Context, at time.Time) (*Snapshot, error) {
	res, err := t.search(ctx, at.UnixMilli(), false)
	if err != nil {
		return nil, err
	}
	next := res.lastID + 1
	if next > res.latest {
		return nil, fmt.Errorf("paimon: no snapshot at or after %s under %s (latest is snapshot-%d): %w",
			fmtTime(at), t.snapshotDir(), res.latest, ErrSnapshotNotFound)
	}
	if s, ok := res.cache[next]; ok {
		return s, nil
	}
	return t.Snapshot(ctx, next)
}

// StreamingStartAt returns where a streaming read with
// scan.timestamp-millis=at starts: the snapshot after the last one committed
// strictly before at, the earliest when all are newer, Latest+1 when all are
// older.
func (t *Table) StreamingStartAt(ctx context.Context, at time.Time) (*StreamingStart, error) {
	res, err := t.search(ctx, at.UnixMilli(), false)
	if err != nil {
		return nil, err
	}
	return &StreamingStart{Next: res.lastID + 1, Before: res.last, Earliest: res.earliest, Latest: res.latest}, nil
}

func fmtTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }
