package paimon

import (
	"context"
	"fmt"
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
// Cost: the latest hint or listing, the newest schema, one snapshot read
// and one listing of the consumer dir.
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
	minKey, timeKey := OptSnapshotNumRetainMin, OptSnapshotTimeRetained
	retained, _ := c.durationOption(OptSnapshotTimeRetained, defaultSnapshotTimeRetained)
	minimum, _ := c.intOption(OptSnapshotNumRetainMin, defaultSnapshotNumRetainMin)
	if dec, _, ok := c.lifecycle(); ok && dec {
		minKey, timeKey = OptChangelogNumRetainMin, OptChangelogTimeRetained
		retained, _ = c.durationOption(OptChangelogTimeRetained, retained)
		minimum, _ = c.intOption(OptChangelogNumRetainMin, minimum)
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
	if newer := latest - id; newer < minimum {
		why += fmt.Sprintf("; %s %d keeps it longer, until %d more snapshots are committed (%d newer now)", minKey, minimum, minimum-newer, newer)
	}
	return until, why, nil
}
