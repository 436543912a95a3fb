// Package mysqlcheck reads what a MySQL or MariaDB server still holds of
// its binary log for package livecheck (livecheck.MySQLBinlogs) with
// github.com/go-sql-driver/mysql. It is a leaf package: a program that
// checks no MySQL source never imports the driver.
package mysqlcheck

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/redact"
)

// Server is a MySQL or MariaDB server reached by a go-sql-driver DSN
// (user:pass@tcp(host:3306)/). Binlogs runs two statements on one
// connection: SHOW GLOBAL VARIABLES and SHOW BINARY LOGS. It is safe for
// concurrent use.
type Server struct {
	dsn string
}

var _ livecheck.MySQLBinlogs = (*Server)(nil)

// New checks dsn's syntax (no I/O). Errors never show the password.
func New(dsn string) (*Server, error) {
	if _, err := mysql.ParseDSN(dsn); err != nil {
		return nil, fmt.Errorf("mysqlcheck: DSN %s: %s", redactDSN(dsn), redact.Text(err.Error()))
	}
	return &Server{dsn: dsn}, nil
}

// redactDSN masks the password of user:pass@tcp(…)/ DSNs.
func redactDSN(dsn string) string {
	at := strings.LastIndex(dsn, "@")
	if c := strings.Index(dsn, ":"); at > 0 && c >= 0 && c < at {
		return dsn[:c+1] + "xxxxx" + dsn[at:]
	}
	return redact.URL(dsn)
}

func (s *Server) open(ctx context.Context) (*sql.Conn, func(), error) {
	db, err := sql.Open("mysql", s.dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("mysqlcheck: %s", redact.Text(err.Error()))
	}
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
