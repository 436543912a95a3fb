package paimon

// Codes of the warnings the resolver and the consumer reset put on their
// results (see [resume.Warning]; the table in package resume's doc lists
// every code).
const (
	// WarnRollbackSuspected: snapshots below nextSnapshot were committed
	// after the consumer file was last written (a rollback re-committed ids
	// the job had passed): possible loss, graded DataLoss, with the lowest
	// such id offered as Position.ReplayFrom.
	WarnRollbackSuspected = "paimon.rollback-suspected"
	// WarnExpiredBeforeRead: snapshots the consumer had not read expired.
	WarnExpiredBeforeRead = "paimon.expired-before-read"
	// WarnExpirationUnreadable: consumer.expiration-time does not parse.
	WarnExpirationUnreadable = "paimon.expiration-unreadable"
	// WarnConsumerExpired: the consumer has been idle longer than
	// consumer.expiration-time; the next commit's expiry deletes it.
	WarnConsumerExpired = "paimon.consumer-expired"
	// WarnConsumerExpiring: the consumer is idle close to its expiration.
	WarnConsumerExpiring = "paimon.consumer-expiring"
	// WarnIgnoreProgress: consumer.ignore-progress is set; the launch pins
	// scan.snapshot-id.
	WarnIgnoreProgress = "paimon.ignore-progress"
	// WarnNoStateRestore: restored Flink state wins over the consumer file,
	// so the job must start without -s.
	WarnNoStateRestore = "paimon.no-state-restore"
	// WarnStartInFuture: the start time (Options.StartTime) is after now:
	// the job skips what is committed until then.
	WarnStartInFuture = "paimon.start-in-future"
	// WarnStartAtNextCommit: every snapshot is older than the start time.
	WarnStartAtNextCommit = "paimon.start-at-next-commit"
	// WarnTimeStartLag: a start by time skips what a lagging job had not
	// read.
	WarnTimeStartLag = "paimon.time-start-lag"
	// WarnConsumerIDChangesOperator: adding consumer-id changes the source
	// operator, so a savepoint without it cannot restore that source.
	WarnConsumerIDChangesOperator = "paimon.consumer-id-changes-operator"
	// WarnChangelogOnlyStart: the start id exists only as a long-lived
	// changelog.
	WarnChangelogOnlyStart = "paimon.changelog-only-start"
	// WarnBindConsumerFirst: create the consumer before starting the job.
	WarnBindConsumerFirst = "paimon.bind-consumer-first"
	// WarnNoConsumerExpiration: consumer.expiration-time is not set in the
	// table's options (a writer's dynamic option can still set it).
	WarnNoConsumerExpiration = "paimon.no-consumer-expiration"
	// WarnLossByTag: a tag proves that records of expired ids are lost.
	WarnLossByTag = "paimon.loss-by-tag"
	// WarnPossibleLoss: expired ids may have held records after the start
	// time; loss cannot be ruled out.
	WarnPossibleLoss = "paimon.possible-loss"
	// WarnConsumerFileUnusable: a reset replaces an unreadable consumer
	// file.
	WarnConsumerFileUnusable = "paimon.consumer-file-unusable"
	// WarnConsumerRecentlyModified: the consumer file was modified within
	// DefaultResetQuietPeriod: a job may still be running.
	WarnConsumerRecentlyModified = "paimon.consumer-recently-modified"
	// WarnWrittenModeAssumed: nothing says which consumer.mode the old job
	// ran with; exactly-once is assumed (Options.WrittenMode).
	WarnWrittenModeAssumed = "paimon.written-mode-assumed"
	// WarnConsumerLagsOutput: the consumer file may lag what the old job
	// emitted: snapshots nextSnapshot..latest may be read again (Replay).
	WarnConsumerLagsOutput = "paimon.consumer-lags-output"
	// WarnChangelogIgnored: changelog/ holds long-lived changelogs, but the
	// table's options say Paimon does not read them.
	WarnChangelogIgnored = "paimon.changelog-ignored"
	// WarnVersionAssumed: the grade or the start depends on the Paimon
	// version, which was not declared (Options.PaimonVersion); the newest
	// is assumed.
	WarnVersionAssumed = "paimon.version-assumed"
	// WarnOptionUnreadable: a table option does not parse; its default is
	// used.
	WarnOptionUnreadable = "paimon.option-unreadable"
	// WarnScanOptionConflict: the table's options set a start option
	// (scan.timestamp-millis, scan.tag-name, …) that Paimon refuses beside
	// the launch's scan.snapshot-id: the job would fail to start.
	WarnScanOptionConflict = "paimon.scan-option-conflict"
)
