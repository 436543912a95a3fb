package salvage

// Codes of the warnings the salvage resolver puts on its candidates (see
// [resume.Warning]; the table in package resume's doc lists every code).
const (
	// WarnDataLoss: records between a source's salvaged position and what
	// the live system still holds are gone (Kafka records deleted, Paimon
	// snapshots expired).
	WarnDataLoss = "salvage.data-loss"
	// WarnNotChecked: a source's position was not checked against the live
	// system (no checker for it): whether its data is still there is
	// unknown.
	WarnNotChecked = "salvage.not-checked"
	// WarnUnresolvedMarker: Kafka partitions the old job had not started
	// reading (earliest, latest or committed marker) whose start could not
	// be resolved to an offset; they start where the connector starts
	// unlisted partitions.
	WarnUnresolvedMarker = "salvage.unresolved-marker"
	// WarnResolvedMarker: Kafka partitions the old job had not started
	// reading start at today's log start or end offset, or at the group's
	// commit today (committed marker, with Options.KafkaGroup).
	WarnResolvedMarker = "salvage.resolved-marker"
	// WarnPartlyReadSnapshot: a Paimon source restarts at the snapshot of
	// an unfinished split: records of it already emitted are read again.
	WarnPartlyReadSnapshot = "salvage.partly-read-snapshot"
	// WarnSnapshotPhase: a MySQL CDC source was still reading its tables'
	// initial snapshot: it has no binlog position and reads everything
	// again (scan.startup.mode=initial).
	WarnSnapshotPhase = "salvage.mysql-snapshot-phase"
	// WarnSeveralSources: the job has several sources whose connector
	// options collide; each source's options are in the position.
	WarnSeveralSources = "salvage.several-sources"
	// WarnSeveralTopics: a KafkaSource read several topics, and no Flink
	// SQL option can start it at its offsets (scan.startup.specific-offsets
	// covers one topic): the launch has no start for it, graded
	// [resume.DataLoss]; the warning gives the DataStream
	// OffsetsInitializer.offsets form and each topic's specific offsets.
	WarnSeveralTopics = "salvage.several-topics"
	// WarnSourceNotes: what the source state held but the position leaves
	// out (partitions not assigned yet, tables being snapshotted).
	WarnSourceNotes = "salvage.source-notes"
	// WarnConsumerOverrides: a salvaged Paimon MonitorSource reads with a
	// consumer-id: a new job keeping it starts at the consumer file, not at
	// the launch's scan.snapshot-id, and the file follows every checkpoint
	// the old job completed, so snapshots between may be skipped: graded
	// data-loss until the consumer is bound (Options.PaimonConsumer); the
	// warning gives the reset_consumer form.
	WarnConsumerOverrides = "salvage.consumer-overrides"
	// WarnPostgresNoSpecificOffset: the Postgres CDC connector cannot be
	// started at an LSN; the launch starts at the replication slot's
	// confirmed_flush_lsn, to be advanced to the salvaged position first.
	WarnPostgresNoSpecificOffset = "salvage.postgres-no-specific-offset"
	// WarnSinkTransactionsPending: a Sink V2 committer in the snapshot
	// held committables (prepared transactions) it had not committed: a
	// stateless start never commits them, so their output is lost unless
	// the old job committed them before it stopped. Graded
	// [resume.DataLoss]; [Options.SinkCommitted] asserts they were
	// committed.
	WarnSinkTransactionsPending = "salvage.sink-transactions-pending"
	// WarnSinkCommittedAsserted: a committer held prepared transactions,
	// and [Options.SinkCommitted] asserts the old job committed every one
	// of them: the grade stands on that assertion.
	WarnSinkCommittedAsserted = "salvage.sink-committed-asserted"
	// WarnSinkCommittedByStop: a committer held prepared transactions of a
	// savepoint taken by a completed stop-with-savepoint (flink stop): the
	// job ended only after its committers committed the savepoint's
	// transactions (StreamTask waits for the synchronous savepoint's
	// notifyCheckpointComplete), so none is lost. The warning names what
	// proved the stop: the savepoint's properties (SUSPEND or TERMINATE)
	// or [Options.StopProof].
	WarnSinkCommittedByStop = "salvage.sink-committed-by-stop"
	// WarnLegacyStopOffsets: the savepoint of a stop-with-savepoint holds
	// the legacy FlinkKafkaConsumer's offsets, which are those of the
	// checkpoint before the stop (Flink stops the source before the
	// savepoint, and FlinkKafkaConsumerBase.snapshotState leaves its state
	// as it was once the source is closed), while the job's output ran to
	// the stop: the records between are read again. Graded
	// [resume.Replay].
	WarnLegacyStopOffsets = "salvage.legacy-stop-offsets"
	// WarnSinkCommittedChecked: a Paimon committer held committables, and
	// the sink's table (Live.PaimonSink) shows every one committed: its
	// commit user's latest snapshot has a commitIdentifier at or above
	// each checkpoint (Paimon's own rule).
	WarnSinkCommittedChecked = "salvage.sink-committed-checked"
	// WarnSinkNotChecked: a committer held committables and no sink was
	// asked whether the old job committed them (no checker for its kind:
	// Live.Kafka/KafkaSink, Live.PaimonSink; or a committer resumekit does
	// not decode): the data-loss grade stands on that not being known. The
	// warning says what is at stake: the sink may prove them committed;
	// if they are not, only a restore of the snapshot commits them, a
	// KafkaSink's only until an assumed deadline (the snapshot's time + the
	// assumed transaction timeout), after which every start loses them.
	WarnSinkNotChecked = "salvage.sink-not-checked"
)
