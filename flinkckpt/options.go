package flinkckpt

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/internal/ctxtime"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/redact"
)

// DefaultName is the resolver's name when Options.Name is empty.
const DefaultName = "flink-checkpoints"

// DefaultConcurrency bounds concurrent storage calls when
// Options.Concurrency is 0. On an object store each call waits 10–50 ms
// for its answer and costs the client almost nothing, so the resolve's time
// is its number of round trips: 512 lets a root of up to 512 job dirs (or
// 256 with two runs each to order) take one concurrent wave per dependency
// level — root listing, job dir listings, run probes, _metadata reads,
// verification — about 5 round trips, and checks 2,000 shared files in 4.
// It is few enough for any object store: a whole resolve of such a root is
// about 1,000 requests, below one second of S3's per-prefix rate
// (5,500 GET or HEAD per second), GCS's or Azure's, and a store that
// throttles answers 503, which the SDKs retry. Memory does not grow with
// it: the _metadata files read at once are bounded by their bytes
// (MetadataReadBudget), not by this count.
const DefaultConcurrency = 512

// Options configures a Resolver, List and Inspect. A nil *Options means
// defaults.
type Options struct {
	// Name is the resolver's name in decisions; DefaultName when empty.
	Name string
	// JobID restricts the search to that job's dir and its savepoints
	// (savepoint-<first 6 of the id>-… whose operators overlap the job
	// dir's: a fixed application-mode id shares its prefix with other
	// applications). 32 hex characters.
	JobID string
	// FlinkRoot is the Flink file-system URI of the prefix (s3a://bucket/ck
	// for prefix "ck/"), of one of its parent dirs (s3a://bucket/ck for
	// prefix "ck/<job>/": the value of execution.checkpointing.dir), or,
	// when its path ends with none of those, of the bucket root
	// (s3a://bucket/). A root naming a path inside or beside the prefix is
	// refused. It maps absolute paths in _metadata to keys and gives the -s
	// path. Flink's own spelling is accepted: file:/data/ck is
	// file:///data/ck (see DefaultFS). When empty it is inferred per
	// snapshot from the absolute paths of its files; a snapshot without any
	// (a savepoint whose references are all relative) then has no Flink
	// path, and Resolve fails when it is the one to choose.
	FlinkRoot string
	// DefaultFS is the file system that paths without an authority live
	// on, as Hadoop's fs.defaultFS names it (hdfs://ns): with it,
	// hdfs:/flink/ck, hdfs:///flink/ck and hdfs://ns/flink/ck are one path.
	// Without it, scheme:/p and scheme:///p are one path (Flink writes
	// Path.toString(), which leaves out "//" when the URI has no authority)
	// and hdfs://ns/p is another.
	DefaultFS string
	// ExtraRoots map further Flink roots to buckets, so that references
	// outside the resolver's bucket are verified too: the changelog state
	// backend's dstl.dfs.base-path, shared files of a checkpoint copied from
	// another bucket. References under none of the roots are not checked.
	ExtraRoots []ExtraRoot
	// Locations are further locations resolved together with the
	// resolver's own as one: typically the savepoint dir beside the
	// checkpoint root. Their snapshots are grouped into applications,
	// ranked and checked for lineage with the own location's (see
	// Location); the position names the location it chose from
	// (Position.Location). FlinkRoot and FallbackFlinkRoot are the own
	// location's; every other option applies to all.
	Locations []Location
	// EntropyKey is Flink's s3.entropy.key (e.g. "_entropy_"), when
	// FlinkRoot contains it or, without FlinkRoot, when entropy injection is
	// in use: an inferred root's single segment before the snapshot's key is
	// then read as entropy first.
	EntropyKey string
	// FallbackFlinkRoot, used only without FlinkRoot, names the Flink root
	// for snapshots that give nothing to infer it from (a canonical
	// savepoint's references are all relative). Same forms as FlinkRoot.
	// resumectl derives it from the storage URL (s3://bucket/ for an
	// s3:// bucket), and the candidate says so: Flink may name the bucket
	// s3a:// or s3p:// instead, which FlinkRoot settles.
	FallbackFlinkRoot string
	// BucketName is the name of the bucket the resolver reads (the
	// authority of its URL: data for s3://data/ck), when known. Without
	// FlinkRoot, a root inferred from a snapshot's _metadata is then
	// accepted only when its authority is that name (s3://, s3a://, s3p://
	// alike): the bucket that was read is the bucket that is launched. A
	// snapshot whose references name another bucket has no Flink path
	// (FlinkRoot is the fix). resumectl sets it for s3:// and gs:// URLs.
	BucketName string
	// SkipVerify turns off checking that every referenced file exists with
	// its recorded size (on by default). The candidate says so, and its
	// position is not verified.
	SkipVerify bool
	// AllowUnverified offers a snapshot with references that could not be
	// checked (not mappable to a key of this bucket or of an ExtraRoot),
	// with a warning. By default such a snapshot is not offered: Flink may
	// fail the restore on a file nobody checked.
	AllowUnverified bool
	// Strict is the default since unverified snapshots are refused unless
	// AllowUnverified; it is kept so that existing callers compile, and
	// contradicts AllowUnverified.
	//
	// Deprecated: leave AllowUnverified false instead.
	Strict bool
	// Concurrency bounds concurrent storage calls (job dir listings,
	// _metadata reads, attribute calls); DefaultConcurrency when 0.
	Concurrency int
	// OnEvent, when set, receives the resolver's progress: an
	// resume.EventListed per location listed (Count: the job dirs and
	// savepoints found), an EventMetadataRead per _metadata read and
	// parsed, an EventVerified per snapshot whose files were checked
	// (Count: the files). Calls come from concurrent goroutines; the hook
	// must be safe for concurrent use and fast. A panic in it is ignored.
	OnEvent func(resume.Event)
	// MaxMetadataSize limits the size of a _metadata file;
	// metadata.DefaultMaxSize (2 GiB) when 0. A larger one stops Resolve
	// with a *TooLargeError: nothing older is chosen in its place.
	MaxMetadataSize int64
	// Job is the job that will restore the snapshot: its operators, from
	// uids, uid hashes, operator ids or a compiled plan (JobFromPlan); nil
	// means the new job is not known. It serves twice:
	//   - the application check: when snapshots of several applications
	//     share the location (their operator-id sets do not overlap), the
	//     application whose operators overlap the job's most is the one
	//     considered (Options.JobID and Options.Anchor come first);
	//   - the restore check: every snapshot considered is checked against
	//     it (CheckCompat) before anything is read for it: one whose state
	//     the new job would not take is not offered — it is rejected with
	//     the operators named, and an older one is tried — unless
	//     AllowNonRestoredState is set.
	// A Job with only Parallelism or MaxParallelism (no operators) is the
	// unchanged job at that parallelism: no application check, and every
	// snapshot is checked against it as Flink does ("Max parallelism
	// mismatch", a parallelism above the snapshot's max parallelism).
	Job *jobgraph.Job
	// AllowNonRestoredState is set when the new job will be started with
	// --allowNonRestoredState: a snapshot whose state it drops in part is
	// offered, graded exact-input at best (data-loss when a source
	// enumerator's state is dropped) with a coded warning naming the
	// dropped operators, and its launch carries --allowNonRestoredState.
	// It needs Job: without the new job's operators nothing says what is
	// dropped.
	AllowNonRestoredState bool
	// Anchor identifies the application as the operators of a snapshot
	// known to be this job's (the savepoint it was last started from:
	// [jobgraph.JobOfCheckpoint]). It settles the application check like Job does.
	Anchor *jobgraph.Job
	// Intent is what the restart is for; the zero value IntentRestart.
	Intent Intent
	// FlinkVersion is the new job's Flink version ("1.20", "1.19.1",
	// "2.0"): it picks the claim-mode flag of the run line (-claimMode from
	// 1.20, -restoreMode from 1.15) and, before 1.15, leaves claim modes
	// out. Unknown when empty: the launch's configuration carries the mode.
	// It also decides what the new job can read: a snapshot whose
	// _metadata version it does not register (a version 5 or 6 written by
	// Flink 2.x, for a 1.20 job) is passed over with Flink's own error
	// ("Unrecognized checkpoint version number: 6") and an older one
	// chosen; a Flink 1.x snapshot for a 2.x job carries the
	// flink.major-upgrade warning, and its legacy source and sink state and
	// Kryo-serialized state are named (flinkversion.go). LEGACY claim mode
	// is refused from Flink 2.4. When empty, the reasons say what was
	// assumed.
	FlinkVersion string
	// ClaimMode overrides the claim mode of the launch; ClaimAuto (the
	// zero value) chooses NO_CLAIM, or CLAIM for changelog snapshots. Set
	// ClaimClaim when the new job enables the changelog state backend on a
	// snapshot taken without it: the snapshot does not show that, and
	// NO_CLAIM would fail the new job's first checkpoint.
	ClaimMode ClaimMode
	// Deployment is how the new job is started: DeploymentSession (flink
	// run; the zero value is taken as it) names the claim mode on the run
	// line with -claimMode as well as the -D keys; DeploymentApplication
	// (an application cluster started from its own command line, which
	// does not parse -claimMode: FLINK-40559) leaves the flag out, and a
	// mode other than NO_CLAIM carries the flink.claim-mode-not-honoured
	// warning (its entry point restores NO_CLAIM whatever -D says).
	Deployment Deployment
	// Observe, when positive, lists the location again after this long
	// and fails with a *StillRunningError when a newer chk-<n> (or a new
	// job or savepoint dir) appeared: the old job still runs, and with
	// execution.checkpointing.num-retained 1 it deletes the chosen
	// checkpoint at its next one. For a location that is one chk-<n> dir
	// its job dir is watched.
	Observe time.Duration
	// Wait pauses for the observation window. nil waits on a timer and
	// returns ctx's error early when ctx is done. Tests set it to make
	// something happen inside the window without sleeping.
	Wait func(ctx context.Context, d time.Duration) error
	// Now returns the current time, for the warning about a _metadata
	// younger than a minute; nil means time.Now.
	Now func() time.Time
	// Live, when set, checks the chosen snapshot's source positions
	// against the live systems that serve them before it is offered: its
	// source state is decoded (package sourcestate; state files of source
	// operators are read) and every source whose kind has a checker is
	// checked (see Resolve). A source without one gets a
	// flink.not-checked warning. nil checks nothing.
	Live *livecheck.Checkers
	// SinkCommitted says the operator checked the sink and every pending
	// transaction of the snapshot was committed (--flink-sink-committed):
	// no sink check, no assumed deadline, a flink.sink-committed-asserted
	// warning instead.
	SinkCommitted bool
}

// ExtraRoot maps a Flink file-system root to a bucket and key prefix: a
// reference FlinkRoot+P is the key Prefix+P of Bucket.
type ExtraRoot struct {
	// FlinkRoot is a Flink URI such as s3a://other-bucket/ or
	// s3a://bucket/changelog (the forms of Options.FlinkRoot).
	FlinkRoot string
	// Bucket holds the files; the caller owns it.
	Bucket *blob.Bucket
	// Prefix is the key FlinkRoot names in Bucket ("" for its root).
	Prefix string
}

var hexJobRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

func (o *Options) validate() error {
	switch {
	case o.JobID != "" && !hexJobRE.MatchString(o.JobID):
		return fmt.Errorf("flinkckpt: job id %s is not 32 lower-case hex characters", redact.Quote(o.JobID))
	case o.FlinkRoot != "" && !isFlinkURI(o.FlinkRoot):
		return fmt.Errorf("flinkckpt: Flink root %s is not a file-system URI such as s3a://bucket/path", redact.QuoteKey(redact.URL(o.FlinkRoot)))
	case o.FallbackFlinkRoot != "" && !isFlinkURI(o.FallbackFlinkRoot):
		return fmt.Errorf("flinkckpt: fallback Flink root %s is not a file-system URI such as s3://bucket/path", redact.QuoteKey(redact.URL(o.FallbackFlinkRoot)))
	case o.Concurrency < 0:
		return fmt.Errorf("flinkckpt: negative concurrency %d", o.Concurrency)
	case o.MaxMetadataSize < 0:
		return fmt.Errorf("flinkckpt: negative metadata size limit %d", o.MaxMetadataSize)
	case strings.Contains(o.EntropyKey, "/"):
		return fmt.Errorf("flinkckpt: entropy key %s contains a slash", redact.Quote(o.EntropyKey))
	case o.Strict && o.AllowUnverified:
		return errors.New("flinkckpt: Strict and AllowUnverified contradict each other")
	case o.Observe < 0:
		return fmt.Errorf("flinkckpt: negative observation window %s", o.Observe)
	case o.AllowNonRestoredState && (o.Job == nil || o.Job.ParallelismOnly()):
		return errors.New("flinkckpt: AllowNonRestoredState needs Options.Job: without the new job's operators nothing says which state would be dropped")
	case o.Job != nil && len(o.Job.Operators) == 0 && len(o.Job.Unpredictable) == 0 && !o.Job.ParallelismOnly():
		return errors.New("flinkckpt: Options.Job has no operators (nor a parallelism or max parallelism: the unchanged job at one)")
	}
	if o.DefaultFS != "" {
		if _, err := parseDefaultFS(o.DefaultFS); err != nil {
			return err
		}
	}
	for i, x := range o.ExtraRoots {
		switch {
		case x.Bucket == nil:
			return fmt.Errorf("flinkckpt: extra root %d (%s): nil bucket", i, redact.QuoteKey(redact.URL(x.FlinkRoot)))
		case !isFlinkURI(x.FlinkRoot):
			return fmt.Errorf("flinkckpt: extra root %s is not a file-system URI such as s3a://bucket/path", redact.QuoteKey(redact.URL(x.FlinkRoot)))
		}
	}
	if err := o.Intent.validate(); err != nil {
		return err
	}
	if err := o.ClaimMode.validate(); err != nil {
		return err
	}
	if err := o.Deployment.validate(); err != nil {
		return err
	}
	if o.FlinkVersion != "" {
		v, err := parseFlinkVersion(o.FlinkVersion)
		if err != nil {
			return fmt.Errorf("flinkckpt: %w", err)
		}
		if !v.hasClaimModes() && o.ClaimMode != ClaimAuto {
			return fmt.Errorf("flinkckpt: claim mode %s needs Flink 1.15 or later, not %s", o.ClaimMode, o.FlinkVersion)
		}
		if o.ClaimMode == ClaimLegacy && v.AtLeast(legacyClaimRemovedIn.major, legacyClaimRemovedIn.minor) {
			return fmt.Errorf("flinkckpt: claim mode LEGACY is removed in Flink %d.%d (deprecated since 1.19, FLIP-416), and the new job runs %s: use NO_CLAIM or CLAIM",
				legacyClaimRemovedIn.major, legacyClaimRemovedIn.minor, o.FlinkVersion)
		}
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.Name == "" {
		o.Name = DefaultName
	}
	if o.Concurrency == 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.MaxMetadataSize == 0 {
		o.MaxMetadataSize = metadata.DefaultMaxSize
	}
	if o.Wait == nil {
		o.Wait = ctxtime.Sleep
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// refuseUnverified reports whether snapshots with unchecked references are
// refused.
func (o Options) refuseUnverified() bool { return !o.AllowUnverified }
