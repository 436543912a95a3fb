package flinkckpt

// Codes of the warnings the resolver puts on its candidates (see
// [resume.Warning]; the table in package resume's doc lists every code).
const (
	// WarnOlderThanBroken: newer snapshots completed but are broken now; a
	// transactional sink may already have published what they committed.
	WarnOlderThanBroken = "flink.older-than-broken"
	// WarnOlderThanPathless: newer snapshots have no known Flink path (all
	// references relative and no Flink root). No longer emitted: Resolve
	// now fails with ErrNoFlinkPath when the snapshot to choose has no
	// Flink path.
	WarnOlderThanPathless = "flink.older-than-pathless"
	// WarnOlderThanUnverified: newer snapshots have references that could
	// not be checked and were not offered (Options.AllowUnverified).
	WarnOlderThanUnverified = "flink.older-than-unverified"
	// WarnOlderThanRefused: newer snapshots cannot serve the intent
	// (unaligned checkpoints for an upgrade).
	WarnOlderThanRefused = "flink.older-than-refused"
	// WarnDrainedSavepoint: the savepoint was taken by stop --drain.
	WarnDrainedSavepoint = "flink.drained-savepoint"
	// WarnVerificationOff: Options.SkipVerify; no referenced file checked.
	WarnVerificationOff = "flink.verification-off"
	// WarnUnverifiedReferences: some referenced files could not be mapped
	// to keys of the bucket and were not checked.
	WarnUnverifiedReferences = "flink.unverified-references"
	// WarnPathFromLocation: the Flink path was derived from the storage URL
	// (Options.FallbackFlinkRoot), not from the snapshot.
	WarnPathFromLocation = "flink.path-from-location"
	// WarnKeepUntilFirstCheckpoint: NO_CLAIM: the snapshot must be kept
	// until the new job's first completed checkpoint.
	WarnKeepUntilFirstCheckpoint = "flink.keep-until-first-checkpoint"
	// WarnOwnedByNewJob: CLAIM: the snapshot belongs to the new job, which
	// deletes it when subsumed (chosen for changelog snapshots).
	WarnOwnedByNewJob = "flink.owned-by-new-job"
	// WarnKeepWhileReferenced: LEGACY or Flink before 1.15: the new job's
	// checkpoints may go on referencing the snapshot's files.
	WarnKeepWhileReferenced = "flink.keep-while-referenced"
	// WarnClaimFlagAssumed: the claim mode is not NO_CLAIM and the new
	// job's Flink version is unknown: the run line names it with
	// -claimMode (1.20+), since flink run -s without a flag restores
	// NO_CLAIM whatever -D says.
	WarnClaimFlagAssumed = "flink.claim-flag-assumed"
	// WarnClaimModeNotHonoured: the launch needs CLAIM (or LEGACY) and
	// starts an application cluster from its own command line
	// (Options.Deployment "application"), which cannot name the mode
	// (FLINK-40559) and writes NO_CLAIM over the -D key: the job restores
	// in NO_CLAIM (Flink 1.20.3, 2.2.0).
	WarnClaimModeNotHonoured = "flink.claim-mode-not-honoured"
	// WarnClaimNativeSavepoint: the launch restores a native savepoint of
	// incremental RocksDB state in CLAIM mode: the new job's incremental
	// checkpoints, from its first, may reuse the savepoint's files through
	// relative handles that their own _metadata resolves against their
	// chk-<n> dir, which leaves them unrestorable (FLINK-39964; real Flink
	// 1.20.3 showed it in conformance F9).
	WarnClaimNativeSavepoint = "flink.claim-native-savepoint"
	// WarnRestartedRun: in a job dir a lower checkpoint id is newer than a
	// higher one (a restarted run continued from its savepoint's id, or
	// restarted at 1): ids are not time order, the newest run's checkpoint
	// was chosen.
	WarnRestartedRun = "flink.restarted-run"
	// WarnLineageOverTime: a savepoint of the chosen checkpoint's job has a
	// newer modification time (a copy) but a lower checkpoint id: within one
	// job the id decides.
	WarnLineageOverTime = "flink.lineage-over-time"
	// WarnNearTie: the chosen snapshot outranks another only by
	// modification times closer than a store's or a copy's resolution, and
	// no lineage orders them: the order between them is not known.
	WarnNearTie = "flink.near-tie"
	// WarnSavepointWhileRunning: the chosen savepoint was taken while the
	// job kept running (post-checkpoint action NONE) and that job has newer
	// checkpoints.
	WarnSavepointWhileRunning = "flink.savepoint-while-running"
	// WarnCheckpointIDMismatch: a _metadata records another checkpoint id
	// than its chk-<n> dir name (a hand copy).
	WarnCheckpointIDMismatch = "flink.checkpoint-id-mismatch"
	// WarnKindUnknown: a version 2 or 3 _metadata outside a chk-<n> or
	// savepoint-… dir: checkpoint or savepoint, nothing tells.
	WarnKindUnknown = "flink.kind-unknown"
	// WarnUnaligned: an unaligned checkpoint: the same job, unchanged, on
	// the same Flink minor version and state backend only (rescaling and
	// patch upgrades are supported).
	WarnUnaligned = "flink.unaligned"
	// WarnFinishedOperators: the snapshot records finished operators.
	WarnFinishedOperators = "flink.finished-operators"
	// WarnSavepointPreferred: IntentUpgrade chose a savepoint over newer
	// checkpoints.
	WarnSavepointPreferred = "flink.savepoint-preferred"
	// WarnNotObserved: the newest _metadata is younger than a minute and
	// no observation window ran: the old job may still be running.
	WarnNotObserved = "flink.not-observed"
	// WarnFixedJobID: the chosen checkpoint is in a fixed application-mode
	// job dir: a resubmission under the same id is ignored when the
	// JobResultStore holds a terminal result for it.
	WarnFixedJobID = "flink.fixed-job-id"
	// WarnDroppedState: with Options.AllowNonRestoredState the new job
	// (Options.Job) drops the state of the operators named; the candidate
	// is graded exact-input at best and launched with
	// --allowNonRestoredState.
	WarnDroppedState = "flink.dropped-state"
	// WarnDroppedSourceState: the dropped state includes an operator
	// coordinator's (a FLIP-27 source's enumerator): graded data-loss.
	WarnDroppedSourceState = "flink.dropped-source-state"
	// WarnConditionalRestore: state is restored into operators the new
	// job creates only under conditions its description does not settle.
	WarnConditionalRestore = "flink.conditional-restore"
	// WarnUnknownOperators: operators with state that no operator of the
	// new job's description matches, and that may be uid-less operators
	// of the new job (MatchUnknown): Flink restores them if the new job
	// has them unchanged and otherwise fails the restore; with
	// --allowNonRestoredState in the launch it may drop their state.
	WarnUnknownOperators = "flink.unknown-operators"
	// WarnFinishedVertices: the new job (Options.Job) differs from the
	// snapshot's and restores fully finished operators: Flink refuses a
	// vertex that mixes finished and running operators, or a finished one
	// after one that is not (VertexFinishedStateChecker); resumekit does
	// not know the new job's vertices (its chaining).
	WarnFinishedVertices = "flink.finished-vertices"
	// WarnUnalignedChangedJob: an unaligned checkpoint's in-flight data
	// into a new job (Options.Job) that differs from the snapshot's: Flink
	// assigns it to the first and last operators of the vertices that held
	// it, so a changed chaining around them fails the restore; resumekit
	// does not know the new job's vertices.
	WarnUnalignedChangedJob = "flink.unaligned-changed-job"
	// WarnOlderThanIncompatible: newer snapshots completed but the new job
	// cannot restore them; it reads again what they had read past the
	// chosen one: said per source kind (replayed; lost or a failing restore
	// where the input left retention, which the live checks grade), and a
	// transactional sink may already have published what they committed.
	WarnOlderThanIncompatible = "flink.older-than-incompatible"
	// WarnSourceNotChecked: a source of the snapshot was not checked
	// against the live system that serves it (Options.Live has no checker
	// for its kind, or its state could not be decoded): whether that input
	// is still there is unknown.
	WarnSourceNotChecked = "flink.not-checked"
	// WarnSinkNotChecked: a Sink V2 committer of the snapshot held pending
	// work that no sink checker answered for (or of a type resumekit does
	// not decode): the grade stays, and the candidate's ValidUntil is an
	// assumed transaction deadline (ValidUntilAssumed).
	WarnSinkNotChecked = "flink.sink-not-checked"
	// WarnSinkOutputLost: the sink's brokers aborted (or hold nothing open
	// of) transactions the restore would commit: their output is lost
	// (data-loss). The warning names the sink, the checkpoint and the
	// transactional ids.
	WarnSinkOutputLost = "flink.sink-output-lost"
	// WarnSinkUnknown: the brokers cannot say what became of a pending
	// transaction (an id they forgot, or one carrying several
	// transactions): graded as if unchecked, with an assumed deadline.
	WarnSinkUnknown = "flink.sink-unknown"
	// WarnSinkCommittedAsserted: a committer held pending work;
	// Options.SinkCommitted asserts the old job committed it.
	WarnSinkCommittedAsserted = "flink.sink-committed-asserted"
	// WarnPaimonRestoreFailsOnce: the Paimon sink table says a checkpoint
	// the snapshot's Paimon committer holds was not committed. Restoring
	// it, Paimon's table sink (FlinkSink's RestoreAndFailCommittableStateManager,
	// paimon-flink-common) commits what the table lacks
	// (Committer.filterAndCommit) and then throws on purpose, so the new
	// job fails once and must be restarted by its restart strategy from the
	// same snapshot (which then commits nothing). The grade stays; without
	// a strategy that allows a restart the new job ends FAILED.
	WarnPaimonRestoreFailsOnce = "flink.paimon-restore-fails-once"
	// WarnSourceDataLoss: a live check found input a source of the
	// snapshot had not read gone (Kafka records below today's log start):
	// graded data-loss.
	WarnSourceDataLoss = "flink.source-data-loss"
	// WarnKafkaOutOfRange: a restored KafkaSource seeks offsets below the
	// log start; the reset is the new job's starting offsets initializer's
	// strategy, so the launch sets scan.startup.mode=earliest-offset.
	WarnKafkaOutOfRange = "flink.kafka-out-of-range"
	// WarnOlderThanFailingRestore: newer snapshots would fail to restore
	// (a Paimon source whose next snapshot expired).
	WarnOlderThanFailingRestore = "flink.older-than-failing-restore"
	// WarnMariaDBGTIDs: a MySQL CDC position with GTIDs on MariaDB: only
	// the binlog file was checked.
	WarnMariaDBGTIDs = "flink.mariadb-gtids-not-checked"
)

// Codes of the warnings about the new job's Flink version (flinkversion.go).
const (
	// WarnOlderThanUnreadable: newer snapshots have a _metadata version
	// the new job's Flink cannot read ("Unrecognized checkpoint version
	// number: N"; a rollback from 2.x to 1.x).
	WarnOlderThanUnreadable = "flink.older-than-unreadable"
	// WarnVersionAssumed: the new job's Flink version was not given and
	// the chosen snapshot's _metadata version is one only Flink 2.x reads.
	WarnVersionAssumed = "flink.version-assumed"
	// WarnMajorUpgrade: a Flink 1.x snapshot restored by Flink 2.x.
	WarnMajorUpgrade = "flink.major-upgrade"
	// WarnUpgradeDropsState: a Flink 1.x snapshot holds legacy
	// SourceFunction or SinkFunction state (FlinkKafkaConsumer, Debezium,
	// Paimon's MonitorFunction, TwoPhaseCommitSinkFunction) that Flink 2.x
	// has no operator for: dropped, graded data-loss.
	WarnUpgradeDropsState = "flink.upgrade-drops-state"
	// WarnKryoState: a Flink 1.x snapshot holds state serialized by Kryo
	// 2, restored by Flink 2.x (Kryo 5): some classes read back, others
	// fail (FLINK-37661).
	WarnKryoState = "flink.kryo-state"
	// WarnLegacyStopOffsets: a stop-with-savepoint holds the legacy
	// FlinkKafkaConsumer's offsets, which are those of the checkpoint
	// before the stop (the source is stopped before the savepoint and a
	// closed FlinkKafkaConsumer snapshots nothing new), while the job's
	// output and its other state ran to the stop: a restore reads those
	// records again. Graded replay.
	WarnLegacyStopOffsets = "flink.legacy-stop-offsets"
)
