package flinkckpt

// Codes of the warnings the resolver puts on its candidates (see
// [resume.Warning]; the table in package resume's doc lists every code).
const (
	// WarnOlderThanBroken: newer snapshots completed but are broken now; a
	// transactional sink may already have published what they committed.
	WarnOlderThanBroken = "flink.older-than-broken"
	// WarnOlderThanPathless: newer snapshots have no known Flink path (all
	// references relative and no Flink root).
	WarnOlderThanPathless = "flink.older-than-pathless"
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
	// WarnKeepUntilFirstCheckpoint: the snapshot must be kept until the new
	// job's first completed checkpoint.
	WarnKeepUntilFirstCheckpoint = "flink.keep-until-first-checkpoint"
	// WarnRestartedRun: in a fixed job dir a lower checkpoint id is newer
	// than the chosen one (a run restarted its ids).
	WarnRestartedRun = "flink.restarted-run"
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
	// WarnOlderThanIncompatible: newer snapshots completed but the new job
	// cannot restore them; a transactional sink may already have published
	// what they committed.
	WarnOlderThanIncompatible = "flink.older-than-incompatible"
)
