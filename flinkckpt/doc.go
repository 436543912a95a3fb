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
// # Order
//
// It lists with a delimiter only (never walking a job's shared/ dir), job
// dirs concurrently, and reads only the _metadata files it needs, newest
// first. Within a job dir the highest checkpoint id wins — by run: where a
// lower id is newer than a higher one (a run restored from a savepoint
// continues from its id; one that lost its HA store starts at 1) the newest
// run comes first. Across job dirs and savepoint dirs the newest _metadata
// modification time wins, except that a checkpoint referencing another job
// dir's shared files descends from that job, and a job's checkpoint
// outranks its own savepoints of lower ids whatever a copy did to their
// times: the order is by effective time — the newest _metadata time of the
// snapshot and of those it descends from — then checkpoint id. With
// [IntentUpgrade] savepoints come first and unaligned checkpoints are
// refused.
//
// # Applications
//
// A checkpoint root or savepoint dir is often shared by a cluster, and
// before Flink 1.16 every application-mode job with HA had job id 000…0.
// Snapshots whose operator ids do not overlap belong to different
// applications; when more than one is found, Resolve considers only the one
// of Options.JobID's job dir, or the one sharing most operators with
// Options.Anchor or Options.Job, and otherwise fails with an
// [*ApplicationsError] listing them — it never ranks one application's
// snapshot against another's.
//
// The checkpoint root and the savepoint dir are usually two locations
// (execution.checkpointing.dir and execution.checkpointing.savepoint-dir).
// Give the savepoint dir as Options.Locations and one Resolver reads both
// as one: the application check, the lineage rules (a job's checkpoint
// outranks the savepoints it took at lower ids) and the observation window
// cover both. Two resolvers in a chain could only compare modification
// times. List and Inspect read one location and ignore Options.Locations.
//
// # Verification
//
// Incomplete (no _metadata) and broken (unparseable, or referenced files
// missing or of the wrong size) snapshots are skipped with a reason. So are
// unverified ones — references that could not be checked — unless
// [Options.AllowUnverified]. Absolute paths in _metadata are Flink
// file-system URIs (s3a://, s3p://, oss://, obs://, gs://, hdfs://ns/,
// abfss://, file:/ …), in Flink's spelling: Path.toString() leaves out "//"
// without an authority, so file:/data/ck is file:///data/ck (and, with
// [Options.DefaultFS], hdfs:/p is hdfs://ns/p). They are mapped to bucket
// keys with [Options.FlinkRoot] or a root inferred from the snapshot's own
// key inside those paths, entropy-injected paths included — only from
// references shaped like its layout (<job>/chk-<id>/, <job>/shared/,
// <job>/taskowned/): a changelog's DSTL files, a migrated root's or a
// sibling prefix's files never decide or contradict the root — and
// through [Options.ExtraRoots] to other buckets. A reference on the snapshot's own
// file system that maps nowhere, or a given root that contradicts where
// the references say the snapshot lives, is a mapping error, not a
// warning. [List] reports every snapshot's state (complete, unverified,
// incomplete, broken, too-large) and [Inspect] one; [Sources] reads where
// each source of a snapshot was (package flinkckpt/metadata/sourcestate
// decodes it; package flinkckpt/salvage turns it into a stateless start).
// The _metadata format itself is read by package
// [github.com/resumekit/resumekit/flinkckpt/metadata], which is pure
// (bytes in, model out).
//
// # Launch
//
// The position's launch names the restore path and the claim mode
// ([ClaimMode]): NO_CLAIM by default, CLAIM for snapshots of the changelog
// state backend (NO_CLAIM forces a full first checkpoint it cannot take).
// The keep-advice follows the mode, and the position carries what the
// snapshot allows: verified or not, state backend family, unaligned,
// finished operators, savepoint format and post-checkpoint action.
//
// # Cost
//
// For a root with j job dirs of n_i chk-<n> dirs each and s savepoint dirs:
// list pages = ⌈(j+s)/1000⌉ for the root + Σ ⌈(n_i+2)/1000⌉ for the job dirs
// (listed concurrently, at most [Options.Concurrency] at once) + one
// listing of the chosen snapshot's own dir to verify its exclusive files;
// reads = one _metadata per job dir and savepoint dir, plus one per
// incomplete or broken snapshot skipped; attribute calls = the distinct
// files referenced outside the snapshot's own dir (shared/, other job dirs,
// entropy paths, extra roots), concurrently — on a local bucket (package
// localblob) batched, one directory open per batch and one system call per
// file, without gocloud's per-call overhead — plus one per run in a job dir
// whose ids have gaps (the newest _metadata of each, to order the runs;
// none without a gap), plus one when the root inferred for the chosen
// snapshot has a single segment between the authority and its key
// (s3a://bucket/X/ck/…: a dir or an entropy segment; one call on a
// referenced file tells which). shared/ and taskowned/ are never listed. A
// snapshot that fails verification costs its listing and attribute calls
// again for the next one tried; one the new job ([Options.Job]) cannot
// restore costs nothing beyond its _metadata read. [Options.Observe] adds
// the root and job dir listings once more after the window (for a location
// that is one chk-<n> dir: its job dir's, before and after). A _metadata is
// read into one buffer of its size, which the model shares (a 280 MB file
// is held once).
//
// # Local paths
//
// flinkckpt takes a bucket and reads nothing else. Open a local root with
// package [github.com/resumekit/resumekit/resume/localblob], as resumectl
// does (localblob.LocalPath says which URLs are local: plain paths and file
// URLs in every spelling, Flink's file:/dir included): the bucket is
// confined to the directory with os.Root — every key is resolved by the
// kernel relative to the directory's handle — so a chk-<n>,
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
// A compiled plan ([ReadPlan], [JobFromPlan]) is read from an io.Reader the
// caller opens. A plan file a user names is one file, not a directory to
// confine keys to: resumectl opens it with localblob.OpenFile, which follows
// the links of the name the user chose but opens a regular file only (a
// FIFO or device is refused at once, never waited on); ReadPlan bounds its
// size.
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
// state and the new job lacks it), stateless, or unknown (it holds state
// that no operator of a job described in part has, and may belong to one
// without a uid: see [MatchUnknown], [Job.AllUIDs]) — and checks
// parallelism against the snapshot's max parallelism when it is known:
//
//	job, err := flinkckpt.JobFromPlan(planFile, nil)
//	c := flinkckpt.CheckCompat(savepoint, job) // savepoint: a *metadata.Checkpoint
//	if !c.Compatible { … c.DroppedNames() … }
//
// Given as [Options.Job], the resolver tells applications apart by it (see
// Applications) and rejects snapshots the job cannot restore, before any
// storage call for them (with [Options.AllowNonRestoredState]: offers them
// graded exact-input at best, launched with --allowNonRestoredState).
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
// with errors.Join.
//
// [ReadPlan] returns a [*PlanError] (node, field, problem) wrapping
// [ErrMalformedPlan] for input that is not a compiled plan,
// [ErrPlanTooLarge] past the size limit, and, together with the plan, one
// [*PlanError] per node of an unknown type ([ErrUnknownNodeType]) or per
// colliding uid ([ErrUIDCollision]), joined; check them with errors.Is.
package flinkckpt
