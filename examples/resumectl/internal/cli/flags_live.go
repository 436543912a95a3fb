package cli

import (
	"context"
	"flag"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/livecheck/mysqlcheck"
	"github.com/resumekit/resumekit/resume/livecheck/pgcheck"
)

// liveFlags are resolve's live-check group: the systems that check a
// snapshot's source positions but offer no start of their own (MySQL,
// PostgreSQL). Its build makes the one set of live checkers
// (built.live), from these and from the Kafka client and the Paimon table
// the Kafka and Paimon groups opened; the restore and the salvage path
// both check against it.
type liveFlags struct {
	postgresDSN, postgresSlot, mysqlDSN string
}

func (l *liveFlags) register(fs *flag.FlagSet, _ *env) {
	fs.StringVar(&l.mysqlDSN, "mysql-dsn", "", "MySQL or MariaDB server (`DSN`, user:pass@tcp(host:3306)/) whose binary logs check the snapshots' Flink CDC MySQL positions (the password never shows)")
	fs.StringVar(&l.postgresDSN, "postgres-dsn", "", "PostgreSQL server (`DSN`, postgres://user:pass@host:5432/db) whose replication slot checks the snapshots' Flink CDC Postgres positions (the password never shows)")
	fs.StringVar(&l.postgresSlot, "postgres-slot", "", "the Postgres CDC source's replication slot (`NAME`, its slot.name: the snapshot does not record it)")
}

// set reports whether any of the group's flags was given.
func (l *liveFlags) set() bool {
	return l.postgresDSN != "" || l.postgresSlot != "" || l.mysqlDSN != ""
}

func (l *liveFlags) check(s sources) error {
	switch {
	case l.set() && !s.flink:
		return usagef("resolve: --mysql-dsn, --postgres-dsn and --postgres-slot need --flink-checkpoints or --flink-savepoints")
	case (l.postgresDSN == "") != (l.postgresSlot == ""):
		return usagef("resolve: --postgres-dsn and --postgres-slot go together (the snapshot does not record the slot)")
	}
	return nil
}

// build makes built.live: nil when no live system is given.
func (l *liveFlags) build(_ context.Context, _ *env, b *built) error {
	c := &livecheck.Checkers{PostgresSlot: l.postgresSlot}
	if l.mysqlDSN != "" {
		srv, err := mysqlcheck.New(l.mysqlDSN)
		if err != nil {
			return usagef("resolve: --mysql-dsn: %v", err)
		}
		c.MySQL = srv
	}
	if l.postgresDSN != "" {
		srv, err := pgcheck.New(l.postgresDSN)
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
	if c.Kafka == nil && c.Paimon == nil && c.Postgres == nil && c.MySQL == nil {
		return nil
	}
	b.live = c
	return nil
}
