package paimon

import (
	"context"
	"errors"
	"fmt"
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

// readableFrom is the lowest id a streaming read can still start from, as
// the table's options decide it (ContinuousFromSnapshotStartingScanner):
// the earliest long-lived changelog when Paimon reads them, else the
// earliest snapshot. Only then is changelog/ looked at: when it holds
// changelogs that the options say are not read, a WarnChangelogIgnored
// warning says so. Called only where the answer matters (a start below the
// earliest snapshot).
func (x *resolution) readableFrom(ctx context.Context, cfg tableConfig, earliest int64) (readable, error) {
	if cfg.readsChangelog {
		rd, err := x.t.earliestReadable(ctx, earliest)
		if err != nil {
			return readable{}, err
		}
		x.reason("changelogs are decoupled (%s): a read below snapshot-%d continues from long-lived changelogs", cfg.decoupledWhy, earliest)
		if rd.changelog && cfg.versionDependent {
			x.warn(WarnVersionAssumed, "graded as Paimon 0.9 and later read the table: the start relies on long-lived changelogs below snapshot-%d, and %s is none, for which Paimon 0.8 does not read them and would start at snapshot-%d, skipping every id below it; declare the version the job runs (Options.PaimonVersion, resumectl --paimon-version)",
				earliest, OptChangelogProducer, earliest)
		}
		return rd, nil
	}
	x.reason("changelogs are not decoupled (%s): Paimon reads snapshots only, from snapshot-%d", cfg.decoupledWhy, earliest)
	c, ok, err := x.t.EarliestChangelogID(ctx)
	if err != nil {
		return readable{}, err
	}
	if ok && c < earliest {
		x.warn(WarnChangelogIgnored, "%s holds long-lived changelogs from changelog-%d, but the table's options say Paimon does not read them (%s): a streaming read starts at snapshot-%d, not at changelog-%d (the options changed after they were written, or the options given are not the job's)",
			x.t.changelogDir(), c, cfg.decoupledWhy, earliest, c)
	}
	return readable{id: earliest}, nil
}

// readAny reads id as a snapshot, or below the earliest snapshot as a
// long-lived changelog; a snapshot that expired meanwhile is looked for as
// a changelog too when the read uses them.
func (x *resolution) readAny(ctx context.Context, id, earliest int64, changelogs bool) (*Snapshot, error) {
	if id >= earliest {
		s, err := x.snapshot(ctx, id)
		if err == nil || !errors.Is(err, ErrSnapshotNotFound) || !changelogs {
			return s, err
		}
	}
	if !changelogs {
		return nil, fmt.Errorf("paimon: %s does not exist: %w", x.t.snapshotKey(id), ErrSnapshotNotFound)
	}
	if s, ok := x.changelogs[id]; ok {
		return s, nil
	}
	s, err := x.t.Changelog(ctx, id)
	if err != nil {
		return nil, err
	}
	x.changelogs[id] = s
	return s, nil
}
