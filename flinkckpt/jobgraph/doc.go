// Package jobgraph describes the job that will restore a Flink snapshot —
// its operators by Flink operator id, from uids, uid hashes, operator ids or
// a compiled SQL plan — and checks what a restore of a snapshot's _metadata
// into it does with each operator's state. It is bytes in, a description
// out: it imports the _metadata model (flinkckpt/metadata) and the standard
// library only, no storage (TestNoStorageDependencies). Package flinkckpt
// uses it to reject snapshots the new job cannot restore (Options.Job).
//
// A snapshot restores into the job about to start only where their
// operator ids meet. [Job] describes that job: user uids ([Job.AddUID],
// whose ids are murmur3 hashes, [OperatorID]), uid hashes, operator ids,
// SinkV2 sinks ([Job.AddSinkUID]) or a compiled SQL plan ([JobFromPlan]:
// the uids the planner sets, from table.exec.uid.format, per-node
// configuration, Flink 1.15's format and the transformations of each
// ExecNode type; conditional ones marked Maybe, topology-hashed ones listed
// as unpredictable, unknown node types refused rather than guessed).
// [CheckCompat] classifies every operator of a snapshot the way Flink's
// Checkpoints.loadAndValidateCheckpoint does — restored, dropped (it holds
// state and the new job lacks it), stateless, or unknown (it holds state
// that no operator of a job described in part has, and may belong to one
// without a uid: see [MatchUnknown], [Job.AllUIDs]) — and checks
// parallelism against the snapshot's max parallelism when it is known:
//
//	job, err := jobgraph.JobFromPlan(planFile, nil)
//	c := jobgraph.CheckCompat(savepoint, job) // savepoint: a *metadata.Checkpoint
//	if !c.Compatible { … c.DroppedNames() … }
//
// Given as flinkckpt's Options.Job, the resolver tells applications apart
// by it and rejects snapshots the job cannot restore, before any storage
// call for them (with Options.AllowNonRestoredState: offers them graded
// exact-input at best, launched with --allowNonRestoredState).
//
// A compiled plan ([ReadPlan], [JobFromPlan]) is read from an io.Reader the
// caller opens. A plan file a user names is one file, not a directory to
// confine keys to: resumectl opens it with localblob.OpenFile, which follows
// the links of the name the user chose but opens a regular file only (a
// FIFO or device is refused at once, never waited on); ReadPlan bounds its
// size.
//
// # Where the details live
//
// Operator ids are in job.go and murmur3.go; plans are decoded in
// plandecode.go and plantypes.go, their uids formed in planuids.go by the
// ExecNode table of execnodes.go (generated from Flink's
// flink-execnode-uids.tsv by TestExecNodeTableMatchesTSV) and the rules of
// planrules.go; the restore check is compat.go.
//
// # Errors
//
// [ReadPlan] returns a [*PlanError] (node, field, problem) wrapping
// [ErrMalformedPlan] for input that is not a compiled plan,
// [ErrPlanTooLarge] past the size limit, and, together with the plan, one
// [*PlanError] per node of an unknown type ([ErrUnknownNodeType]) or per
// colliding uid ([ErrUIDCollision]), joined; check them with errors.Is.
package jobgraph
