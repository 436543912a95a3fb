package flinkckpt_test

import (
	"context"
	"testing"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/livecheck/pgcheck"
	"github.com/resumekit/resumekit/resume/livecheck/pgcheck/pgtest"
)

// The review's Postgres CDC cases on a real PostgreSQL: a checkpoint at
// the slot's position restores exactly-once; after the slot was advanced
// past it (the connector commits newer checkpoints' LSNs), the restore is
// silently forwarded: data loss; with the slot dropped, data loss too.
func TestRestorePostgresSlot(t *testing.T) {
	ctx := context.Background()
	pg := pgtest.Start(t)
	pg.Exec("CREATE TABLE orders (id int PRIMARY KEY)",
		"SELECT pg_create_logical_replication_slot('flink_orders', 'pgoutput')")
	at := pg.LSN("SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = 'flink_orders'")
	srv, err := pgcheck.New(pg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	b := memblob.OpenBucket(nil)
	defer b.Close()
	liveCheckpoint(t, b, 1, flinkckpttest.PostgresSource("orders-cdc", at, 750, 1764583200123456))
	r := liveResolver(t, b, &livecheck.Checkers{Postgres: srv, PostgresSlot: "flink_orders"})
	grade := func() (resume.Guarantee, *flinkckpt.PostgresCheck) {
		t.Helper()
		c, err := r.Resolve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pos, _ := flinkckpt.PositionOf(c.Position)
		if g := c.Guarantee; g == resume.DataLoss && !c.HasWarning(flinkckpt.WarnSourceDataLoss) {
			t.Errorf("data loss without its warning: %v", c.Warnings)
		}
		return c.Guarantee, pos.Live.Sources[0].Postgres
	}
	if g, pc := grade(); g != resume.ExactlyOnce || !pc.SlotExists || pc.WALStatus != "reserved" {
		t.Fatalf("slot at the checkpoint: %s %+v", g, pc)
	}
	pg.Exec("INSERT INTO orders SELECT generate_series(1, 100)",
		"SELECT pg_replication_slot_advance('flink_orders', pg_current_wal_lsn())")
	if g, pc := grade(); g != resume.DataLoss || pc.ConfirmedFlushLSN == pc.LSN {
		t.Fatalf("slot past the checkpoint: %s %+v", g, pc)
	}
	pg.Exec("SELECT pg_drop_replication_slot('flink_orders')")
	if g, pc := grade(); g != resume.DataLoss || pc.SlotExists {
		t.Fatalf("slot dropped: %s %+v", g, pc)
	}
}
