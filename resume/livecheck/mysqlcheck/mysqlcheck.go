// Package mysqlcheck reads what a MySQL or MariaDB server still holds of
// its binary log for package livecheck (livecheck.MySQLBinlogs) with
// github.com/go-sql-driver/mysql. It is a leaf package: a program that
// checks no MySQL source never imports the driver.
package mysqlcheck

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/redact"
)

// Server is a MySQL or MariaDB server reached by a go-sql-driver DSN
// (user:pass@tcp(host:3306)/). Binlogs runs two statements on one
// connection: SHOW GLOBAL VARIABLES and SHOW BINARY LOGS. It is safe for
// concurrent use.
type Server struct {
	cfg *mysql.Config
}

var _ livecheck.MySQLBinlogs = (*Server)(nil)

// Timeouts a DSN that sets none gets (the driver's timeout and readTimeout
// parameters): a silent server fails the check instead of hanging it, even
// when the caller's context has no deadline.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultReadTimeout    = 30 * time.Second
)

// New checks dsn's syntax (no I/O) and returns the server. The network
// must be tcp, tcp6 or unix. Errors never quote the connection string
// (it holds the password): they say "connection string (not shown)" and
// the driver's message with every quoted value masked. A DSN without
// timeout or readTimeout gets DefaultConnectTimeout and
// DefaultReadTimeout.
func New(dsn string) (*Server, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("mysqlcheck: connection string (not shown): %s", maskQuoted(err.Error()))
	}
	switch cfg.Net {
	case "tcp", "tcp6", "unix":
	default:
		// A DSN with a space where the @ belongs parses with the user
		// and password as the network: never quoted, never dialled.
		return nil, errors.New("mysqlcheck: connection string (not shown): its network is not tcp, tcp6 or unix (user:password@tcp(host:port)/ — is the @ missing?)")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultConnectTimeout
	}
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = DefaultReadTimeout
	}
	return &Server{cfg: cfg}, nil
}

// Secrets returns the password dsn holds (mysql.ParseDSN), for a program
// to mask wherever it prints; none when dsn does not parse.
func Secrets(dsn string) []string {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil || cfg.Passwd == "" {
		return nil
	}
	return []string{cfg.Passwd}
}

// maskQuoted masks every '…'-quoted value of a driver message (the
// driver quotes parts of the DSN, the network among them).
func maskQuoted(msg string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(msg, '\'')
		if i < 0 {
			break
		}
		j := strings.IndexByte(msg[i+1:], '\'')
		if j < 0 {
			break
		}
		b.WriteString(msg[:i+1] + "(not shown)'")
		msg = msg[i+1+j+1:]
	}
	b.WriteString(msg)
	return redact.Text(b.String())
}

func (s *Server) open(ctx context.Context) (*sql.Conn, func(), error) {
	c, err := mysql.NewConnector(s.cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("mysqlcheck: connection string (not shown): %s", maskQuoted(err.Error()))
	}
	db := sql.OpenDB(c)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("mysqlcheck: connect: %s", redact.Text(err.Error()))
	}
	return conn, func() { conn.Close(); db.Close() }, nil
}

// Binlogs reads the server's version, gtid_purged and binlog retention
// (SHOW GLOBAL VARIABLES) and its binary log files (SHOW BINARY LOGS).
func (s *Server) Binlogs(ctx context.Context) (livecheck.MySQLServer, error) {
	conn, done, err := s.open(ctx)
	if err != nil {
		return livecheck.MySQLServer{}, err
	}
	defer done()
	var out livecheck.MySQLServer
	rows, err := conn.QueryContext(ctx, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('version', 'version_comment', 'gtid_purged', 'binlog_expire_logs_seconds', 'expire_logs_days')")
	if err != nil {
		return out, fmt.Errorf("mysqlcheck: read variables: %s", redact.Text(err.Error()))
	}
	vars := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return out, fmt.Errorf("mysqlcheck: read variables: %w", err)
		}
		vars[k] = v
	}
	rows.Close()
	out.Version = vars["version"]
	out.MariaDB = strings.Contains(strings.ToLower(vars["version"]+" "+vars["version_comment"]), "mariadb")
	out.GTIDPurged = strings.ReplaceAll(vars["gtid_purged"], "\n", "")
	if v, ok := vars["binlog_expire_logs_seconds"]; ok {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return out, fmt.Errorf("mysqlcheck: binlog_expire_logs_seconds %q is not a number", v)
		}
		out.ExpireSeconds, out.ExpireFrom = int64(n), "binlog_expire_logs_seconds"
	}
	if d, ok := vars["expire_logs_days"]; ok && out.ExpireSeconds == 0 {
		n, err := strconv.ParseFloat(d, 64)
		if err != nil {
			return out, fmt.Errorf("mysqlcheck: expire_logs_days %q is not a number", d)
		}
		if n > 0 {
			out.ExpireSeconds, out.ExpireFrom = int64(n*86400), "expire_logs_days"
		}
	}
	rows, err = conn.QueryContext(ctx, "SHOW BINARY LOGS")
	if err != nil {
		return out, fmt.Errorf("mysqlcheck: SHOW BINARY LOGS: %s", redact.Text(err.Error()))
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	for rows.Next() {
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return out, fmt.Errorf("mysqlcheck: SHOW BINARY LOGS: %w", err)
		}
		out.Files = append(out.Files, string(vals[0]))
	}
	return out, rows.Err()
}

// GTIDSubset asks the server whether sub is a subset of set (MySQL's
// GTID_SUBSET; one statement).
func (s *Server) GTIDSubset(ctx context.Context, sub, set string) (bool, error) {
	conn, done, err := s.open(ctx)
	if err != nil {
		return false, err
	}
	defer done()
	var ok bool
	if err := conn.QueryRowContext(ctx, "SELECT GTID_SUBSET(?, ?)", sub, set).Scan(&ok); err != nil {
		return false, fmt.Errorf("mysqlcheck: GTID_SUBSET: %s", redact.Text(err.Error()))
	}
	return ok, nil
}
