package livecheck_test

import (
	"context"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// TestMemoPaimonSink: the restore and the salvage of one resolve ask the
// Paimon sink's table through one MemoPaimonSink: one listing of its
// snapshots per commit user, the same answer each time; another user is
// searched once more. Wrapping twice does not nest.
func TestMemoPaimonSink(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	t.Cleanup(func() { b.Close() })
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	paimontest.New(t, b, "wh/db.db/sink").SinkCommit("u1", 7, t0).SinkCommit("u2", 3, t0.Add(time.Minute))
	wb, rec := blobtest.Wrap(b, nil)
	t.Cleanup(func() { wb.Close() })
	tbl, err := paimon.NewTable(wb, "wh/db.db/sink", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := livecheck.MemoPaimonSink(tbl)
	if livecheck.MemoPaimonSink(m) != m || livecheck.MemoPaimonSink(nil) != nil {
		t.Fatal("MemoPaimonSink wraps a memo again, or nil into a value")
	}
	for i := 0; i < 3; i++ {
		c, err := m.LatestCommitOf(ctx, "u1")
		if err != nil || !c.Found || c.Identifier != 7 {
			t.Fatalf("u1: %+v %v", c, err)
		}
	}
	if n := rec.Count(blobtest.OpList); n != 1 {
		t.Errorf("three searches of u1 cost %d listings, want 1", n)
	}
	if c, err := m.LatestCommitOf(ctx, "u2"); err != nil || c.Identifier != 3 {
		t.Fatalf("u2: %+v %v", c, err)
	}
	if n := rec.Count(blobtest.OpList); n != 2 {
		t.Errorf("another user: %d listings, want 2", n)
	}
	if m.SQLName() != tbl.SQLName() {
		t.Errorf("SQLName %q, want %q", m.SQLName(), tbl.SQLName())
	}
	var c *livecheck.Checkers
	if c.PaimonSinkTable() != nil {
		t.Error("a nil Checkers has a Paimon sink table")
	}
}
