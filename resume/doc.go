// Package resume decides where a restarted stream job should start reading, so
// that no input is lost and as little as possible is read twice, and explains
// the choice.
//
// Each source of restart positions — Flink checkpoints and savepoints
// (package flinkckpt), Paimon consumer progress (package paimon), Kafka group
// offsets or a timestamp (package kafkaoffset) — implements [Resolver]. A
// [Chain] asks every resolver concurrently, keeps the candidates that meet its
// [Policy], and picks the safest: the highest [Guarantee] first (no data loss,
// then operator state restored), then the newest [Candidate.At] (least input
// read again), then chain order. Every other candidate gets a one-line reason
// why it lost, and the [Decision] marshals to a stable JSON document
// (schema "resumekit.decision/v1") that deploy tools can store and read back.
//
//	chain := &resume.Chain{
//		Resolvers: []resume.Resolver{checkpoints, consumer, offsets},
//		Policy:    resume.Policy{MinGuarantee: resume.Replay, MaxAge: 24 * time.Hour},
//	}
//	d, err := chain.Resolve(ctx)
//	switch resume.Classify(d, err) {
//	case resume.ResultChosen:
//		deploy(d.Chosen.Position.Launch()) // e.g. -s s3a://b/ck/<job>/chk-42
//	case resume.ResultFailed:
//		// a source could not be read (d.Failed()): fix it, do not deploy
//	case resume.ResultNothingToRestore:
//		// every source answered, empty: a first deploy, or a mistyped prefix
//	case resume.ResultRefused, resume.ResultIncompatible:
//		// candidates exist: all lose data (or are too old), or none fits the new job
//	}
//	fmt.Print(d.Explain())
//
// # The guarantee ladder
//
// From worst to best: [DataLoss] (input between the old job's progress and the
// position is never read), [Replay] (nothing skipped, some input read again),
// [ExactInput] (input resumes exactly after durably recorded progress, operator
// state starts empty), [ExactlyOnce] (operator state and input position restored
// together). The chain never chooses DataLoss unless the policy asks for it.
//
// # Failing closed
//
// A resolver that fails — storage unreachable, a panic, a timeout, a broken
// contract — has not said what it would have offered. Under the default
// [Policy.OnFailure], [BlockWeaker], it blocks every candidate weaker than
// the best it could have offered: its [GuaranteeBounder] bound (flinkckpt
// exactly-once, paimon exact-input, kafkaoffset replay, [All] the weakest of
// its parts), exactly-once for a resolver without one. A checkpoint store that
// answers 503 therefore blocks a stateless Kafka start ("blocked:
// flink-checkpoints failed and could have offered exactly-once") instead of
// deploying it; a failed Kafka blocks nothing that is exact-input or better. A
// failure whose bound is not above the best acceptable candidate changes
// nothing: that candidate is chosen, and the error still names the failure.
// [ChooseAnyway] keeps the partial choice instead.
//
// # Warning codes
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
//	flink.older-than-broken                newer snapshots completed but are broken: duplicates downstream
//	flink.older-than-pathless              (no longer emitted: a newest snapshot without Flink path fails)
//	flink.older-than-unverified            newer snapshots could not be verified: duplicates downstream
//	flink.older-than-refused               newer snapshots cannot serve the intent (upgrade): duplicates downstream
//	flink.not-checked                      a source of the restored snapshot was not checked against its live system
//	flink.source-data-loss                 a live check found input a restored source had not read gone
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
//	flink.restarted-run                    a lower checkpoint id in the job dir is newer: the newest run was chosen
//	flink.lineage-over-time                a savepoint of the job looks newer but has a lower id: the id decided
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
//	flink.older-than-incompatible          the new job cannot restore newer snapshots: duplicates downstream
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
//	paimon.changelog-ignored               changelog/ holds changelogs the table's options say are not read
//	paimon.version-assumed                 the grade depends on the Paimon version, which was not declared
//	paimon.option-unreadable               a table option does not parse: its default is used
//	paimon.scan-option-conflict            a table option Paimon refuses beside the launch's scan.snapshot-id: the job would not start
//	salvage.data-loss                      records or snapshots a salvaged source had not read are gone
//	salvage.consumer-overrides             a salvaged MonitorSource's consumer file overrides scan.snapshot-id: bind it with reset_consumer
//	salvage.postgres-no-specific-offset    the Postgres CDC connector starts at the slot, not an LSN: advance the slot first
//	salvage.not-checked                    a salvaged position was not checked against the live system
//	salvage.unresolved-marker              Kafka partitions the old job had not started have no offset
//	salvage.resolved-marker                Kafka partitions the old job had not started start at today's log start, end or group commit
//	salvage.partly-read-snapshot           a Paimon snapshot was partly read: its emitted records are read again
//	salvage.mysql-snapshot-phase           a MySQL CDC source had no binlog position yet: it snapshots again
//	salvage.several-sources                several sources' connector options collide: each keeps its own
//	salvage.several-topics                 a KafkaSource read several topics: no SQL option starts it at its offsets (data-loss)
//	salvage.source-notes                   what a source's state held but its position leaves out
//
// A code is a [WarningCode]; each is also a constant of the emitting package
// (flinkckpt.WarnOlderThanBroken, kafkaoffset.WarnNotObserved, …);
// [Candidate.HasWarning] tests for one.
//
// # The document
//
// [Decision] marshals to the resumekit.decision/v1 document and reads back
// from it (json.Unmarshal into a Decision, or a single [Candidate] from its
// candidate form): each position becomes a [*RawPosition] that its resolver
// package's PositionOf decodes ([Positions] of [All]: PositionAs with
// [KindAll]), and marshalling again gives the same bytes. The
// document is a record of how the decision was made: "resumekit" (the module
// version, [ModuleVersion]), "decided_at" (Policy.Now in UTC) and "policy"
// ("min_guarantee"; "max_age" and "timeout" as Go duration strings such as
// "24h0m0s", omitted when 0; "on_failure").
//
// Compatibility within v1:
//   - fields may be added, at any level; readers must ignore fields they do
//     not know, and a field added later is omitted when it is not recorded
//     (an older document reads back and marshals to its own bytes);
//   - no field is removed, renamed or changes meaning or type;
//   - the sets of verdicts (chosen, rejected, failed, no-position),
//     guarantees (data-loss, replay, exact-input, exactly-once) and failure
//     policies (block-weaker, choose-anyway) are closed: a reader may switch
//     on them exhaustively, and a new value means a new schema,
//     resumekit.decision/v2;
//   - warning codes are stable (never renamed, never reused); new codes may
//     appear, so a reader treats an unknown code as a warning it cannot
//     interpret, not as an error;
//   - the position object of each kind follows the same rules (its resolver
//     package keeps a golden file of it).
//
// # Errors
//
// [ErrNoPosition] (checked with errors.Is) is what a resolver returns when it
// honestly found nothing to offer, and what [Chain.Resolve]'s error wraps when
// no resolver had anything to offer and none failed (a first deploy) — never
// when one failed, as database/sql never returns ErrNoRows for a broken
// connection, and never when candidates were refused ([ErrRefused]) or the
// snapshots do not fit the new job ([ErrIncompatible]).
// [ErrUsage] (checked with errors.Is) means the chain itself is wrong: no
// resolvers, a nil resolver, two resolvers with the same name, a policy value
// out of range; it is returned before any resolver is asked.
//
// [Chain.Resolve] always returns a non-nil [*Decision]; its error is nil only
// when no resolver failed, and otherwise names every failure on one line
// each, in chain order, with errors.Is and errors.As reaching each cause (a
// panic is a [*PanicError]). [Decision.Failed] lists the failed outcomes. A
// Decision with failures may still have a chosen candidate: under
// [ChooseAnyway], or when no failed resolver could have offered more.
// [Classify] turns a decision and its error into one [Result] — chosen,
// failed, usage, nothing to restore, refused, incompatible — that a tool
// branches on (resumectl exits 0, 1, 2, 3, 4, 5: [ExitChosen] …, beside
// [ExitFormat] 6 and [ExitWarning] 7 of the command line). When nothing was
// chosen and nothing failed, the chain's error wraps [ErrNoPosition] only
// for "nothing to restore", [ErrRefused] or [ErrIncompatible] otherwise,
// and the resolvers' own sentinels (flinkckpt.ErrEmptyLocation,
// flinkckpt.ErrIncompatible) so that errors.Is needs no walk of
// Decision.Considered.
//
// # Sub-packages
//
// Beside the contract, for resolvers and the tools around them:
//
//   - [github.com/resumekit/resumekit/resume/localblob]: local directories
//     as gocloud buckets confined with os.Root (no escape through links);
//     flinkckpt and paimon open local roots with it.
//   - [github.com/resumekit/resumekit/resume/s3open]: an S3 bucket opener
//     that refuses HTTP redirects.
//   - [github.com/resumekit/resumekit/resume/redact]: secrets out of URLs,
//     hostile input quoted short in errors.
//   - [github.com/resumekit/resumekit/resume/k8s]: a decision as the
//     flink-kubernetes-operator's merge patch.
//   - [github.com/resumekit/resumekit/resume/resumetest]: the contract tests
//     every Resolver must pass; resumetest/blobtest wraps a bucket with
//     faults, latency and call counts, resumetest/s3test runs a gofakes3
//     server on 127.0.0.1.
//
// ARCHITECTURE.md at the module root draws which package imports which.
package resume
