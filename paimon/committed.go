package paimon

import (
	"context"
	"errors"
	"fmt"

	"github.com/resumekit/resumekit/resume/livecheck"
)

// LatestCommitOf finds the commit user's latest snapshot: one listing of
// the snapshot directory, then the snapshot files from the latest down
// until one is the user's. It is the question Paimon's committer asks when
// it restores (FileStoreCommitImpl.filterCommitted): a committable of
// checkpoint N was committed iff the user's latest snapshot has
// commitIdentifier ≥ N ([livecheck.PaimonCommit.Committed]). *Table is a
// [livecheck.PaimonSinkTable] with it. A snapshot file that
// cannot be read or parsed is an error; one gone between the listing and
// the read stops the search (Vanished).
func (t *Table) LatestCommitOf(ctx context.Context, commitUser string) (*livecheck.PaimonCommit, error) {
	if commitUser == "" {
		return nil, fmt.Errorf("paimon: %s: no commit user to look for", t)
	}
	lc := &livecheck.PaimonCommit{CommitUser: commitUser}
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
