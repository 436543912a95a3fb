package paimon

import (
	"context"
)

// EarliestChangelogID returns the earliest decoupled (long-lived) changelog
// id under changelog/, found like snapshot ids: the EARLIEST hint when
// changelog-<hint> exists, else a listing. ok is false when the table keeps
// no decoupled changelogs (changelog.num-retained / changelog.time-retained
// not longer than the snapshot retention, or nothing expired yet).
//
// When snapshots expire but changelogs are kept longer, Paimon writes
// changelog-<id> for the expired ids, and a streaming read below the earliest
// snapshot reads those instead: only ids below the earliest changelog are
// lost.
func (t *Table) EarliestChangelogID(ctx context.Context) (id int64, ok bool, err error) {
	id, ok, _, err = t.findEarliest(ctx, t.changelogDir(), "changelog-")
	return id, ok, err
}

// LatestChangelogID returns the latest decoupled changelog id (see
// EarliestChangelogID).
func (t *Table) LatestChangelogID(ctx context.Context) (id int64, ok bool, err error) {
	id, ok, _, err = t.findLatest(ctx, t.changelogDir(), "changelog-")
	return id, ok, err
}

// readable is the earliest id a streaming read can still start from: the
// earliest snapshot, or an earlier long-lived changelog.
type readable struct {
	id        int64
	changelog bool // id is a changelog id below the earliest snapshot
}

func (t *Table) earliestReadable(ctx context.Context, earliestSnapshot int64) (readable, error) {
	c, ok, err := t.EarliestChangelogID(ctx)
	if err != nil {
		return readable{}, err
	}
	if ok && c < earliestSnapshot {
		return readable{id: c, changelog: true}, nil
	}
	return readable{id: earliestSnapshot}, nil
}
