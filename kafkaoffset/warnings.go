package kafkaoffset

// Codes of the warnings the resolver puts on its candidates (see
// [resume.Warning]; the table in package resume's doc lists every code).
const (
	// WarnNoCommits: the group has no commits on the topics; every
	// partition starts by time.
	WarnNoCommits = "kafka.no-commits"
	// WarnUncommittedPartitions: partitions without a commit start at the
	// log start offset, as Flink starts newly discovered partitions.
	WarnUncommittedPartitions = "kafka.uncommitted-partitions"
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
