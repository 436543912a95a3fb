package livecheck

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// PaimonSinkTable is the table a Paimon sink writes: asked, by Paimon's own
// rule, whether its committer's checkpoints reached it. *paimon.Table
// implements it.
type PaimonSinkTable interface {
	// LatestCommitOf finds the commit user's latest snapshot (Paimon's
	// SnapshotManager.latestSnapshotOfUser): one listing of the snapshot
	// directory, then snapshot files from the latest down.
	LatestCommitOf(ctx context.Context, commitUser string) (*PaimonCommit, error)
	// SQLName is the table's SQL identifier (db.table).
	SQLName() string
}

// PaimonCommitState says whether a Paimon sink's committable reached the
// table.
type PaimonCommitState string

// Paimon commit states.
const (
	// PaimonCommitted: the commit user's latest snapshot has a
	// commitIdentifier at or above the checkpoint id. A restore of the
	// checkpoint skips the committable; a stateless start loses nothing of
	// it.
	PaimonCommitted PaimonCommitState = "committed"
	// PaimonNotCommitted: the commit user's latest snapshot has a lower
	// identifier, or the table has no snapshot at all. Only a restore of
	// the checkpoint commits it (Paimon re-commits restored committables);
	// a stateless start loses its output.
	PaimonNotCommitted PaimonCommitState = "not-committed"
	// PaimonCommitUnknown: no snapshot of the commit user is left among
	// the table's snapshots (expired, or never written), or one vanished
	// while read. Paimon's restore then commits the committable again.
	PaimonCommitUnknown PaimonCommitState = "unknown"
)

// PaimonCommit is a commit user's latest snapshot, as Paimon's
// SnapshotManager.latestSnapshotOfUser finds it: the newest snapshot whose
// commitUser is the user, searched from the latest snapshot down to the
// earliest.
type PaimonCommit struct {
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

// Committed says whether the committable of checkpoint id reached the
// table, by Paimon's rule (FileStoreCommitImpl.filterCommitted): committed
// iff the user's latest snapshot has an identifier ≥ id; not committed when
// it is lower or the table has no snapshot at all (Paimon keeps at least
// one snapshot, so nothing was ever committed); unknown when no snapshot of
// the user is left or one vanished.
func (l *PaimonCommit) Committed(id int64) PaimonCommitState {
	switch {
	case l.Found && l.Identifier >= id:
		return PaimonCommitted
	case l.Found:
		return PaimonNotCommitted
	case l.Vanished == 0 && l.Latest == 0:
		return PaimonNotCommitted
	}
	return PaimonCommitUnknown
}

// Explain says in one sentence what the table shows about checkpoint id.
func (l *PaimonCommit) Explain(id int64) string {
	switch st := l.Committed(id); {
	case l.Found:
		rel := "≥"
		if st == PaimonNotCommitted {
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

// PaimonSinkCheckpoint is one pending checkpoint of a Paimon sink as its
// table answered.
type PaimonSinkCheckpoint struct {
	CheckpointID int64             `json:"checkpoint_id"`
	State        PaimonCommitState `json:"state"`
	Why          string            `json:"why"`
}

// PaimonSinkCheck is what CheckPaimonSink found: the table, its commit
// user's latest snapshot, and each pending checkpoint's state.
type PaimonSinkCheck struct {
	Table       string                 `json:"table"`
	Commit      PaimonCommit           `json:"commit"`
	Checkpoints []PaimonSinkCheckpoint `json:"checkpoints"`
}

// State is the worst of the checkpoints' states: not committed, then
// unknown, then committed.
func (c *PaimonSinkCheck) State() PaimonCommitState {
	st := PaimonCommitted
	for _, p := range c.Checkpoints {
		switch {
		case p.State == PaimonNotCommitted:
			return PaimonNotCommitted
		case p.State == PaimonCommitUnknown:
			st = PaimonCommitUnknown
		}
	}
	return st
}

// CheckPaimonSink asks a Paimon sink's table, once, for the commit user's
// latest snapshot and decides each pending checkpoint of its committer by
// Paimon's rule ([PaimonCommit.Committed]).
func CheckPaimonSink(ctx context.Context, t PaimonSinkTable, commitUser string, ids []int64) (*PaimonSinkCheck, error) {
	lc, err := t.LatestCommitOf(ctx, commitUser)
	if err != nil {
		return nil, fmt.Errorf("paimon sink table %s: commit user %s: %w", t.SQLName(), commitUser, err)
	}
	c := &PaimonSinkCheck{Table: t.SQLName(), Commit: *lc}
	for _, id := range ids {
		c.Checkpoints = append(c.Checkpoints, PaimonSinkCheckpoint{CheckpointID: id, State: lc.Committed(id), Why: lc.Explain(id)})
	}
	return c, nil
}

// MemoPaimonSink wraps t so that each commit user is looked up at most
// once: a restore and a salvage resolver of one chain that share the
// checker set (resumectl's resolve) then cost one snapshot listing of the
// sink table per commit user, not one per resolver. Use one per resolve:
// answers are not refreshed. An error is not kept (the next call asks
// again). Safe for concurrent use.
func MemoPaimonSink(t PaimonSinkTable) PaimonSinkTable {
	if t == nil {
		return nil
	}
	if m, ok := t.(*memoPaimonSink); ok {
		return m
	}
	return &memoPaimonSink{t: t, known: map[string]PaimonCommit{}}
}

type memoPaimonSink struct {
	t     PaimonSinkTable
	mu    sync.Mutex
	known map[string]PaimonCommit
}

func (m *memoPaimonSink) LatestCommitOf(ctx context.Context, commitUser string) (*PaimonCommit, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.known[commitUser]; ok {
		return &c, nil
	}
	c, err := m.t.LatestCommitOf(ctx, commitUser)
	if err != nil {
		return c, err
	}
	m.known[commitUser] = *c
	out := *c
	return &out, nil
}

func (m *memoPaimonSink) SQLName() string { return m.t.SQLName() }

// PaimonSinkTable returns the Paimon sink's table (PaimonSink); nil when
// none is set or c is nil.
func (c *Checkers) PaimonSinkTable() PaimonSinkTable {
	if c == nil {
		return nil
	}
	return c.PaimonSink
}
