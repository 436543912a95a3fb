package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/livecheck/mysqlcheck"
	"github.com/resumekit/resumekit/resume/livecheck/pgcheck"
	"github.com/resumekit/resumekit/resume/redact"
)

// liveFlags are resolve's live-check group: the systems that check a
// snapshot's source positions but offer no start of their own (MySQL,
// PostgreSQL). Its build makes the one set of live checkers
// (built.live), from these and from the Kafka client and the Paimon table
// the Kafka and Paimon groups opened; the restore and the salvage path
// both check against it.
type liveFlags struct {
	postgresDSN, postgresDSNFile, postgresSlot string
	mysqlDSN, mysqlDSNFile                     string
	flink                                      bool // the resolve names Flink snapshots (check)
}

// The environment variables that give a DSN when no flag does, so that the
// password is not on the command line (/proc/PID/cmdline, ps).
const (
	envMySQLDSN    = "RESUMECTL_MYSQL_DSN"
	envPostgresDSN = "RESUMECTL_POSTGRES_DSN"
)

func (l *liveFlags) register(fs *flag.FlagSet, _ *env) {
	fs.StringVar(&l.mysqlDSN, "mysql-dsn", "", "MySQL or MariaDB server (`DSN`, user:pass@tcp(host:3306)/) whose binary logs check the snapshots' Flink CDC MySQL positions. A password here is visible to other local users (ps, /proc): prefer --mysql-dsn-file or "+envMySQLDSN+". resumectl's reports and errors mask it")
	fs.StringVar(&l.mysqlDSNFile, "mysql-dsn-file", "", "read the MySQL `FILE`'s DSN (its first line) instead of --mysql-dsn; without either, "+envMySQLDSN+" is used when set")
	fs.StringVar(&l.postgresDSN, "postgres-dsn", "", "PostgreSQL server (`DSN`, postgres://user@host:5432/db or key=value pairs) whose replication slot checks the snapshots' Flink CDC Postgres positions. A password here is visible to other local users (ps, /proc): prefer PGPASSWORD or ~/.pgpass for it (read as libpq does), --postgres-dsn-file or "+envPostgresDSN+". resumectl's reports and errors mask it")
	fs.StringVar(&l.postgresDSNFile, "postgres-dsn-file", "", "read the PostgreSQL `FILE`'s connection string (its first line) instead of --postgres-dsn; without either, "+envPostgresDSN+" is used when set")
	fs.StringVar(&l.postgresSlot, "postgres-slot", "", "the Postgres CDC source's replication slot (`NAME`, its slot.name: the snapshot does not record it)")
}

// set reports whether any of the group's flags was given.
func (l *liveFlags) set() bool {
	return l.postgresDSN != "" || l.postgresDSNFile != "" || l.postgresSlot != "" || l.mysqlDSN != "" || l.mysqlDSNFile != ""
}

func (l *liveFlags) check(s sources) error {
	l.flink = s.flink
	pg := l.postgresDSN != "" || l.postgresDSNFile != ""
	switch {
	case l.set() && !s.flink:
		return usagef("resolve: --mysql-dsn, --postgres-dsn and --postgres-slot need --flink-checkpoints or --flink-savepoints")
	case l.mysqlDSN != "" && l.mysqlDSNFile != "":
		return usagef("resolve: give --mysql-dsn or --mysql-dsn-file, not both")
	case l.postgresDSN != "" && l.postgresDSNFile != "":
		return usagef("resolve: give --postgres-dsn or --postgres-dsn-file, not both")
	case pg && l.postgresSlot == "":
		return usagef("resolve: --postgres-dsn and --postgres-slot go together (the snapshot does not record the slot)")
	case l.postgresSlot != "" && !pg && os.Getenv(envPostgresDSN) == "":
		return usagef("resolve: --postgres-slot needs the server: --postgres-dsn, --postgres-dsn-file or %s", envPostgresDSN)
	}
	return nil
}

// dsn returns the DSN a flag, a file or the environment gives ("" for
// none).
func dsn(flagValue, file, envVar string) (string, error) {
	switch {
	case flagValue != "":
		return flagValue, nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", redact.Quote(file), errors.Unwrap(err))
		}
		line, _, _ := strings.Cut(string(b), "\n")
		if line = strings.TrimSpace(line); line == "" {
			return "", fmt.Errorf("%s holds no connection string on its first line", redact.Quote(file))
		}
		return line, nil
	}
	return os.Getenv(envVar), nil
}

// build makes built.live: nil when no live system is given.
func (l *liveFlags) build(_ context.Context, e *env, b *built) error {
	c := &livecheck.Checkers{PostgresSlot: l.postgresSlot}
	if l.flink {
		mdsn, err := dsn(l.mysqlDSN, l.mysqlDSNFile, envMySQLDSN)
		if err != nil {
			return usagef("resolve: --mysql-dsn-file: %v", err)
		}
		if mdsn != "" {
			// The password is masked in every output from here on, whatever
			// quotes it (a driver's error, a report).
			e.red.AddSecrets(mysqlcheck.Secrets(mdsn)...)
			srv, err := mysqlcheck.New(mdsn)
			if err != nil {
				return usagef("resolve: --mysql-dsn: %v", err)
			}
			c.MySQL = srv
		}
	}
	if l.postgresSlot != "" {
		pdsn, err := dsn(l.postgresDSN, l.postgresDSNFile, envPostgresDSN)
		if err != nil {
			return usagef("resolve: --postgres-dsn-file: %v", err)
		}
		e.red.AddSecrets(pgcheck.Secrets(pdsn)...)
		srv, err := pgcheck.New(pdsn)
		if err != nil {
			return usagef("resolve: --postgres-dsn: %v", err)
		}
		c.Postgres = srv
	}
	if b.kafka != nil {
		c.Kafka = kafkaoffset.Log{Client: b.kafka}
	}
	if b.paimon != nil {
		c.Paimon = b.paimon
	}
	// One answer per transactional id for the whole resolve: the restore,
	// the salvage and its snapshot choice ask the sink once.
	c.KafkaSinkTimeout, c.KafkaSinkPrefix, c.KafkaSinkTopics = b.sinkTimeout, b.sinkPrefix, b.sinkTopics
	switch {
	case b.sink != nil:
		c.KafkaSink = livecheck.MemoTransactions(b.sink)
	case b.kafka != nil:
		c.KafkaSink = livecheck.MemoTransactions(kafkaoffset.Log{Client: b.kafka})
	}
	if b.paimonSink != nil {
		c.PaimonSink = livecheck.MemoPaimonSink(b.paimonSink)
	}
	if c.Kafka == nil && c.Paimon == nil && c.Postgres == nil && c.MySQL == nil && c.KafkaSink == nil && !b.sinkSet {
		return nil
	}
	b.live = c
	return nil
}
