// Package pgcheck reads a PostgreSQL server's replication slots for
// package livecheck (livecheck.PostgresSlots) with github.com/jackc/pgx/v5.
// It is a leaf package: a program that checks no Postgres source never
// imports pgx.
package pgcheck

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/redact"
)

// Server is a PostgreSQL server reached by a connection string (a URL
// postgres://user:pass@host:port/db or key=value pairs; the password may
// come from PGPASSWORD or ~/.pgpass instead, as libpq's). Each Slot call
// opens one connection and runs one statement. It is safe for concurrent
// use.
type Server struct {
	cfg *pgx.ConnConfig
}

var _ livecheck.PostgresSlots = (*Server)(nil)

// Timeouts a connection string that sets none gets: a silent server fails
// the check instead of hanging it, even when the caller's context has no
// deadline. DefaultConnectTimeout applies when the string has no
// connect_timeout; DefaultReadTimeout bounds each Slot call's statement.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultReadTimeout    = 30 * time.Second
)

// New checks dsn's syntax (no I/O) and returns the server. Errors never
// quote the connection string (it holds the password): they say
// "connection string (not shown)" and pgx's own message, which masks the
// password.
func New(dsn string) (*Server, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("pgcheck: connection string (not shown): %s", redact.Text(err.Error()))
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	return &Server{cfg: cfg}, nil
}

// Secrets returns the password dsn resolves to (pgx.ParseConfig: the
// string's, PGPASSWORD's or ~/.pgpass's), for a program to mask wherever
// it prints; none when dsn does not parse.
func Secrets(dsn string) []string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil || cfg.Password == "" {
		return nil
	}
	return []string{cfg.Password}
}

// Slot reads the slot named name from pg_replication_slots:
// confirmed_flush_lsn, restart_lsn, wal_status, safe_wal_size and active.
func (s *Server) Slot(ctx context.Context, name string) (livecheck.PostgresSlot, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, DefaultReadTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, s.cfg)
	if err != nil {
		return livecheck.PostgresSlot{}, false, fmt.Errorf("pgcheck: connect: %s", redact.Text(err.Error()))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var confirmed, restart, status *string
	var safe *int64
	var active bool
	err = conn.QueryRow(ctx, `SELECT confirmed_flush_lsn::text, restart_lsn::text, wal_status, safe_wal_size, active
		FROM pg_replication_slots WHERE slot_name = $1`, name).Scan(&confirmed, &restart, &status, &safe, &active)
	if errors.Is(err, pgx.ErrNoRows) {
		return livecheck.PostgresSlot{}, false, nil
	}
	if err != nil {
		return livecheck.PostgresSlot{}, false, fmt.Errorf("pgcheck: read slot %s: %s", redact.Quote(name), redact.Text(err.Error()))
	}
	out := livecheck.PostgresSlot{Name: name, SafeWALSize: safe, Active: active}
	if status != nil {
		out.WALStatus = *status
	}
	for _, f := range []struct {
		v    *string
		into *int64
		what string
	}{{confirmed, &out.ConfirmedFlushLSN, "confirmed_flush_lsn"}, {restart, &out.RestartLSN, "restart_lsn"}} {
		if f.v == nil {
			continue
		}
		n, err := parseLSN(*f.v)
		if err != nil {
			return livecheck.PostgresSlot{}, false, fmt.Errorf("pgcheck: slot %s: %s %q: %w", redact.Quote(name), f.what, *f.v, err)
		}
		*f.into = n
	}
	return out, true, nil
}

func parseLSN(s string) (int64, error) {
	hi, lo, ok := strings.Cut(s, "/")
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if !ok || err1 != nil || err2 != nil {
		return 0, errors.New("not an LSN X/Y")
	}
	return int64(h<<32 | l), nil
}
