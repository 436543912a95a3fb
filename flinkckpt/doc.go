// Package flinkckpt finds the newest restorable Flink checkpoint or
// savepoint in any gocloud bucket, parses its _metadata (format versions 2
// to 7: Flink 1.3 to 2.x), and verifies that every file it references exists
// with its recorded size before recommending it.
//
// A JobManager crashed and the HA pointer is gone; a job restarted without
// HA under a new job id; a savepoint was copied into a bucket. [Resolver]
// answers "which chk-<n> or savepoint do I pass to flink run -s?" as a
// [resume.Resolver]:
//
//	r, err := flinkckpt.NewResolver(bucket, "ck/", &flinkckpt.Options{FlinkRoot: "s3a://bucket/ck"})
//	c, err := r.Resolve(ctx)
//	fmt.Println(c.Position.Launch().Args) // [-s s3a://bucket/ck/<job>/chk-42]
//
// It lists with a delimiter only (never walking a job's shared/ dir), job
// dirs concurrently, and reads only the _metadata files it needs, newest
// first. Within a job dir the highest checkpoint id wins; across job dirs
// and savepoint dirs the newest _metadata modification time, except that a
// checkpoint referencing another job dir's shared files descends from that
// job: the order is by effective time — the newest _metadata time of the
// snapshot and of the job dirs it descends from — then checkpoint id.
// Incomplete (no _metadata) and broken (unparseable, or referenced files
// missing or of the wrong size) snapshots are skipped with a reason, as
// are snapshots without a Flink path to pass to -s.
//
// Absolute paths in _metadata are Flink file-system URIs (s3a://, s3p://,
// oss://, obs://, gs://, hdfs://ns/, abfss:// …); they are mapped to bucket
// keys with [Options.FlinkRoot] or a root inferred from the snapshot's own
// key inside those paths, entropy-injected paths included. References that
// cannot be mapped are counted and warned about ([Options.Strict] rejects
// them). [List] reports every snapshot's state and [Inspect] one;
// [Sources] reads where each source of a snapshot was (package
// flinkckpt/metadata/sourcestate decodes it; package flinkckpt/salvage turns
// it into a stateless start). The
// _metadata format itself is read by package
// [github.com/resumekit/resumekit/flinkckpt/metadata], which is pure
// (bytes in, model out).
//
// Cost, for a root with j job dirs of n_i chk-<n> dirs each and s savepoint
// dirs: list pages = ⌈(j+s)/1000⌉ for the root + Σ ⌈(n_i+2)/1000⌉ for the job
// dirs (listed concurrently, at most [Options.Concurrency] at once) + one
// listing of the chosen snapshot's own dir to verify its exclusive files;
// reads = one _metadata per job dir and savepoint dir, plus one per
// incomplete or broken snapshot skipped; attribute calls = the distinct
// files referenced outside the snapshot's own dir (shared/, other job dirs,
// entropy paths), concurrently, plus one when the root inferred for the
// chosen snapshot has a single segment between the authority and its key
// (s3a://bucket/X/ck/…: a dir or an entropy segment; one call on a
// referenced file tells which), plus one when the chosen checkpoint is in
// the shared job dir 000…0 of application mode and a lower id follows a gap
// in its ids (to warn when that one is newer: a run that lost its HA store
// restarts ids). shared/ and taskowned/ are never listed. A snapshot that
// fails verification costs its listing and attribute calls again for the
// next one tried; one without a Flink path (all references relative, no
// Options.FlinkRoot) is skipped before verification, at no cost.
//
// # Local paths
//
// flinkckpt takes a bucket and reads nothing else. Open a local root with
// package [github.com/resumekit/resumekit/resume/localblob], as resumectl
// does: the bucket is confined to the directory with os.Root, so a chk-<n>,
// _metadata or shared file linked out of it (or swapped for such a link
// while it is read) is refused rather than followed, only regular files are
// read (a FIFO named _metadata is refused, never waited on), and every
// directory is read once per listing however it is paged. resumectl confines
// a checkpoint root, a job dir or a savepoint dir to itself, and a chk-<n>
// dir to its job dir (which holds the shared/ and taskowned/ files it
// references). References outside the confined directory cannot be mapped
// to keys and count as unchecked. gocloud's fileblob, by contrast, follows
// links wherever they lead.
//
// # The new job
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
// state and the new job lacks it) or stateless — and checks parallelism
// against the snapshot's max parallelism when it is known:
//
//	job, err := flinkckpt.JobFromPlan(planFile, nil)
//	c := flinkckpt.CheckCompat(savepoint, job) // savepoint: a *metadata.Checkpoint
//	if !c.Compatible { … c.DroppedNames() … }
//
// Given as [Options.Job], the resolver rejects snapshots the job cannot
// restore (with [Options.AllowNonRestoredState]: offers them graded
// exact-input at best, launched with --allowNonRestoredState).
//
// # Errors
//
// [metadata.ErrMalformed] (the error is a [*metadata.FormatError] with the byte offset and
// what was being read) and [metadata.ErrTooLarge] are about a _metadata file's
// content; [ErrNoMetadata] marks a dir without _metadata. Check them with
// errors.Is. Resolve returns an error wrapping [resume.ErrNoPosition] when
// nothing under the prefix is restorable (the reasons are in the message),
// and storage errors, naming the key, when it could not look; a cancelled
// context gives an error wrapping ctx.Err(). [List] returns per-snapshot
// storage failures in [Snapshot.Err] and joined with errors.Join.
//
// [ReadPlan] returns a [*PlanError] (node, field, problem) wrapping
// [ErrMalformedPlan] for input that is not a compiled plan,
// [ErrPlanTooLarge] past the size limit, and, together with the plan, one
// [*PlanError] per node of an unknown type ([ErrUnknownNodeType]) or per
// colliding uid ([ErrUIDCollision]), joined; check them with errors.Is.
package flinkckpt
