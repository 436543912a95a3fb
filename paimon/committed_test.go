package paimon_test

import (
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

const sinkUser = "d9f3c0a2-5b61-4c1e-8f7a-2e4b6c8d0a13"

// TestLatestCommitOf: a Flink sink's committer (commit user sinkUser)
// committed checkpoints 3 and 4, then other writers (a compaction job, a
// batch insert) committed after it. Checkpoint 4 and below are committed;
// 5 (held by a checkpoint whose notification never reached the committer)
// is not — Paimon's own rule (FileStoreCommitImpl.filterCommitted). One
// listing of the snapshot directory, and the snapshot files read from the
// latest down to the user's.
func TestLatestCommitOf(t *testing.T) {
	b := memBucket(t)
	tb := paimontest.New(t, b, "wh/db.db/sink")
	tb.CommitEvery(2, t0, time.Minute) // another user's snapshots 1, 2
	tb.SinkCommit(sinkUser, 3, at(3)).SinkCommit(sinkUser, 4, at(4))
	tb.Commit(at(5), at(6)) // snapshots 5, 6 by the default user
	wb, rec := blobtest.Wrap(b, nil)
	t.Cleanup(func() { wb.Close() })
	tbl := openTable(t, wb, tb.Path(), nil)
	lc, err := tbl.LatestCommitOf(bg, sinkUser)
	if err != nil {
		t.Fatal(err)
	}
	if !lc.Found || lc.SnapshotID != 4 || lc.Identifier != 4 || lc.Earliest != 1 || lc.Latest != 6 || lc.Read != 3 {
		t.Fatalf("latest commit %+v", lc)
	}
	for id, want := range map[int64]livecheck.PaimonCommitState{3: livecheck.PaimonCommitted, 4: livecheck.PaimonCommitted, 5: livecheck.PaimonNotCommitted, 9: livecheck.PaimonNotCommitted} {
		if got := lc.Committed(id); got != want {
			t.Errorf("checkpoint %d: %s, want %s (%s)", id, got, want, lc.Explain(id))
		}
	}
	if e := lc.Explain(5); !strings.Contains(e, "latest snapshot 4 has commitIdentifier 4 < checkpoint 5: not-committed") {
		t.Errorf("explain %q", e)
	}
	if n := rec.Count(blobtest.OpList); n != 1 {
		t.Errorf("%d listings, want 1 (%s)", n, rec)
	}
	if n := rec.Count(blobtest.OpRead); n != 3 {
		t.Errorf("%d reads, want 3 (%s)", n, rec)
	}
}

// TestLatestCommitOfNotCommitted: the committer restored with checkpoint
// 7's committable while the table's newest snapshot of its user is 6's.
func TestLatestCommitOfNotCommitted(t *testing.T) {
	b := memBucket(t)
	tb := paimontest.New(t, b, "wh/db.db/sink")
	tb.SinkCommit(sinkUser, 5, at(1)).SinkCommit(sinkUser, 6, at(2))
	lc, err := openTable(t, b, tb.Path(), nil).LatestCommitOf(bg, sinkUser)
	if err != nil {
		t.Fatal(err)
	}
	if got := lc.Committed(7); got != livecheck.PaimonNotCommitted || lc.Read != 1 {
		t.Fatalf("%s after %d reads: %s", got, lc.Read, lc.Explain(7))
	}
	if got := lc.Committed(6); got != livecheck.PaimonCommitted {
		t.Fatalf("checkpoint 6: %s", got)
	}
}

// TestLatestCommitOfUnknown: no snapshot of the user is left (its
// snapshots expired under later writers'): unknown, never committed or
// not; a table without any snapshot never saw a commit (not committed);
// a snapshot gone while read stops the search (unknown).
func TestLatestCommitOfUnknown(t *testing.T) {
	t.Run("expired", func(t *testing.T) {
		b := memBucket(t)
		tb := paimontest.New(t, b, "wh/db.db/sink")
		tb.SinkCommit(sinkUser, 5, at(1)).Commit(at(2), at(3)).ExpireBefore(2)
		lc, err := openTable(t, b, tb.Path(), nil).LatestCommitOf(bg, sinkUser)
		if err != nil {
			t.Fatal(err)
		}
		if got := lc.Committed(5); got != livecheck.PaimonCommitUnknown || lc.Found || lc.Read != 2 {
			t.Fatalf("%s: %+v", got, lc)
		}
		if e := lc.Explain(5); !strings.Contains(e, "no snapshot of commit user "+sinkUser+" among snapshots 2..3") {
			t.Errorf("explain %q", e)
		}
	})
	t.Run("empty table", func(t *testing.T) {
		b := memBucket(t)
		tb := paimontest.New(t, b, "wh/db.db/sink").Schema(nil)
		lc, err := openTable(t, b, tb.Path(), nil).LatestCommitOf(bg, sinkUser)
		if err != nil {
			t.Fatal(err)
		}
		if got := lc.Committed(1); got != livecheck.PaimonNotCommitted {
			t.Fatalf("%s: %+v", got, lc)
		}
	})
	t.Run("vanished", func(t *testing.T) {
		b := memBucket(t)
		tb := paimontest.New(t, b, "wh/db.db/sink")
		tb.SinkCommit(sinkUser, 5, at(1)).Commit(at(2), at(3))
		wb, _ := blobtest.Wrap(b, &blobtest.Options{After: func(c blobtest.Call, _ error) {
			if c.Op == blobtest.OpList {
				tb.DeleteFile("snapshot/snapshot-2") // expiry ran after the listing
			}
		}})
		t.Cleanup(func() { wb.Close() })
		lc, err := openTable(t, wb, tb.Path(), nil).LatestCommitOf(bg, sinkUser)
		if err != nil {
			t.Fatal(err)
		}
		if got := lc.Committed(5); got != livecheck.PaimonCommitUnknown || lc.Vanished != 2 {
			t.Fatalf("%s: %+v", got, lc)
		}
	})
}

// TestLatestCommitOfBadSnapshot: a snapshot file that is no snapshot is an
// error naming it, never a guess.
func TestLatestCommitOfBadSnapshot(t *testing.T) {
	b := memBucket(t)
	tb := paimontest.New(t, b, "wh/db.db/sink")
	tb.SinkCommit(sinkUser, 5, at(1)).Commit(at(2))
	tb.WriteFile("snapshot/snapshot-2", []byte("{not json"))
	_, err := openTable(t, b, tb.Path(), nil).LatestCommitOf(bg, sinkUser)
	if err == nil || !strings.Contains(err.Error(), "snapshot-2") {
		t.Fatalf("err %v", err)
	}
}

var _ livecheck.PaimonSinkTable = (*paimon.Table)(nil)

// TestLatestCommitOfRealPaimon: a table real Paimon 1.3.1 wrote from a
// Flink 1.20.3 SQL sink (testdata/paimon-sink-table: its snapshot and
// schema files; the job's checkpoints are sinkstate's
// testdata/paimon-sink). The sink's commit user committed checkpoints 1
// and 2: checkpoint 2's committable (held by chk-2) is committed; with
// snapshot 2 gone — the table as it was before chk-2's notification
// reached the committer — it is not, and checkpoint 1's still is.
func TestLatestCommitOfRealPaimon(t *testing.T) {
	const user = "19a5cdb2-82ab-404c-b508-0a6406ae6e4b"
	b := openLocalBucket(t, "testdata/paimon-sink-table")
	lc, err := openTable(t, b, "db.db/sink", nil).LatestCommitOf(bg, user)
	if err != nil {
		t.Fatal(err)
	}
	if lc.Committed(2) != livecheck.PaimonCommitted || lc.SnapshotID != 2 || lc.Identifier != 2 || lc.Read != 1 {
		t.Fatalf("%+v: %s", lc, lc.Explain(2))
	}
	mem := memBucket(t)
	for _, k := range []string{"snapshot/snapshot-1", "schema/schema-0"} {
		data, err := b.ReadAll(bg, "db.db/sink/"+k)
		if err != nil {
			t.Fatal(err)
		}
		if err := mem.WriteAll(bg, "db.db/sink/"+k, data, nil); err != nil {
			t.Fatal(err)
		}
	}
	lc, err = openTable(t, mem, "db.db/sink", nil).LatestCommitOf(bg, user)
	if err != nil {
		t.Fatal(err)
	}
	if lc.Committed(2) != livecheck.PaimonNotCommitted || lc.Committed(1) != livecheck.PaimonCommitted {
		t.Fatalf("%+v: %s", lc, lc.Explain(2))
	}
}
