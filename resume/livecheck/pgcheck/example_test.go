package pgcheck_test

import (
	"context"
	"fmt"

	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/livecheck/pgcheck"
)

// Check a Flink CDC Postgres job's checkpoints against its replication
// slot: give the server and the slot to the flinkckpt resolver's
// Options.Live (not run: it needs a server).
func ExampleNew() {
	srv, err := pgcheck.New("postgres://flink:secret@db.example:5432/shop")
	if err != nil {
		fmt.Println(err)
		return
	}
	live := &livecheck.Checkers{Postgres: srv, PostgresSlot: "flink_orders"}
	slot, ok, err := srv.Slot(context.Background(), live.PostgresSlot)
	fmt.Println(slot.ConfirmedFlushLSN, ok, err)
}
