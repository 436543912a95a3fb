package pgcheck_test

import (
	"context"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/resume/livecheck/pgcheck"
	"github.com/resumekit/resumekit/resume/livecheck/pgcheck/pgtest"
)

// On a real PostgreSQL 15: a logical slot reads back with its
// confirmed_flush_lsn, wal_status and activity; a missing slot is not an
// error; a server that is down fails, without the password in the text.
func TestSlot(t *testing.T) {
	ctx := context.Background()
	pg := pgtest.Start(t)
	pg.Exec("SELECT pg_create_logical_replication_slot('flink_orders', 'pgoutput')")
	want := pg.LSN("SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = 'flink_orders'")
	s, err := pgcheck.New(pg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	st, ok, err := s.Slot(ctx, "flink_orders")
	if err != nil || !ok {
		t.Fatalf("slot: %v %v", ok, err)
	}
	if st.ConfirmedFlushLSN != want || st.WALStatus != "reserved" || st.Active || st.SafeWALSize != nil {
		t.Errorf("slot %+v, want confirmed %d, reserved, inactive, unlimited", st, want)
	}
	if _, ok, err := s.Slot(ctx, "other"); ok || err != nil {
		t.Errorf("missing slot: %v %v", ok, err)
	}
	down, _ := pgcheck.New("postgres://flink:s3cret-pw@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=2")
	if _, _, err := down.Slot(ctx, "flink_orders"); err == nil || strings.Contains(err.Error(), "s3cret-pw") {
		t.Errorf("server down: %v", err)
	}
}
