package mysqlcheck_test

import (
	"context"
	"fmt"

	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/livecheck/mysqlcheck"
)

// Check a Flink CDC MySQL job's checkpoints against the server's binary
// logs: give the server to the flinkckpt resolver's Options.Live (not run:
// it needs a server).
func ExampleNew() {
	srv, err := mysqlcheck.New("flink:secret@tcp(db.example:3306)/")
	if err != nil {
		fmt.Println(err)
		return
	}
	live := &livecheck.Checkers{MySQL: srv}
	b, err := live.MySQL.Binlogs(context.Background())
	fmt.Println(b.Files, b.ExpireSeconds, err)
}
