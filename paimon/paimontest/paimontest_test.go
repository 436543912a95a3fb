package paimontest_test

import (
	"context"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
)

// TestLiveConsumerCheckpoints: a live consumer moves one snapshot on per
// checkpoint up to latest+1, where a caught-up job writes the same value
// again (a new modification time, the same content); the table reads what
// it wrote.
func TestLiveConsumerCheckpoints(t *testing.T) {
	ctx := context.Background()
	mem := memblob.OpenBucket(nil)
	defer mem.Close()
	tb := paimontest.New(t, mem, "wh/default.db/t").
		CommitEvery(10, time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), time.Minute).
		ExpireBefore(4)
	if tb.Earliest() != 4 || tb.Latest() != 10 {
		t.Fatalf("snapshots %d..%d, want 4..10", tb.Earliest(), tb.Latest())
	}
	live := tb.LiveConsumer("job", 9)
	if live.Key() != "wh/default.db/t/consumer/consumer-job" || live.NextSnapshot() != 9 {
		t.Fatalf("key %q next %d", live.Key(), live.NextSnapshot())
	}
	table, err := paimon.NewTable(mem, tb.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []int64{10, 11, 11} {
		n, err := live.Checkpoint(ctx)
		if err != nil || n != want || live.NextSnapshot() != want {
			t.Fatalf("Checkpoint = %d, %v (NextSnapshot %d); want %d", n, err, live.NextSnapshot(), want)
		}
		c, err := table.Consumer(ctx, "job")
		if err != nil || c.NextSnapshot != want {
			t.Fatalf("Consumer = %+v, %v; want %d", c, err, want)
		}
	}
	if live.Checkpoints() != 3 || live.Err() != nil {
		t.Errorf("%d checkpoints, err %v; want 3, nil", live.Checkpoints(), live.Err())
	}
}
