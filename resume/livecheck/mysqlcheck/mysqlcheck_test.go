package mysqlcheck_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/resume/livecheck/mysqlcheck"
	"github.com/resumekit/resumekit/resume/livecheck/mysqlcheck/mariadbtest"
)

// On a real MariaDB: the binary log files, retention and kind of server;
// after FLUSH BINARY LOGS and PURGE BINARY LOGS TO the purged file is gone
// from the list. A server that is down fails without the password.
func TestBinlogs(t *testing.T) {
	ctx := context.Background()
	m := mariadbtest.Start(t, 86400)
	first, _ := m.Master()
	s, err := mysqlcheck.New(m.DSN)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Binlogs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !b.MariaDB || b.ExpireSeconds != 86400 || b.ExpireFrom != "binlog_expire_logs_seconds" || !slices.Contains(b.Files, first) {
		t.Fatalf("%+v", b)
	}
	second := m.FlushAndPurge()
	b, err = s.Binlogs(ctx)
	if err != nil || slices.Contains(b.Files, first) || !slices.Contains(b.Files, second) {
		t.Fatalf("after purge: %+v %v", b, err)
	}
	down, _ := mysqlcheck.New("flink:s3cret-pw@tcp(127.0.0.1:1)/?timeout=2s")
	if _, err := down.Binlogs(ctx); err == nil || strings.Contains(err.Error(), "s3cret-pw") {
		t.Errorf("server down: %v", err)
	}
}
