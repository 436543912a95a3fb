package kafkaoffset

// Codes of the warnings the resolver puts on its candidates (see
// [resume.Warning]; the table in package resume's doc lists every code).
const (
	// WarnNoCommits: the group has no commits on the topics; every
	// partition starts by time.
	WarnNoCommits = "kafka.no-commits"
	// WarnSinkTransactions: the job's KafkaSink (Options.SinkPrefix) has
	// transactions still open, or aborted after the group's last commit:
	// their output is lost to a start at the commits (data loss).
	WarnSinkTransactions = "kafka.sink-transactions"
	// WarnUncommittedPartitions: partitions without a commit start at the
	// log start offset, as Flink starts newly discovered partitions.
	WarnUncommittedPartitions = "kafka.uncommitted-partitions"
	// WarnUncommittedTruncated: partitions without a commit whose log
	// start is above 0: the deleted records may never have been read, so
	// they count as lost (data loss).
	WarnUncommittedTruncated = "kafka.uncommitted-partition-truncated"
	// WarnStartAtEnd: partitions with no record at or after the start time
	// start at the end offset.
	WarnStartAtEnd = "kafka.start-at-end"
	// WarnPartitionEmptied: partitions whose every record was deleted; loss
	// cannot be ruled out.
	WarnPartitionEmptied = "kafka.partition-emptied"
	// WarnStartInFuture: the start time is after now.
	WarnStartInFuture = "kafka.start-in-future"
	// WarnRewindLag: a start by time skips what the old job had not read
	// if it lagged more than the rewind.
	WarnRewindLag = "kafka.rewind-lag"
	// WarnNotObserved: the group was not observed for being stopped.
	WarnNotObserved = "kafka.not-observed"
	// WarnSeveralTopics: specific-offsets options cover one topic only.
	WarnSeveralTopics = "kafka.several-topics"
)

// Codes of the warnings about transactions, commits, compaction and times.
const (
	// WarnOpenTransaction: partitions have an open transaction (last
	// stable offset below the high watermark); a read_committed job stops
	// there until it ends.
	WarnOpenTransaction = "kafka.open-transaction"
	// WarnCommitSourceAssumed: starts at commits assume the old job
	// committed on completed checkpoints, not by auto-commit.
	WarnCommitSourceAssumed = "kafka.commit-source-assumed"
	// WarnIdleIndistinguishable: every commit equals its end offset, so a
	// running idle job cannot be told apart from a stopped one.
	WarnIdleIndistinguishable = "kafka.idle-indistinguishable"
	// WarnTombstonesMayBeGone: starts on compacted topics are further
	// behind than delete.retention.ms; deletes may be missed (data loss
	// under Options.Strict).
	WarnTombstonesMayBeGone = "kafka.tombstones-may-be-gone"
	// WarnConfigsUnread: the topics' configuration could not be read;
	// cleanup.policy=delete and CreateTime are assumed.
	WarnConfigsUnread = "kafka.configs-unread"
	// WarnFutureTime: a commit or record time is after now; At counts it
	// as now.
	WarnFutureTime = "kafka.future-time"
)
