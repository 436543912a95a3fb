// Package livecheck holds what the resolvers of a Flink job's inputs share
// to check a position against the live system that serves it: the checker
// interfaces (a Kafka cluster's log offsets, a Paimon table's snapshot
// range, a MySQL server's binary logs, a Postgres replication slot), the
// one checker set both a restore and a salvaged start take ([Checkers]),
// and one check per system ([CheckKafka], [CheckPaimon], [CheckMySQL],
// [CheckPostgres]) with one result type ([Result]). A check says what the
// system holds and what is gone; the caller only decides what that means
// for its launch (a restore refused, a salvaged start moved up and graded
// data-loss).
//
// Package flinkckpt checks the restore candidate of a checkpoint or
// savepoint with them, package flinkckpt/salvage the stateless start it
// salvages from one, and package kafkaoffset grades committed offsets by
// the same Kafka rule ([KafkaStart]). The implementations live with the
// systems they speak to (kafkaoffset.Log, *paimon.Table), so that packages
// that only grade import no client library.
package livecheck

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// KafkaLog is the live check of Kafka positions. kafkaoffset.Log
// implements it.
type KafkaLog interface {
	// LogOffsets returns the log start and end offsets of the given
	// partitions of topic. A partition it could not list is left out of
	// both maps, and the error says why.
	LogOffsets(ctx context.Context, topic string, partitions []int32) (start, end map[int32]int64, err error)
}

// KafkaCommits resolves the committed marker of Kafka positions: a
// partition the old job had not started reading with
// OffsetsInitializer.committedOffsets() starts at its group's commit.
// kafkaoffset.Log implements it.
type KafkaCommits interface {
	// CommittedOffsets returns group's committed offsets of the given
	// partitions of topic; a partition without a commit is absent.
	CommittedOffsets(ctx context.Context, group, topic string, partitions []int32) (map[int32]int64, error)
}

// KafkaTimes looks Kafka offsets up by time (ListOffsets by timestamp): a
// split still at the latest marker is resolved against the snapshot's
// time ([KafkaLatestAt]). kafkaoffset.Log implements it.
type KafkaTimes interface {
	// OffsetsAt returns, per partition of topic, the first offset whose
	// record's timestamp is at or after at, or the end offset when none is.
	OffsetsAt(ctx context.Context, topic string, partitions []int32, at time.Time) (map[int32]int64, error)
}

// PaimonTable is the live check of a Paimon position. *paimon.Table
// implements it.
type PaimonTable interface {
	// SnapshotRange returns the earliest id a streaming read can start
	// from and the latest snapshot id.
	SnapshotRange(ctx context.Context) (earliest, latest int64, err error)
	// SQLName is the table's SQL identifier (db.table), for reset_consumer.
	SQLName() string
}

// KafkaRetention says how long Kafka positions stay readable. A KafkaLog
// that implements it too gives the candidate its ValidUntil.
// kafkaoffset.Log implements it.
type KafkaRetention interface {
	// ValidUntil returns the earliest moment a record at or after
	// offsets[p] of partition p of topic may leave retention (ends[p] is
	// the partition's end offset: a start there constrains nothing), and a
	// reason naming the partition and the rule; the zero time (with why)
	// when unknown.
	ValidUntil(ctx context.Context, topic string, offsets, ends map[int32]int64) (time.Time, string, error)
}

// PaimonRetention says how long a Paimon snapshot stays readable. A
// PaimonTable that implements it too gives the candidate its ValidUntil.
// *paimon.Table implements it.
type PaimonRetention interface {
	// ValidUntil returns the earliest moment snapshot id may expire and a
	// reason naming the table and the rule; the zero time (with why) when
	// unknown (not committed yet, pinned by a consumer).
	ValidUntil(ctx context.Context, id int64) (time.Time, string, error)
}

// PaimonMatches reports whether the table of SQL name sqlName (a
// PaimonTable's SQLName, db.table) is the one a Paimon source of table dir
// reads: any source when dir is unknown, else the one whose dir ends in
// <db>.db/<table>.
func PaimonMatches(sqlName, dir string) bool {
	db, table, ok := strings.Cut(strings.SplitN(sqlName, "$", 2)[0], ".")
	if ok && dir != "" {
		return strings.HasSuffix(strings.TrimSuffix(dir, "/"), "/"+db+".db/"+table)
	}
	return true
}

// PaimonTableName derives a table's SQL identifier (db.table) from its
// directory …/<db>.db/<table>, as a Paimon source's split names it; ""
// when the directory does not have that shape.
func PaimonTableName(dir string) string {
	parts := strings.Split(strings.TrimSuffix(dir, "/"), "/")
	if n := len(parts); n >= 2 && len(parts[n-2]) > 3 && strings.HasSuffix(parts[n-2], ".db") && parts[n-1] != "" {
		return strings.TrimSuffix(parts[n-2], ".db") + "." + parts[n-1]
	}
	return ""
}

// Kafka offset markers, as KafkaSource writes them into a split that has
// not started reading (KafkaPartitionSplit): the start is resolved when
// the reader starts.
const (
	MarkerLatest    int64 = -1 // LATEST_OFFSET: the end offset
	MarkerEarliest  int64 = -2 // EARLIEST_OFFSET: the log start
	MarkerCommitted int64 = -3 // COMMITTED_OFFSET: the group's commit
)

// ErrAboveEnd is wrapped by [KafkaStart]'s error for an offset above the
// partition's end offset: no reader can start there (the topic was
// truncated, or deleted and recreated). Check it with errors.Is.
var ErrAboveEnd = errors.New("livecheck: offset above the end offset")

// Kafka is what [KafkaStart] made of one partition's offset.
type Kafka struct {
	// Offset is where the partition starts today: the offset itself when
	// the log holds it, the log start when records below it were deleted,
	// a marker's resolution (MarkerEarliest: the log start, MarkerLatest:
	// the end offset); MarkerCommitted unchanged (Resolved false).
	Offset int64
	// Lost counts the records between the offset and the log start that
	// were deleted before anyone read them (0 when none). With UpTo it is
	// the offsets below the log start (0..logStart-1), which may or may
	// not have been read before they were deleted.
	Lost int64
	// UpTo: Lost is a bound, not a count. The start says nothing of the
	// partition was read (MarkerEarliest, or no commit at all) but not
	// since when: every offset below the log start may have been deleted
	// unread (possible loss counts as loss).
	UpTo bool
	// Resolved: a marker was resolved against the log.
	Resolved bool
	// Skipped: Lost counts records still in the log that the start skips,
	// LostFrom..Offset-1 (a latest marker resolved against the snapshot's
	// time, [KafkaLatestAt]), not records deleted below the log start.
	Skipped  bool
	LostFrom int64
}

// KafkaLatestAt is the Kafka start rule for a split still at the latest
// marker (KafkaSource before FLINK-28303 checkpointed it so until the
// reader had read a record) when the offset at the snapshot's time is
// known (atSnapshot: the first offset written at or after it, by
// ListOffsets by time): the restored reader seeks today's end offset, so
// every record from atSnapshot (or the log start, when above it) to the
// end is skipped, and counts as lost (Skipped, LostFrom); the records
// deleted between atSnapshot and the log start, never read, count too.
func KafkaLatestAt(atSnapshot, logStart, logEnd int64) Kafka {
	from := min(max(atSnapshot, 0), logEnd)
	return Kafka{Offset: logEnd, Resolved: true, Lost: logEnd - from, Skipped: logEnd > from, LostFrom: from}
}

// KafkaStart is the Kafka start rule, the one every resolver grades a
// partition's next offset to read by against the live log [logStart,
// logEnd]:
//   - an offset above the end offset: an error wrapping ErrAboveEnd;
//   - an offset below the log start: the log start, and Lost the records in
//     between (retention or DeleteRecords removed them unread);
//   - an offset inside the log: itself;
//   - MarkerEarliest (a partition nothing was read of: a KafkaSource
//     split that had not started, a partition without a commit): the log
//     start, resolved; with the log start above 0 the offsets below it,
//     up to logStart of them, count as lost (UpTo): whoever was to read
//     the partition from its start read none of them, and deleted records
//     may have been there when it started (possible loss counts as loss;
//     KafkaSource commits asynchronously and only logs a failed commit,
//     so a missing commit proves nothing either);
//   - MarkerLatest: the end offset, resolved, nothing lost when no time
//     is known; with the snapshot's time the caller grades it by
//     [KafkaLatestAt] instead (the records written since the snapshot are
//     skipped: lost);
//   - MarkerCommitted: unresolved; the caller substitutes the group's
//     commit, when it knows one, and asks again (without a commit, the
//     partition is one nothing was read of: MarkerEarliest).
//
// Any other negative offset is an error.
func KafkaStart(offset, logStart, logEnd int64) (Kafka, error) {
	switch {
	case offset == MarkerEarliest:
		return Kafka{Offset: logStart, Lost: logStart, UpTo: logStart > 0, Resolved: true}, nil
	case offset == MarkerLatest:
		return Kafka{Offset: logEnd, Resolved: true}, nil
	case offset == MarkerCommitted:
		return Kafka{Offset: offset}, nil
	case offset < 0:
		return Kafka{}, fmt.Errorf("livecheck: offset %d is neither an offset nor a marker", offset)
	case offset > logEnd:
		return Kafka{Offset: offset}, fmt.Errorf("%w: offset %d, end offset %d", ErrAboveEnd, offset, logEnd)
	case offset < logStart:
		return Kafka{Offset: logStart, Lost: logStart - offset}, nil
	}
	return Kafka{Offset: offset}, nil
}

// PostgresSlots reads a PostgreSQL server's logical replication slots
// (pg_replication_slots). Package pgcheck implements it with pgx.
type PostgresSlots interface {
	// Slot returns the slot named name; ok is false when the server has
	// no such slot.
	Slot(ctx context.Context, name string) (s PostgresSlot, ok bool, err error)
}

// PostgresSlot is one row of pg_replication_slots.
type PostgresSlot struct {
	Name string
	// ConfirmedFlushLSN is the position the consumer confirmed: the server
	// streams a logical slot from max(requested, confirmed_flush_lsn), so a
	// start behind it is silently forwarded. RestartLSN is the oldest WAL
	// the slot keeps. Both as numbers (0 when null).
	ConfirmedFlushLSN, RestartLSN int64
	// WALStatus is reserved, extended, unreserved or lost (PostgreSQL 13+;
	// "" before): lost means the WAL the slot needs is gone and streaming
	// from it fails.
	WALStatus string
	// SafeWALSize is how many bytes of WAL can still be written before the
	// slot is in danger of losing WAL (max_slot_wal_keep_size); nil when
	// unlimited or not reported.
	SafeWALSize *int64
	// Active: a walsender streams from the slot now (the old job may still
	// run).
	Active bool
}

// MySQLBinlogs reads what a MySQL or MariaDB server still holds of its
// binary log. Package mysqlcheck implements it with go-sql-driver/mysql.
type MySQLBinlogs interface {
	// Binlogs returns the server's binary log files and retention.
	Binlogs(ctx context.Context) (MySQLServer, error)
	// GTIDSubset reports whether every GTID of sub is in set
	// (GTID_SUBSET, MySQL only).
	GTIDSubset(ctx context.Context, sub, set string) (bool, error)
}

// MySQLServer is what Binlogs found.
type MySQLServer struct {
	// Version is @@version; MariaDB reports a MariaDB server (no
	// gtid_purged, domain-server-seq GTIDs).
	Version string
	MariaDB bool
	// Files are the binary log files SHOW BINARY LOGS lists, oldest first.
	Files []string
	// GTIDPurged is @@global.gtid_purged (MySQL; "" on MariaDB).
	GTIDPurged string
	// ExpireSeconds is binlog_expire_logs_seconds, or expire_logs_days in
	// seconds on servers without it; 0 when files never expire by age.
	ExpireSeconds int64
	// ExpireFrom names the variable ExpireSeconds came from.
	ExpireFrom string
}

// Checkers are the live systems a Flink snapshot's source positions are
// checked against, one per source kind; a nil checker leaves that kind
// unchecked (and says so).
type Checkers struct {
	// Kafka checks KafkaSource positions against the cluster's logs.
	Kafka KafkaLog
	// Paimon checks the Paimon source reading this table (PaimonMatches).
	Paimon PaimonTable
	// Postgres checks Flink CDC Postgres sources against the server's
	// replication slot PostgresSlot (slot.name: the state does not record
	// it).
	Postgres     PostgresSlots
	PostgresSlot string
	// MySQL checks Flink CDC MySQL sources' binlog positions.
	MySQL MySQLBinlogs
	// KafkaSink answers for a KafkaSink's pending transactions when the
	// sink writes to another cluster than the sources read; nil: the Kafka
	// checker answers when it implements KafkaTransactions (SinkChecker).
	KafkaSink KafkaTransactions
	// KafkaSinkTimeout is the sink's transaction timeout assumed when no
	// checker answers (the deadline of a sink-not-checked warning);
	// DefaultKafkaTransactionTimeout when 0.
	KafkaSinkTimeout time.Duration
	// KafkaSinkPrefix is the KafkaSink's transactional id prefix
	// (setTransactionalIdPrefix): with it, a stateless start at committed
	// offsets lists the sink's transactions (ListTransactions) and finds
	// those the old job left open or aborted.
	KafkaSinkPrefix string
	// KafkaSinkTopics are the topics the KafkaSink writes (--kafka-sink-
	// topic): a lost transaction whose partitions the brokers no longer
	// list (a completed abort clears them) is reported as writing
	// partitions of these. Nil: the new job's plan's (a Kafka sink table's
	// topic option, jobgraph.JobOperator.SinkTopics) when it has them,
	// else reported as not known.
	KafkaSinkTopics []string
	// PaimonSink is the table a Paimon sink writes: a snapshot's Paimon
	// committer's pending checkpoints are decided from its snapshots by
	// commit user (CheckPaimonSink); nil leaves them unchecked.
	PaimonSink PaimonSinkTable
}
