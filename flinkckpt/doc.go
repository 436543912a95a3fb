// Package flinkckpt finds the newest restorable Flink checkpoint or
// savepoint in any gocloud bucket, parses its _metadata (format versions 2
// to 7: Flink 1.3 to 2.x), and verifies that every file it references exists
// with its recorded size before recommending it.
//
// A JobManager crashed and the HA pointer is gone; a job restarted without
// HA under a new job id; a savepoint was copied into a bucket. [Resolver]
// answers "which chk-<n> or savepoint do I pass to flink run -s, and how?"
// as a [resume.Resolver]:
//
//	r, err := flinkckpt.NewResolver(bucket, "ck/", &flinkckpt.Options{FlinkRoot: "s3a://bucket/ck", FlinkVersion: "1.20"})
//	c, err := r.Resolve(ctx)
//	fmt.Println(c.Position.Launch().Args) // [-s s3a://bucket/ck/<job>/chk-42 -claimMode NO_CLAIM]
//
// # The main types
//
//   - [Resolver] ([NewResolver], [Options]) ranks the snapshots of one or
//     more locations and chooses one; its doc says the order, how
//     applications are told apart, what verification checks, what a resolve
//     costs in storage calls and how local paths are confined.
//   - [Position] is the chosen snapshot as a resume.Position: the restore
//     path, the claim mode ([ClaimMode], whose doc says how it is chosen) and
//     what the snapshot allows (state backend family [Backend], unaligned,
//     finished operators, format).
//   - [List] and [Inspect] report every snapshot's state ([State]) without
//     choosing; [Sources] reads where each source of a snapshot was.
//   - The new job — a Job, a compiled plan, the compatibility check — is described in
//     package [github.com/resumekit/resumekit/flinkckpt/jobgraph]
//     (jobgraph.Job, jobgraph.CheckCompat); given as [Options.Job], the
//     resolver rejects snapshots it cannot restore (graded in
//     compatgrade.go).
//
// # Where the details live
//
// The _metadata format is read by package
// [github.com/resumekit/resumekit/flinkckpt/metadata] (pure: bytes in,
// model out), source state by flinkckpt/metadata/sourcestate, and
// flinkckpt/salvage turns a snapshot's source positions into a stateless
// start when its state no longer fits. The rules each live in one file:
// ranking in rank.go, verification in verify.go, Flink paths in
// flinkpath.go, applications and lineage in application.go and lineage.go,
// claim modes in claim.go; ARCHITECTURE.md maps them.
//
// # Errors
//
// Resolve returns an error wrapping [resume.ErrNoPosition] when nothing
// under the prefix is restorable (the reasons are in the message),
// [ErrIncompatible] (which wraps it) when every snapshot was rejected
// because [Options.Job] cannot restore it — its source positions can
// still be salvaged (package salvage) — and [ErrEmptyLocation] (which
// wraps it too) when nothing at all is stored there.
// It fails — and a chain does not fall back past it — with storage errors
// naming the key, an error wrapping ctx.Err() when the context ends, a
// [*TooLargeError] when the snapshot to read is over
// [Options.MaxMetadataSize], [ErrNoFlinkPath] when the snapshot to choose
// has no Flink path, an [*ApplicationsError] ([ErrSeveralApplications])
// when the job is not identified among several applications, [ErrMapping],
// [ErrUnverified] or [ErrIntent] when nothing could be offered because
// snapshots failed to map, could not be verified, or cannot serve the
// intent (the state is probably there: not "no position"), and a
// [*StillRunningError] ([ErrStillRunning]) when the observation window saw
// the old job checkpoint. [metadata.ErrMalformed] (a [*metadata.FormatError]
// with the byte offset) is about a _metadata file's content; [ErrNoMetadata]
// marks a dir without _metadata. Check them with errors.Is or errors.As.
// [List] returns per-snapshot storage failures in [Snapshot.Err] and joined
// with errors.Join. Every sentinel is in errors.go.
package flinkckpt
