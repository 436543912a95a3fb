package paimon

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// CommitState says whether a Flink sink's committable reached the table.
type CommitState string

// Commit states.
const (
	// Committed: the commit user's latest snapshot has a commitIdentifier
	// at or above the checkpoint id. A restore of the checkpoint skips the
	// committable; a stateless start loses nothing of it.
	Committed CommitState = "committed"
	// NotCommitted: the commit user's latest snapshot has a lower
	// identifier, or the table has no snapshot at all. Only a restore of
	// the checkpoint commits it (Paimon re-commits restored committables);
	// a stateless start loses its output.
	NotCommitted CommitState = "not-committed"
	// CommitUnknown: no snapshot of the commit user is left among the
	// table's snapshots (expired, or never written), or one vanished while
	// read. Paimon's restore then commits the committable again.
	CommitUnknown CommitState = "unknown"
)

// LatestCommit is a commit user's latest snapshot, as Paimon's
// SnapshotManager.latestSnapshotOfUser finds it: the newest snapshot whose
// commitUser is the user, searched from the latest snapshot down to the
// earliest.
type LatestCommit struct {
	// CommitUser is the user searched for.
	CommitUser string `json:"commit_user"`
	// Found: a snapshot of the user is among the table's snapshots.
	Found bool `json:"found"`
	// SnapshotID, Identifier and Time are that snapshot's id,
	// commitIdentifier and commit time.
	SnapshotID int64     `json:"snapshot_id,omitempty"`
	Identifier int64     `json:"commit_identifier,omitempty"`
	Time       time.Time `json:"time,omitzero"`
	// Earliest and Latest are the snapshot ids the listing found (0, 0 for
	// a table without snapshots).
	Earliest int64 `json:"earliest,omitempty"`
	Latest   int64 `json:"latest,omitempty"`
	// Read counts the snapshot files read.
	Read int `json:"read"`
	// Vanished is set when a snapshot listed was gone when read (expiry
	// running): the search stopped there, as Paimon's does.
	Vanished int64 `json:"vanished,omitempty"`
}

// LatestCommitOf finds the commit user's latest snapshot: one listing of
// the snapshot directory, then the snapshot files from the latest down
// until one is the user's. It is the question Paimon's committer asks when
// it restores (FileStoreCommitImpl.filterCommitted): a committable of
// checkpoint N was committed iff the user's latest snapshot has
// commitIdentifier ≥ N ([LatestCommit.Committed]). A snapshot file that
// cannot be read or parsed is an error; one gone between the listing and
// the read stops the search (Vanished).
func (t *Table) LatestCommitOf(ctx context.Context, commitUser string) (*LatestCommit, error) {
	if commitUser == "" {
		return nil, fmt.Errorf("paimon: %s: no commit user to look for", t)
	}
	lc := &LatestCommit{CommitUser: commitUser}
	lo, hi, ok, err := t.listIDs(ctx, t.snapshotDir(), "snapshot-")
	if err != nil || !ok {
		return lc, err
	}
	lc.Earliest, lc.Latest = lo, hi
	for id := hi; id >= lo; id-- {
		s, err := t.Snapshot(ctx, id)
		lc.Read++
		if errors.Is(err, ErrSnapshotNotFound) {
			lc.Vanished = id
			return lc, nil
		}
		if err != nil {
			return lc, err
		}
		if s.CommitUser == commitUser {
			lc.Found, lc.SnapshotID, lc.Identifier, lc.Time = true, s.ID, s.CommitIdentifier, s.Time
			return lc, nil
		}
	}
	return lc, nil
}

// Committed says whether the committable of checkpoint id reached the
// table, by Paimon's rule: committed iff the user's latest snapshot has an
// identifier ≥ id; not committed when it is lower or the table has no
// snapshot at all (Paimon keeps at least one snapshot, so nothing was ever
// committed); unknown when no snapshot of the user is left or one vanished.
func (l *LatestCommit) Committed(id int64) CommitState {
	switch {
	case l.Found && l.Identifier >= id:
		return Committed
	case l.Found:
		return NotCommitted
	case l.Vanished == 0 && l.Latest == 0:
		return NotCommitted
	}
	return CommitUnknown
}

// Explain says in one sentence what the table shows about checkpoint id.
func (l *LatestCommit) Explain(id int64) string {
	switch st := l.Committed(id); {
	case l.Found:
		rel := "≥"
		if st == NotCommitted {
			rel = "<"
		}
		return fmt.Sprintf("commit user %s's latest snapshot %d has commitIdentifier %d %s checkpoint %d: %s", l.CommitUser, l.SnapshotID, l.Identifier, rel, id, st)
	case l.Vanished != 0:
		return fmt.Sprintf("snapshot %d vanished while the table was searched for commit user %s (expiry running): whether checkpoint %d was committed is unknown", l.Vanished, l.CommitUser, id)
	case l.Latest == 0:
		return fmt.Sprintf("the table has no snapshot: commit user %s never committed checkpoint %d: %s", l.CommitUser, id, st)
	default:
		return fmt.Sprintf("no snapshot of commit user %s among snapshots %d..%d (expired, or never written): whether checkpoint %d was committed is unknown", l.CommitUser, l.Earliest, l.Latest, id)
	}
}
