// Package pgtest starts a real PostgreSQL server for tests: initdb on a
// temporary data dir, pg_ctl on a 127.0.0.1 port, wal_level=logical. A
// test whose machine has no PostgreSQL binaries skips with a message, and
// fails under CI=true (.ci/run installs Debian's postgresql).
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Server is a running PostgreSQL server, stopped when the test ends.
type Server struct {
	// DSN connects as the superuser postgres (trust authentication).
	DSN string
	t   testing.TB
}

// binDir finds initdb and pg_ctl: $PG_BIN, the newest
// /usr/lib/postgresql/<v>/bin, or the PATH.
func binDir() string {
	if d := os.Getenv("PG_BIN"); d != "" {
		return d
	}
	ms, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(ms) > 0 {
		return filepath.Dir(ms[len(ms)-1])
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p)
	}
	return ""
}

// Start starts a server for t.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := binDir()
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("pgtest: no PostgreSQL binaries (initdb, pg_ctl): .ci/run installs Debian's postgresql")
		}
		t.Skip("pgtest: no PostgreSQL binaries (initdb, pg_ctl) found: install postgresql to run this test")
	}
	dir := t.TempDir()
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "sock")
	if err := os.Mkdir(sock, 0o700); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, name), args...)
		if os.Geteuid() == 0 {
			// PostgreSQL refuses to run as root: as the postgres user.
			u, err := user.Lookup("postgres")
			if err != nil {
				t.Fatalf("pgtest: running as root and no postgres user: %v", err)
			}
			uid, _ := strconv.Atoi(u.Uid)
			gid, _ := strconv.Atoi(u.Gid)
			filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error { return os.Chown(p, uid, gid) })
			os.Chown(filepath.Dir(dir), uid, gid)
			cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(bin, name)}, args...)...)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("pgtest: %s %v: %v\n%s", name, args, err, out)
		}
		return out
	}
	run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
	port := freePort(t)
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c wal_level=logical -c max_replication_slots=4 -c max_wal_senders=4 -c fsync=off", port, sock)
	run("pg_ctl", "-D", data, "-o", opts, "-w", "-l", filepath.Join(dir, "log"), "start")
	t.Cleanup(func() { run("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop") })
	return &Server{DSN: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port), t: t}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Exec runs statements, failing the test on an error.
func (s *Server) Exec(sql ...string) {
	s.t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DSN)
	if err != nil {
		s.t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range sql {
		if _, err := conn.Exec(ctx, q); err != nil {
			s.t.Fatalf("pgtest: %s: %v", q, err)
		}
	}
}

// LSN returns the value of a query returning one pg_lsn, as a number.
func (s *Server) LSN(query string) int64 {
	s.t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DSN)
	if err != nil {
		s.t.Fatal(err)
	}
	defer conn.Close(ctx)
	var text string
	if err := conn.QueryRow(ctx, query).Scan(&text); err != nil {
		s.t.Fatalf("pgtest: %s: %v", query, err)
	}
	var hi, lo uint64
	if _, err := fmt.Sscanf(text, "%X/%X", &hi, &lo); err != nil {
		s.t.Fatalf("pgtest: %s gave %q: %v", query, text, err)
	}
	return int64(hi<<32 | lo)
}
