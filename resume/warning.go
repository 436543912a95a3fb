package resume

import (
	"fmt"
	"slices"
)

// Warning is a risk that does not disqualify a candidate: a stable Code a
// tool can branch on, and a Text for people. Codes are namespaced by source
// ("kafka.not-observed", "flink.older-than-broken"); the package doc lists
// every code resumekit emits. Codes are stable within v1: a code is never
// renamed or reused for another meaning.
type Warning struct {
	// Code identifies the kind of risk, e.g. "kafka.start-at-end".
	Code WarningCode `json:"code"`
	// Text says what the risk is for this candidate, in one line.
	Text string `json:"text"`
}

// WarningCode is a warning's stable code, namespaced by the package that
// emits it ("chain.", "flink.", "kafka.", "paimon.", "salvage.", …). A
// reader of a stored document treats a code it does not know as a warning
// it cannot interpret.
//
// Every [Warning] carries a code a tool can branch on; the text is for
// people and may change. Codes are namespaced by the package that emits
// them and are stable within v1 (never renamed, never reused).
//
//	code                                   emitted when
//	chain.newer-progress                   another resolver shows newer progress than the chosen position
//	chain.state-starts-empty               the chosen position does not restore operator state
//	chain.source-failed                    a resolver failed and the candidate was chosen anyway
//	chain.short-validity                   the chosen position's input may leave retention within Policy.MinValidity
//	chain.proved-lost                      another candidate proved input this position starts below gone: graded data-loss
//	chain.other-source                     another source's candidate (an input the chosen one does not start) found this
//	flink.older-than-broken                newer snapshots completed but are broken: duplicates downstream
//	flink.older-than-pathless              (no longer emitted: a newest snapshot without Flink path fails)
//	flink.older-than-unverified            newer snapshots could not be verified: duplicates downstream
//	flink.older-than-refused               newer snapshots cannot serve the intent (upgrade): duplicates downstream
//	flink.not-checked                      a source of the restored snapshot was not checked against its live system
//	flink.source-data-loss                 a live check found input a restored source had not read gone
//	flink.sink-not-checked                 a sink committer's pending work was not checked against its sink (assumed valid_until)
//	flink.sink-output-lost                 the sink aborted transactions a restore would commit: their output is lost (data-loss)
//	flink.sink-unknown                     the sink cannot say what became of a pending transaction (graded as unchecked)
//	flink.sink-committed-asserted          a sink committer held pending work; the caller asserted the old job committed it
//	flink.paimon-restore-fails-once        Paimon's committer commits the restored checkpoint the table lacks, then fails the new job once on purpose
//	kafka.sink-transactions                the KafkaSink's transactions are open or aborted after the group's last commit: data-loss
//	chain.sink-pending                     a start at or above a snapshot's source positions whose sink output is pending there: inherits the loss
//	flink.kafka-out-of-range               a restored KafkaSource below the log start: launched with earliest-offset
//	flink.older-than-failing-restore       newer snapshots would fail to restore (a Paimon source's snapshot expired)
//	flink.mariadb-gtids-not-checked        a MySQL CDC position with GTIDs on MariaDB: only its binlog file was checked
//	flink.drained-savepoint                the savepoint was taken by stop --drain
//	flink.verification-off                 referenced files were not checked (SkipVerify)
//	flink.unverified-references            some referenced files could not be checked (AllowUnverified)
//	flink.path-from-location               the -s path comes from the storage URL, not the snapshot
//	flink.keep-until-first-checkpoint      NO_CLAIM: keep the snapshot until the new job's first checkpoint
//	flink.owned-by-new-job                 CLAIM (changelog snapshots): the new job owns and deletes the snapshot
//	flink.keep-while-referenced            LEGACY or Flink < 1.15: the new job's checkpoints may use its files
//	flink.claim-flag-assumed               CLAIM or LEGACY without a known Flink version: the run line says -claimMode (1.20+)
//	flink.claim-mode-not-honoured          CLAIM or LEGACY for an application cluster: its command line cannot name it, it restores NO_CLAIM
//	flink.claim-native-savepoint           CLAIM from a native RocksDB savepoint: the new job's checkpoints may not restore
//	flink.restarted-run                    a lower checkpoint id in the job dir is newer: the newest run was chosen
//	flink.lineage-over-time                a savepoint of the job looks newer but has a lower id: the id decided
//	flink.near-tie                         chosen over another snapshot by modification times too close to order them
//	flink.savepoint-while-running          the savepoint was taken while the job ran on, and it checkpointed later
//	flink.checkpoint-id-mismatch           the _metadata's checkpoint id is not its chk-<n> dir's (a hand copy)
//	flink.kind-unknown                     a v2/v3 _metadata outside chk-<n>/savepoint-… dirs: kind unknown
//	flink.unaligned                        an unaligned checkpoint: the same job, unchanged, same Flink minor version only (rescaling works)
//	flink.finished-operators               the snapshot records finished operators
//	flink.savepoint-preferred              an upgrade chose a savepoint over newer checkpoints
//	flink.not-observed                     the newest _metadata is younger than a minute: the job may still run
//	flink.fixed-job-id                     a fixed application-mode job id: JobResultStore may ignore a resubmission
//	flink.dropped-state                    the new job drops some operators' state (--allowNonRestoredState): exact-input at best
//	flink.dropped-source-state             the dropped state includes a source enumerator's: input may be skipped (data-loss)
//	flink.conditional-restore              state goes to operators the new job creates only under unsettled conditions
//	flink.unknown-operators                state of operators the description does not name (uid-less?): restored or the restore fails
//	flink.finished-vertices                a changed job restores finished operators: its chaining (not known) may fail the restore
//	flink.unaligned-changed-job            in-flight data into a changed job: its chaining (not known) may fail the restore
//	flink.older-than-incompatible          the new job cannot restore newer snapshots: read again per source (lost where gone), duplicates downstream
//	flink.older-than-unreadable            the new job's Flink cannot read newer snapshots' _metadata version: duplicates downstream
//	flink.version-assumed                  no --flink-version and a _metadata only Flink 2.x reads: a 1.x rollback would fail
//	flink.major-upgrade                    a Flink 1.x snapshot restored by Flink 2.x: state compatibility not guaranteed
//	flink.upgrade-drops-state              legacy SourceFunction/SinkFunction state Flink 2.x has no operator for: dropped (data-loss)
//	flink.kryo-state                       state Kryo 2 serialized, restored by Flink 2.x (Kryo 5): test the restore of its classes
//	flink.legacy-stop-offsets              a stop-with-savepoint's FlinkKafkaConsumer offsets are the checkpoint's before: a restore reads the records since again (replay)
//	kafka.no-commits                       the group has no commits on the topics: every partition starts by time
//	kafka.uncommitted-partitions           partitions without a commit start at the log start offset
//	kafka.uncommitted-partition-truncated  partitions without a commit had records deleted: possibly never read (data-loss)
//	kafka.start-at-end                     partitions with no record at or after the time start at the end offset
//	kafka.partition-emptied                every record of a partition was deleted: loss cannot be ruled out
//	kafka.start-in-future                  the start time is after now
//	kafka.rewind-lag                       a start by time skips what a lagging job had not read
//	kafka.not-observed                     the old job was not observed for being stopped
//	kafka.several-topics                   specific-offsets options cover one topic only
//	kafka.open-transaction                 a transaction is open: a read_committed job stops at the last stable offset
//	kafka.commit-source-assumed            starts at commits assume the old job committed on completed checkpoints
//	kafka.idle-indistinguishable           every commit equals its end offset: a running idle job cannot be told apart
//	kafka.tombstones-may-be-gone           a compacted topic's start is further behind than delete.retention.ms
//	kafka.configs-unread                   topic configs unreadable: cleanup.policy=delete and CreateTime assumed
//	kafka.future-time                      a commit or record time after now counts as now in At
//	paimon.rollback-suspected              ids below nextSnapshot were committed after the consumer's last progress: possible loss
//	paimon.expired-before-read             snapshots the consumer had not read expired: data loss
//	paimon.expiration-unreadable           consumer.expiration-time does not parse
//	paimon.consumer-expired                the consumer is idle longer than consumer.expiration-time
//	paimon.consumer-expiring               the consumer is idle close to consumer.expiration-time
//	paimon.ignore-progress                 consumer.ignore-progress is set: the launch pins scan.snapshot-id
//	paimon.no-state-restore                start without -s: restored state wins over the consumer file
//	paimon.start-in-future                 the start time is after now
//	paimon.start-at-next-commit            every snapshot is older than the start time
//	paimon.time-start-lag                  a start by time skips what a lagging job had not read
//	paimon.consumer-id-changes-operator    adding consumer-id changes the source operator
//	paimon.changelog-only-start            the start id exists only as a long-lived changelog
//	paimon.bind-consumer-first             create the consumer before starting the job
//	paimon.no-consumer-expiration          consumer.expiration-time is not set in the table's options
//	paimon.loss-by-tag                     a tag proves that records of expired ids are lost
//	paimon.possible-loss                   expired ids may have held records after the start time
//	paimon.consumer-file-unusable          a reset replaces an unreadable consumer file
//	paimon.consumer-recently-modified      the consumer file changed within the last minute: a job may be running
//	paimon.written-mode-assumed            the old job's consumer.mode is not known: exactly-once assumed
//	paimon.consumer-lags-output            the old job may have emitted past its consumer file: snapshots next..latest read again
//	paimon.changelog-ignored               changelog/ holds changelogs the table's options say are not read
//	paimon.version-assumed                 the grade depends on the Paimon version, which was not declared
//	paimon.option-unreadable               a table option does not parse: its default is used
//	paimon.scan-option-conflict            a table option Paimon refuses beside the launch's scan.snapshot-id: the job would not start
//	record.broken                          a record's snapshot (or HA pointer) is broken in storage: its recovery fails
//	record.gone                            a record's snapshot is not in storage: its recovery fails
//	record.older                           a record restores a snapshot older than the chosen one: input read again
//	record.differs                         a record restores a complete snapshot other than the chosen one
//	record.missing                         a record holds nothing to restore for the job
//	record.job-running                     a JobManager still runs the job (REST)
//	record.finished-cleanly                the JobResultStore says the job finished: stop-with-savepoint completed
//	record.job-terminal                    the JobResultStore says the job failed or was cancelled: HA will not restart it
//	record.snapshot-cleanup                the chosen snapshot is a FlinkStateSnapshot due for the operator's history cleanup
//	record.unreadable                      a record could not be read or is malformed: not used
//	salvage.data-loss                      records or snapshots a salvaged source had not read are gone
//	salvage.consumer-overrides             a salvaged MonitorSource's consumer file overrides scan.snapshot-id (data-loss until bound): bind it with reset_consumer
//	salvage.postgres-no-specific-offset    the Postgres CDC connector starts at the slot, not an LSN: advance the slot first
//	salvage.not-checked                    a salvaged position was not checked against the live system
//	salvage.unresolved-marker              Kafka partitions the old job had not started have no offset
//	salvage.resolved-marker                Kafka partitions the old job had not started start at today's log start, end or group commit
//	salvage.partly-read-snapshot           a Paimon snapshot was partly read: its emitted records are read again
//	salvage.mysql-snapshot-phase           a MySQL CDC source had no binlog position yet: it snapshots again
//	salvage.several-sources                several sources' connector options collide: each keeps its own
//	salvage.several-topics                 a KafkaSource read several topics: no SQL option starts it at its offsets (data-loss)
//	salvage.source-notes                   what a source's state held but its position leaves out
//	salvage.sink-transactions-pending      a sink committer held prepared transactions a stateless start never commits (data-loss)
//	salvage.sink-committed-asserted        a sink committer held prepared transactions; the caller asserted the old job committed them
//	salvage.sink-committed-by-stop         a sink committer held a completed stop-with-savepoint's transactions, committed before the job ended (the proof is named)
//	salvage.sink-not-checked               a sink committer held committables no sink was asked about: what is at stake, a KafkaSink's assumed deadline for a restore
//	salvage.legacy-stop-offsets            a stop-with-savepoint's FlinkKafkaConsumer offsets are the checkpoint's before: the records since are read again (replay)
//	salvage.sink-committed-checked         a Paimon sink committer held committables its table shows committed (commitIdentifier by commit user)
//
// A code is a [WarningCode]; each is also a constant of the emitting package
// (flinkckpt.WarnOlderThanBroken, kafkaoffset.WarnNotObserved, …);
// [Candidate.HasWarning] tests for one.
type WarningCode string

// Warnf returns a Warning with the given code and the formatted text.
func Warnf(code WarningCode, format string, args ...any) Warning {
	return Warning{Code: code, Text: fmt.Sprintf(format, args...)}
}

// String returns "code: text".
func (w Warning) String() string {
	if w.Code == "" {
		return w.Text
	}
	return string(w.Code) + ": " + w.Text
}

// HasWarning reports whether the candidate carries a warning with the code.
func (c *Candidate) HasWarning(code WarningCode) bool {
	return slices.ContainsFunc(c.Warnings, func(w Warning) bool { return w.Code == code })
}

// Codes of the warnings the chain adds to the chosen candidate.
const (
	// WarnNewerProgress: another resolver shows newer progress than the
	// chosen position; input after the chosen position is read again.
	WarnNewerProgress = "chain.newer-progress"
	// WarnStateStartsEmpty: the chosen position does not restore operator
	// state (anything below exactly-once).
	WarnStateStartsEmpty = "chain.state-starts-empty"
	// WarnSourceFailed: a resolver failed and the candidate was chosen
	// anyway, because the failed resolver could not have offered a
	// stronger guarantee or the policy is ChooseAnyway. Decision.Failed
	// lists the failures; a gate that must not deploy past any failure
	// fails on this code (resumectl --fail-on-warning chain.source-failed).
	WarnSourceFailed = "chain.source-failed"
	// WarnProvedLost: another candidate's live check proved input this
	// position starts below gone; the chain graded it data-loss
	// ([InputStarter]).
	WarnProvedLost = "chain.proved-lost"
	// WarnOtherSource: another source's candidate, of an input the chosen
	// position does not start (or may not), was not chosen; the warning
	// names what it found (its guarantee and what it would lose), so that
	// a job reading both inputs is not told only the good half.
	WarnOtherSource = "chain.other-source"
	// WarnSinkPending: the position starts its inputs at or above the
	// source positions of a snapshot whose sink committer held output not
	// proven committed for that checkpoint: a start there never commits
	// it, so it inherits the loss ([SinkPender]).
	WarnSinkPending = "chain.sink-pending"
	// WarnShortValidity: the chosen candidate's ValidUntil is less than
	// Policy.MinValidity after now.
	WarnShortValidity = "chain.short-validity"
)
