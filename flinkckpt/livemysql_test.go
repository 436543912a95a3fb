package flinkckpt_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/livecheck/mysqlcheck"
	"github.com/resumekit/resumekit/resume/livecheck/mysqlcheck/mariadbtest"
)

// The review's MySQL CDC case on a real MariaDB: while the server holds
// the checkpoint's binlog file the restore is exactly-once, valid until
// the event's ts_sec plus binlog_expire_logs_seconds (to the second), and
// with GTIDs a warning says MariaDB's were not checked; after FLUSH BINARY
// LOGS and PURGE BINARY LOGS TO the next file it is refused as a restore
// that fails, quoting Flink CDC's message.
func TestRestoreMySQLBinlog(t *testing.T) {
	ctx := context.Background()
	m := mariadbtest.Start(t, 7200)
	file, pos := m.Master()
	srv, err := mysqlcheck.New(m.DSN)
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	b := memblob.OpenBucket(nil)
	defer b.Close()
	liveCheckpoint(t, b, 1, flinkckpttest.MySQLSource("orders-cdc", sourcestate.BinlogOffset{File: file, Pos: pos, TsSec: ts.Unix(), GTIDs: "0-1-5",
		Map: map[string]string{"file": file, "pos": i64s(pos), "ts_sec": i64s(ts.Unix()), "gtids": "0-1-5", "kind": "SPECIFIC"}}))
	r := liveResolver(t, b, &livecheck.Checkers{MySQL: srv})
	c, err := r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := ts.Add(2 * time.Hour); c.Guarantee != resume.ExactlyOnce || !c.ValidUntil.Equal(want) || !c.HasWarning(flinkckpt.WarnMariaDBGTIDs) {
		t.Fatalf("present: %s until %v (want %v) warnings %v", c.Guarantee, c.ValidUntil, want, c.Warnings)
	}
	if r := strings.Join(c.Reasons, "\n"); !strings.Contains(r, "binlog_expire_logs_seconds 7200") {
		t.Errorf("reasons:\n%s", r)
	}
	m.FlushAndPurge()
	_, err = r.Resolve(ctx)
	if !errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), "is trying to read binlog starting at {file="+file) || !strings.Contains(err.Error(), "no longer available on the server") {
		t.Fatalf("purged: %v", err)
	}
}

func i64s(n int64) string { return strconv.FormatInt(n, 10) }
