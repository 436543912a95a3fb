// Package mariadbtest starts a real MariaDB server for tests:
// mariadb-install-db on a temporary data dir, then mariadbd --no-defaults
// with log_bin on a 127.0.0.1 port. A machine without the binaries skips
// the test with a message; under CI=true it fails (.ci/run installs
// Debian's mariadb-server).
package mariadbtest

import (
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	_ "github.com/go-sql-driver/mysql" // the driver of DSN
)

// Server is a running MariaDB, stopped when the test ends.
type Server struct {
	// DSN connects as root without a password (go-sql-driver form).
	DSN string
	t   testing.TB
	db  *sql.DB
}

func find(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, d := range []string{"/usr/sbin", "/usr/bin"} {
		if p := filepath.Join(d, name); fileExists(p) {
			return p
		}
	}
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// Start starts a server for t with binlog_expire_logs_seconds expire.
func Start(t testing.TB, expire int) *Server {
	t.Helper()
	server, install := find("mariadbd"), find("mariadb-install-db")
	if server == "" || install == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("mariadbtest: no mariadbd / mariadb-install-db: .ci/run installs Debian's mariadb-server")
		}
		t.Skip("mariadbtest: no mariadbd / mariadb-install-db found: install mariadb-server to run this test")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	user := []string{}
	if os.Geteuid() == 0 {
		user = []string{"--user=root"}
	}
	args := append([]string{"--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"}, user...)
	if out, err := exec.Command(install, args...).CombinedOutput(); err != nil {
		t.Fatalf("mariadbtest: mariadb-install-db: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(server, append([]string{"--no-defaults", "--datadir=" + data, "--bind-address=127.0.0.1", fmt.Sprintf("--port=%d", port),
		"--socket=" + filepath.Join(dir, "sock"), "--pid-file=" + filepath.Join(dir, "pid"), "--log-bin=" + filepath.Join(data, "mysql-bin"),
		"--server-id=1", fmt.Sprintf("--binlog-expire-logs-seconds=%d", expire), "--skip-name-resolve", "--innodb-buffer-pool-size=16M"}, user...)...)
	logf, _ := os.Create(filepath.Join(dir, "log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("mariadbtest: start mariadbd: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
	})
	s := &Server{DSN: fmt.Sprintf("root@tcp(127.0.0.1:%d)/", port), t: t}
	db, err := sql.Open("mysql", s.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s.db = db
	// Readiness: mariadb-admin ping --wait retries the connection itself
	// (as pg_ctl -w does), no sleep here.
	admin := find("mariadb-admin")
	if admin == "" {
		t.Fatal("mariadbtest: no mariadb-admin")
	}
	if out, err := exec.Command(admin, "--no-defaults", "--protocol=tcp", "-h127.0.0.1", fmt.Sprintf("-P%d", port), "-uroot", "--wait=60", "--connect-timeout=2", "ping").CombinedOutput(); err != nil {
		b, _ := os.ReadFile(filepath.Join(dir, "log"))
		t.Fatalf("mariadbtest: server not up: %v %s\n%s", err, out, b)
	}
	return s
}

// Exec runs statements, failing the test on an error.
func (s *Server) Exec(stmts ...string) {
	s.t.Helper()
	for _, q := range stmts {
		if _, err := s.db.Exec(q); err != nil {
			s.t.Fatalf("mariadbtest: %s: %v", q, err)
		}
	}
}

// Master returns SHOW MASTER STATUS's file and position.
func (s *Server) Master() (string, int64) {
	s.t.Helper()
	rows, err := s.db.Query("SHOW MASTER STATUS")
	if err != nil {
		s.t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	if !rows.Next() {
		s.t.Fatal("mariadbtest: no master status (log_bin off?)")
	}
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		s.t.Fatal(err)
	}
	var pos int64
	fmt.Sscan(string(vals[1]), &pos)
	return string(vals[0]), pos
}

// FlushAndPurge rotates the binary log (FLUSH BINARY LOGS) and purges
// every file before the new one (PURGE BINARY LOGS TO), returning the new
// file. MariaDB keeps a file until InnoDB's binlog checkpoint for it is
// written, which its background thread does just after the rotation: the
// purge is repeated until the server reports the old files gone (a
// bounded number of statements, no sleep).
func (s *Server) FlushAndPurge() string {
	s.t.Helper()
	s.Exec("FLUSH BINARY LOGS")
	next, _ := s.Master()
	for i := 0; i < 10000; i++ {
		s.Exec("PURGE BINARY LOGS TO '" + next + "'")
		var n int
		rows, err := s.db.Query("SHOW BINARY LOGS")
		if err != nil {
			s.t.Fatal(err)
		}
		for rows.Next() {
			n++
		}
		rows.Close()
		if n == 1 {
			return next
		}
	}
	s.t.Fatalf("mariadbtest: binary logs before %s not purged", next)
	return ""
}

// Status returns a global status counter (SHOW GLOBAL STATUS), e.g.
// Com_show_binlogs: how many statements of a kind the server ran.
func (s *Server) Status(name string) int64 {
	s.t.Helper()
	var k string
	var v int64
	if err := s.db.QueryRow("SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&k, &v); err != nil {
		s.t.Fatalf("mariadbtest: status %s: %v", name, err)
	}
	return v
}
