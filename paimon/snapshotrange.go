package paimon

import "context"

// SnapshotRange returns the earliest id a streaming read of the table can
// still start from — the earliest snapshot, or an earlier long-lived
// changelog when changelogs are decoupled — and the latest snapshot id. It
// fails with an error wrapping ErrSnapshotNotFound when the table has no
// snapshot.
//
// It is the live check of salvaged Paimon positions: *Table implements the
// PaimonTable interface of package flinkckpt/salvage with it and SQLName.
func (t *Table) SnapshotRange(ctx context.Context) (earliest, latest int64, err error) {
	latest, err = t.LatestSnapshotID(ctx)
	if err != nil {
		return 0, 0, err
	}
	first, err := t.EarliestSnapshotID(ctx)
	if err != nil {
		return 0, 0, err
	}
	rd, err := t.earliestReadable(ctx, first)
	if err != nil {
		return 0, 0, err
	}
	return rd.id, latest, nil
}
