package salvage_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/livecheck/mysqlcheck"
	"github.com/resumekit/resumekit/resume/livecheck/mysqlcheck/mariadbtest"
	"github.com/resumekit/resumekit/resume/livecheck/pgcheck"
	"github.com/resumekit/resumekit/resume/livecheck/pgcheck/pgtest"
)

// A salvaged Postgres CDC start checked against a real PostgreSQL slot:
// the slot at the position makes committed-offset exact (exact-input);
// advanced past it, the WAL in between is gone for the slot (data loss);
// dropped, committed-offset starts at the current WAL (data loss).
func TestPostgresSalvageChecked(t *testing.T) {
	ctx := context.Background()
	pg := pgtest.Start(t)
	pg.Exec("CREATE TABLE orders (id int PRIMARY KEY)", "SELECT pg_create_logical_replication_slot('flink_orders', 'pgoutput')")
	at := pg.LSN("SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = 'flink_orders'")
	srv, _ := pgcheck.New(pg.DSN)
	l := savepoints(t, "sp/")
	dir := savepoint(t, l, "savepoint-aaaaaa-000000000004", 9, flinkckpttest.PostgresSource("pg", at, 700, 1))
	r := salvager(t, l, &salvage.Options{Snapshot: dir, Live: &livecheck.Checkers{Postgres: srv, PostgresSlot: "flink_orders"}})
	grade := func() resume.Guarantee {
		t.Helper()
		c, err := r.Resolve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return c.Guarantee
	}
	if g := grade(); g != resume.ExactInput {
		t.Errorf("slot at the position: %s", g)
	}
	pg.Exec("INSERT INTO orders SELECT generate_series(1, 10)", "SELECT pg_replication_slot_advance('flink_orders', pg_current_wal_lsn())")
	if g := grade(); g != resume.DataLoss {
		t.Errorf("slot past the position: %s", g)
	}
	pg.Exec("SELECT pg_drop_replication_slot('flink_orders')")
	if g := grade(); g != resume.DataLoss {
		t.Errorf("slot dropped: %s", g)
	}
	// NewResolvers' salvage resolver takes the restore's checker set
	// (flinkckpt.Options.Live): it checks the slot too (salvage.Checks had
	// no Postgres or MySQL checker, so its candidate went unchecked).
	rs, err := salvage.NewResolvers(l.Bucket, l.Prefix, &flinkckpt.Options{FlinkRoot: l.FlinkRoot(),
		Live: &livecheck.Checkers{Postgres: srv, PostgresSlot: "flink_orders"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := rs[1].Resolve(ctx)
	if err != nil || c.Guarantee != resume.DataLoss || !strings.Contains(warning(c, salvage.WarnDataLoss), "no replication slot flink_orders") {
		t.Errorf("NewResolvers' salvage, slot dropped: %s, %v, %v", c.Guarantee, c.Warnings, err)
	}
}

// A salvaged MySQL CDC start checked against a real MariaDB: the file held,
// checked with valid_until from binlog_expire_logs_seconds; purged, no
// position (a start there fails).
func TestMySQLSalvageChecked(t *testing.T) {
	ctx := context.Background()
	m := mariadbtest.Start(t, 3600)
	file, pos := m.Master()
	srv, _ := mysqlcheck.New(m.DSN)
	ts := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	l := savepoints(t, "sp/")
	dir := savepoint(t, l, "savepoint-aaaaaa-000000000005", 9, flinkckpttest.MySQLSource("my",
		sourcestate.BinlogOffset{Map: map[string]string{"file": file, "pos": strconv.FormatInt(pos, 10), "ts_sec": strconv.FormatInt(ts.Unix(), 10), "kind": "SPECIFIC"}}))
	r := salvager(t, l, &salvage.Options{Snapshot: dir, Live: &livecheck.Checkers{MySQL: srv}})
	c, err := r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pos0, _ := salvage.PositionOf(c.Position)
	if !pos0.Sources[0].Checked || !c.ValidUntil.Equal(ts.Add(time.Hour)) || c.HasWarning(salvage.WarnNotChecked) {
		t.Fatalf("held: checked %v until %v warnings %v", pos0.Sources[0].Checked, c.ValidUntil, c.Warnings)
	}
	m.FlushAndPurge()
	if _, err := r.Resolve(ctx); !errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), "was purged") {
		t.Fatalf("purged: %v", err)
	}
}
