package paimon

import (
	"context"
	"fmt"
	"math"
	"time"
)

// ValidUntil is the Paimon time-to-loss rule for a streaming read that
// continues at snapshot id: Paimon's snapshot expiry deletes a snapshot
// once it is older than snapshot.time-retained (1 h by default) and more
// than snapshot.num-retained.min (10) newer snapshots exist, so the read
// stays possible at least until the snapshot's commit time plus
// snapshot.time-retained (the changelog options when changelogs are
// decoupled from snapshots). The reason says when num-retained.min keeps it
// longer, and when a consumer file pins it (expiry keeps every snapshot a
// consumer has not read, until consumer.expiration-time): then the time is
// unknown (zero). A snapshot not committed yet gives the zero time too.
//
// snapshot.num-retained.max (changelog.num-retained.max) overrides the time
// rule: ExpireSnapshotsImpl keeps at most that many snapshots, so the
// snapshot expires at the commit that makes it more than max behind the
// latest, "after N more commits", however young it is. The time that
// happens is not known; ValidUntil then estimates it from the commit rate
// observed between the snapshot and the latest one (or the earliest
// retained and the latest), and the reason says it is an estimate. When the
// snapshot is already past max (expiry has not run since: it runs at
// commits) the reason says it expires at the next commit.
//
// Cost: the latest hint or listing, the newest schema, one snapshot read
// and one listing of the consumer dir; with num-retained.max set, one more
// snapshot read for the commit rate.
func (t *Table) ValidUntil(ctx context.Context, id int64) (time.Time, string, error) {
	latest, err := t.LatestSnapshotID(ctx)
	if err != nil {
		return time.Time{}, "", err
	}
	if id > latest {
		return time.Time{}, fmt.Sprintf("valid until unknown: paimon %s: snapshot %d is not committed yet (latest %d): it cannot expire before it exists", t.SQLName(), id, latest), nil
	}
	s, err := t.LatestSchema(ctx)
	if err != nil {
		return time.Time{}, "", err
	}
	c := &tableConfig{opts: s.Options, schemaKey: s.Key}
	minKey, maxKey, timeKey := OptSnapshotNumRetainMin, OptSnapshotNumRetainMax, OptSnapshotTimeRetained
	retained, _ := c.durationOption(OptSnapshotTimeRetained, defaultSnapshotTimeRetained)
	minimum, _ := c.intOption(OptSnapshotNumRetainMin, defaultSnapshotNumRetainMin)
	maximum, _ := c.intOption(OptSnapshotNumRetainMax, defaultSnapshotNumRetainMax)
	if dec, _, ok := c.lifecycle(); ok && dec {
		minKey, maxKey, timeKey = OptChangelogNumRetainMin, OptChangelogNumRetainMax, OptChangelogTimeRetained
		retained, _ = c.durationOption(OptChangelogTimeRetained, retained)
		minimum, _ = c.intOption(OptChangelogNumRetainMin, minimum)
		maximum, _ = c.intOption(OptChangelogNumRetainMax, maximum)
	}
	consumers, err := t.Consumers(ctx)
	if err != nil {
		return time.Time{}, "", err
	}
	for _, cs := range consumers {
		if cs.NextSnapshot <= id {
			return time.Time{}, fmt.Sprintf("valid until unknown: paimon %s: consumer %s (next snapshot %d) pins snapshot %d: expiry keeps every snapshot a consumer has not read (until consumer.expiration-time, when set)",
				t.SQLName(), cs.ID, cs.NextSnapshot, id), nil
		}
	}
	snap, err := t.Snapshot(ctx, id)
	if err != nil {
		return time.Time{}, "", err
	}
	until := snap.Time.Add(retained).UTC()
	why := fmt.Sprintf("valid until %s: paimon %s: snapshot %d was committed at %s, and %s is %s",
		until.Format(time.RFC3339), t.SQLName(), id, snap.Time.UTC().Format(time.RFC3339), timeKey, fmtRetention(retained))
	newer := latest - id
	if newer < minimum {
		why += fmt.Sprintf("; %s %d keeps it longer, until %d more snapshots are committed (%d newer now)", minKey, minimum, minimum-newer, newer)
	}
	if maximum <= 0 || maximum >= defaultSnapshotNumRetainMax {
		return until, why, nil
	}
	// Expiry keeps the newest max snapshots: id goes at the commit of
	// id+max, n commits from now.
	n := id + maximum - latest
	if n <= 0 {
		return snap.Time.UTC(), fmt.Sprintf("valid until the next commit: paimon %s: %s is %d and snapshot %d is %d behind the latest (%d): the next commit's expiry deletes it (expiry runs at commits)",
			t.SQLName(), maxKey, maximum, id, newer, latest), nil
	}
	est, per, ok, err := t.commitEstimate(ctx, snap, latest, n)
	if err != nil {
		return time.Time{}, "", err
	}
	switch {
	case !ok:
		return time.Time{}, fmt.Sprintf("valid until unknown: paimon %s: %s is %d: snapshot %d expires after %d more commits, and no commit rate is observed to tell when (%s)",
			t.SQLName(), maxKey, maximum, id, n, why), nil
	case est.Before(until):
		return est, fmt.Sprintf("valid until about %s (an estimate): paimon %s: %s is %d, so snapshot %d expires after %d more commits whatever its age; at the observed rate of one commit every %s that is %s — sooner if the writer commits faster (the time rule alone: %s)",
			est.Format(time.RFC3339), t.SQLName(), maxKey, maximum, id, n, per, est.Format(time.RFC3339), why), nil
	}
	return until, why + fmt.Sprintf("; %s %d expires it after %d more commits, at the observed rate (one every %s) about %s, an estimate: later than the time rule", maxKey, maximum, n, per, est.Format(time.RFC3339)), nil
}

// commitEstimate estimates when n more commits will have been made after
// the latest: from the commit times of snap and the latest snapshot, or of
// the earliest retained and the latest when snap is the latest. ok is
// false when fewer than two commits with increasing times are seen.
func (t *Table) commitEstimate(ctx context.Context, snap *Snapshot, latest, n int64) (at time.Time, per time.Duration, ok bool, err error) {
	first, last := snap, snap
	if snap.ID < latest {
		if last, err = t.Snapshot(ctx, latest); err != nil {
			return time.Time{}, 0, false, err
		}
	} else if first, err = t.EarliestSnapshot(ctx); err != nil {
		return time.Time{}, 0, false, err
	}
	if last.ID <= first.ID || !last.Time.After(first.Time) {
		return time.Time{}, 0, false, nil
	}
	per = last.Time.Sub(first.Time) / time.Duration(last.ID-first.ID)
	if per <= 0 || per > time.Duration(math.MaxInt64)/time.Duration(n) {
		return time.Time{}, 0, false, nil
	}
	return last.Time.Add(per * time.Duration(n)).UTC(), per, true, nil
}
