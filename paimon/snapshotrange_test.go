package paimon_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
)

// SnapshotRange is what a streaming read can still start from: the
// earliest snapshot, or an earlier long-lived changelog.
func TestSnapshotRange(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	tb := paimontest.New(t, b, "wh/db.db/a").Schema(nil).CommitEvery(30, start, time.Minute).ExpireBefore(10)
	table, _ := paimon.NewTable(b, tb.Path(), nil)
	if e, l, err := table.SnapshotRange(ctx); err != nil || e != 10 || l != 30 {
		t.Errorf("plain: %d..%d %v, want 10..30", e, l, err)
	}
	tb2 := paimontest.New(t, b, "wh/db.db/b").Schema(nil).CommitEvery(30, start, time.Minute).ExpireKeepChangelog(10)
	table2, _ := paimon.NewTable(b, tb2.Path(), nil)
	if e, l, err := table2.SnapshotRange(ctx); err != nil || e != 1 || l != 30 {
		t.Errorf("decoupled changelog: %d..%d %v, want 1..30", e, l, err)
	}
	empty, _ := paimon.NewTable(b, "wh/db.db/none", nil)
	if _, _, err := empty.SnapshotRange(ctx); !errors.Is(err, paimon.ErrSnapshotNotFound) {
		t.Errorf("no table: %v", err)
	}
}
