package salvage_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// A Flink CDC Postgres source salvages to committed-offset on its slot,
// with the statement that advances the slot to the snapshot's LSN first
// (the connector has no specific-offset start: said, graded replay); the
// position reads back from JSON with its kind postgres-cdc.
func TestPostgresSalvage(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "sp/", Root: "s3a://b/"}
	w, err := l.Savepoint(ctx, "savepoint-aaaaaa-000000000003", 9, &flinkckpttest.Checkpoint{Version: 5,
		Sources: []flinkckpttest.Source{flinkckpttest.PostgresSource("pg-source", 23803720, 767, 1764583200123456)}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := salvage.NewResolver(b, "sp/", &salvage.Options{Snapshot: w.Dir, Live: &livecheck.Checkers{PostgresSlot: "flink_orders"}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"scan.startup.mode": "committed-offset", "scan.incremental.snapshot.enabled": "true", "slot.name": "flink_orders"}
	if diff := cmp.Diff(want, c.Position.Launch().Options); diff != "" {
		t.Errorf("launch (-want +got):\n%s", diff)
	}
	if c.Guarantee != resume.Replay || !c.HasWarning(salvage.WarnPostgresNoSpecificOffset) || !c.HasWarning(salvage.WarnNotChecked) {
		t.Errorf("guarantee %s warnings %v", c.Guarantee, c.Warnings)
	}
	pos, _ := salvage.PositionOf(c.Position)
	pg := pos.Sources[0].Postgres
	if pg == nil || pg.LSN != "0/16B3748" || pg.Slot != "flink_orders" || *pg.TxID != 767 || pg.AdvanceSlotSQL != "SELECT pg_replication_slot_advance('flink_orders', '0/16B3748')" {
		t.Fatalf("position %+v", pg)
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"kind":"postgres-cdc","positions":[{"slot":"flink_orders","lsn":"0/16B3748","tx_id":767,"ts_usec":1764583200123456`) {
		t.Errorf("JSON %s", data)
	}
	var back resume.Candidate
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	bp, err := salvage.PositionOf(back.Position)
	if err != nil || bp.Sources[0].Postgres == nil || bp.Sources[0].Postgres.LSN != "0/16B3748" {
		t.Fatalf("read back %+v, %v", bp, err)
	}
}
