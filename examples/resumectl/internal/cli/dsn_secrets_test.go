package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/resume/localblob"
	"github.com/resumekit/resumekit/resume/redact"
)

// dbSecret is the password planted in the DSNs below (8 characters or
// more: redact.MinKnownSecret).
const dbSecret = "hunter2hunter2"

// resolveNeverPrintsDSNCredentials, run by TestResolveNeverPrintsCredentials
// (issue 31): both DSN forms — a
// go-sql-driver DSN (one with a space where the @ belongs, which the
// dialler quoted as the network; one that parses) and a libpq connection
// string (key=value pgx refuses, and a URL) — from a flag, a file and the
// environment, in every output format: the password is never printed.
func resolveNeverPrintsDSNCredentials(t *testing.T) {
	ck := cdcSavepoints(t)
	file := func(dsn string) string {
		p := filepath.Join(t.TempDir(), "dsn")
		if err := os.WriteFile(p, []byte(dsn+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mysqlDSNs := []string{
		"root:" + dbSecret + " tcp(127.0.0.1:1)/", // the space where the @ belongs
		"root:" + dbSecret + "@tcp(127.0.0.1:1)/",
		"root:" + dbSecret + " tcp/", // the driver quotes the network
	}
	pgDSNs := []string{
		"host=127.0.0.1 port=1 user=u password=" + dbSecret + " sslmode=bogus", // pgx refuses it
		"host=127.0.0.1 port=1 user=u password='" + dbSecret,
		"postgres://u:" + dbSecret + "@127.0.0.1:1/db?connect_timeout=1",
	}
	var runs [][]string
	for _, format := range []string{"text", "json", "k8s", "html"} {
		base := []string{"resolve", "--flink-savepoints", ck, "--format", format, "--timeout", "5s"}
		for _, d := range mysqlDSNs {
			runs = append(runs, append(append([]string{}, base...), "--mysql-dsn", d))
			runs = append(runs, append(append([]string{}, base...), "--mysql-dsn-file", file(d)))
		}
		for _, d := range pgDSNs {
			runs = append(runs, append(append([]string{}, base...), "--postgres-dsn", d, "--postgres-slot", "s"))
			runs = append(runs, append(append([]string{}, base...), "--postgres-dsn-file", file(d), "--postgres-slot", "s"))
		}
	}
	check := func(args []string) {
		t.Helper()
		var out, errOut strings.Builder
		code := Main(args, &out, &errOut)
		all := out.String() + errOut.String()
		if strings.Contains(all, dbSecret) || strings.Contains(all, "hunter2") {
			t.Errorf("%q (exit %d) prints the password:\n%s", args, code, all)
		}
	}
	for _, args := range runs {
		check(args)
	}
	for _, d := range mysqlDSNs {
		t.Setenv(envMySQLDSN, d)
		check([]string{"resolve", "--flink-savepoints", ck, "--format", "json", "--timeout", "5s"})
	}
	t.Setenv(envMySQLDSN, "")
	for _, d := range pgDSNs {
		t.Setenv(envPostgresDSN, d)
		check([]string{"resolve", "--flink-savepoints", ck, "--postgres-slot", "s", "--timeout", "5s"})
	}
}

// A parsed password is registered with the output redactor: anything that
// quotes it later — a driver's error, a report — is masked.
func TestDSNPasswordRegistered(t *testing.T) {
	for _, l := range []liveFlags{
		{mysqlDSN: "root:" + dbSecret + "@tcp(127.0.0.1:1)/"},
		{postgresDSN: "postgres://u:" + dbSecret + "@127.0.0.1:1/db", postgresSlot: "s"},
		{postgresDSN: "host=127.0.0.1 user=u password=" + dbSecret, postgresSlot: "s"},
	} {
		e := &env{red: redact.New()}
		if err := l.check(sources{flink: true}); err != nil {
			t.Fatal(err)
		}
		if err := l.build(context.Background(), e, &built{}); err != nil {
			t.Fatal(err)
		}
		if got := e.red.String("dial: user root:" + dbSecret + " refused"); strings.Contains(got, dbSecret) {
			t.Errorf("%+v: not masked: %s", l, got)
		}
	}
}

// cdcSavepoints writes a savepoint holding a Flink CDC MySQL source and a
// Postgres CDC source to a local directory and returns the savepoints
// directory: a resolve with a DSN checks its positions live.
func cdcSavepoints(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	b, err := localblob.OpenBucket(dir, &localblob.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "sp/", Root: "file://" + filepath.ToSlash(dir) + "/"}
	src := flinkckpttest.MySQLSource("cdc", sourcestate.BinlogOffset{Kind: sourcestate.BinlogSpecific, File: "mysql-bin.000003", Pos: 4})
	if _, err := l.Savepoint(context.Background(), "savepoint-5e1f00-000000000001", 1, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{src}}); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "sp")
}
