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
	binlogs, vars := m.Status("Com_show_binlogs"), m.Status("Com_show_variables")
	b, err := s.Binlogs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Two statements per check: SHOW GLOBAL VARIABLES and SHOW BINARY LOGS
	// (the helper's SHOW GLOBAL STATUS counts as neither).
	if n, v := m.Status("Com_show_binlogs")-binlogs, m.Status("Com_show_variables")-vars; n != 1 || v != 1 {
		t.Errorf("%d SHOW BINARY LOGS, %d SHOW VARIABLES per check, want 1 and 1", n, v)
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
