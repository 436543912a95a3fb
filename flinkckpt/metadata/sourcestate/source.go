package sourcestate

// Kind is the kind of a source, as recognised from its state.
type Kind string

// Source kinds.
const (
	KindKafka    Kind = "kafka"     // KafkaSource (flink-connector-kafka), or the legacy FlinkKafkaConsumer
	KindPaimon   Kind = "paimon"    // Paimon's FLIP-27 source, MonitorSource or legacy MonitorFunction
	KindMySQLCDC Kind = "mysql-cdc" // Flink CDC's MySQL source
	// KindPostgresCDC (postgres.go): Flink CDC's Postgres source.
	KindUnknown Kind = "unknown" // a source whose state is not recognised: never guessed
)

// State is the source state of a checkpoint or savepoint: one Source per
// operator that holds source state, in the _metadata's operator order.
type State struct {
	CheckpointID int64
	Sources      []Source
}

// Source is the state of one source operator.
type Source struct {
	// OperatorID is the operator id (32 hex characters); Name and UID are
	// recorded from _metadata version 5 on.
	OperatorID string
	Name, UID  string
	Kind       Kind
	// SplitVersion is the split serializer version of the reader state's
	// splits; -1 when the reader state holds none.
	SplitVersion int32
	// Coordinator is the enumerator checkpoint; nil when the operator has
	// no coordinator state (or it is not a source coordinator's).
	Coordinator *Coordinator
	// Splits are the reader state's elements, every subtask's, in subtask
	// order.
	Splits []RawSplit
	// The decoded state of a recognised kind; nil otherwise.
	Kafka  *KafkaState
	Paimon *PaimonState
	MySQL  *MySQLState
	// Postgres is Flink CDC's Postgres source (flink-cdc-base).
	Postgres *PostgresState
	// Notes say, in one line each, what was found but not used: why a
	// source is unknown, partitions without reader state, a phase without
	// a position.
	Notes []string
	// Err is set when the operator's state could not be read or decoded
	// (the other operators are decoded all the same).
	Err error
}

// KafkaState is a KafkaSource's state.
type KafkaState struct {
	// Splits are the readers' splits: the next offset to read per
	// partition.
	Splits []KafkaSplit
	// Enumerator is nil when there is no coordinator state.
	Enumerator *KafkaEnumerator
}

// PaimonState is the state of a Paimon source.
type PaimonState struct {
	// Splits are the readers' unfinished splits (ContinuousFileStoreSource).
	Splits []PaimonSplit
	// Enumerator is the ContinuousFileStoreSource enumerator checkpoint.
	Enumerator *PaimonEnumerator
	// Monitor holds MonitorSource's reader state (consumer-id with
	// consumer.mode exactly-once, Paimon 1.0+).
	Monitor []MonitorSplit
	// LegacyNextSnapshots holds the legacy MonitorFunction's "next-snapshot"
	// list state (Paimon 0.9 and older).
	LegacyNextSnapshots []int64
}

// MySQLState is the state of a Flink CDC MySQL source.
type MySQLState struct {
	// Splits are the readers' splits: snapshot splits and the binlog split.
	Splits []MySQLSplit
	// Enumerator is nil when there is no coordinator state.
	Enumerator *MySQLEnumerator
}
