package cli

import (
	"context"
	"flag"
	"strings"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/record"
	"github.com/resumekit/resumekit/resume/redact"
)

// flinkFlags are resolve's Flink group: the checkpoint and savepoint
// locations, the flinkckpt options that read them, and the new job
// (jobFlags, with the prefix "flink-"). Its build makes the one
// flinkckpt.Resolver over both locations, checking against the live
// checkers (built.live).
type flinkFlags struct {
	checkpoints, savepoints, jobID, root string
	// moreCheckpoints, moreSavepoints: the roots given after the first
	// (--flink-checkpoints A --flink-checkpoints B): one set of snapshots.
	moreCheckpoints, moreSavepoints []string
	strict, sources, sinkCommitted  bool
	allowNonRestored                bool
	job                             jobFlags // the new job (flink_compat.go)
	defaultFS                       string
	extraRoots                      extraRootsFlag
	allowUnverified                 bool
	anchor                          string
	intent                          string
	version                         string
	claimMode                       string
	deployment                      string
	maxMetadata                     sizeFlag
	observe                         durationFlag
	require                         bool
	// anchorJob is --flink-anchor's operators once read (build), for the
	// salvage resolver's choice of snapshot too.
	anchorJob *jobgraph.Job
}

func (f *flinkFlags) register(fs *flag.FlagSet, e *env) {
	fs.Var(&rootsFlag{&f.checkpoints, &f.moreCheckpoints}, "flink-checkpoints", "checkpoint root (`URL`): <dir>/<job-id>/chk-<n>, one job dir, or chk dirs without job dirs; repeatable: several roots are one set of snapshots")
	fs.Var(&rootsFlag{&f.savepoints, &f.moreSavepoints}, "flink-savepoints", "savepoint directory (`URL`) holding savepoint-<6 hex>-<12 hex>/ dirs; with --flink-checkpoints both are read by one resolver (applications and lineage across both); repeatable")
	fs.StringVar(&f.jobID, "flink-job-id", "", "only this job's checkpoints and savepoints (32 hex)")
	fs.StringVar(&f.root, "flink-root", "", "the Flink file-system `URI` of the location (s3a://bucket/ck) or of the bucket root (s3a://bucket/); inferred when absent")
	fs.BoolVar(&f.strict, "flink-strict", false, "deprecated: references that cannot be checked are refused by default (see --flink-allow-unverified)")
	fs.BoolVar(&f.sources, "flink-sources", false, "also offer a stateless start at the source positions stored in the chosen snapshot (salvage); --kafka-brokers and --paimon-table check them live")
	fs.BoolVar(&f.sinkCommitted, "flink-sink-committed", false, "you checked the sink: every transaction the snapshot's Sink V2 committer holds was committed, so they are no loss to a salvage (which never commits them; without it they grade it data-loss) or to a stateless start at the snapshot's positions, and a restore needs no sink check (no assumed deadline)")
	fs.StringVar(&f.defaultFS, "flink-default-fs", "", "the file system of paths without an authority (`URI`: Hadoop's fs.defaultFS, e.g. hdfs://ns)")
	fs.Var(&f.extraRoots, "flink-extra-root", "map another Flink root to a storage location, `FLINKURI=BUCKETURL` (repeatable): changelog dstl.dfs.base-path, files of a checkpoint copied from another bucket")
	fs.BoolVar(&f.allowUnverified, "flink-allow-unverified", false, "offer unverified snapshots, whose references outside the root (another file system, a copied tree's old place, DSTL files elsewhere) could not be checked (with a warning)")
	fs.StringVar(&f.anchor, "flink-anchor", "", "a snapshot (`URL` of its dir) known to be this job's, e.g. the savepoint it last started from: its operators identify the application")
	fs.StringVar(&f.intent, "flink-intent", "", "what the restart is for: restart (default) or upgrade (a savepoint first, in --flink-savepoints and --flink-checkpoints alike; unaligned checkpoints refused)")
	// --flink-version serves both the run line's claim-mode flag
	// (flinkckpt.Options.FlinkVersion) and the planner's uid rules for
	// --flink-plan (jobgraph.PlanOptions.FlinkVersion): check hands it to
	// the job.
	fs.StringVar(&f.version, "flink-version", "", "the new job's Flink version (`X.Y`): which _metadata versions it reads (a 2.x snapshot for a 1.x job is passed over; a 1.x snapshot for 2.x is checked as a major upgrade), the run line's claim-mode flag and, with --flink-plan, the planner's uid rules (default there: the plan's flinkVersion)")
	fs.StringVar(&f.claimMode, "flink-claim-mode", "", "claim mode of the restore (`MODE`: NO_CLAIM, CLAIM or LEGACY; default NO_CLAIM, CLAIM for changelog snapshots; CLAIM too when the new job enables the changelog state backend)")
	fs.StringVar(&f.deployment, "flink-deployment", "", "how the new job starts (`MODE`): session (flink run, the default: the run line names the claim mode with -claimMode and -D) or application (an application cluster started from its own command line, standalone-job: its parser does not know -claimMode, FLINK-40559, so the run line leaves it out, and a mode other than NO_CLAIM is warned about)")
	fs.Var(&f.maxMetadata, "flink-max-metadata-size", "the largest _metadata to read (`BYTES`, e.g. 4GiB; default 2GiB)")
	fs.Var(&f.observe, "flink-observe", "list the checkpoints again after this long (`DUR`) and fail if a new one appeared: the old job still runs")
	fs.BoolVar(&f.require, "flink-require", false, "fail (exit 1) instead of falling back when no Flink location offers a restorable position (empty: a first deploy or a mistyped prefix)")
	f.job.register(fs, "flink-", e.stdin())
	fs.BoolVar(&f.allowNonRestored, "flink-allow-non-restored-state", false, "the new job starts with --allowNonRestoredState: offer snapshots whose state it drops in part (exact-input at best)")
}

// names reports whether the command names a Flink location.
func (f *flinkFlags) names() bool { return f.checkpoints != "" || f.savepoints != "" }

// set reports whether any of the options that read the locations was given.
func (f *flinkFlags) set() bool {
	return f.job.parallelism != 0 || f.job.maxParallelism != 0 || f.jobID != "" || f.root != "" || f.strict || f.defaultFS != "" || len(f.extraRoots) > 0 || f.allowUnverified ||
		f.anchor != "" || f.intent != "" || f.version != "" || f.claimMode != "" || f.deployment != "" || f.maxMetadata.n != 0 || f.observe.d != 0 || f.require
}

func (f *flinkFlags) check(s sources) error {
	f.job.flinkVersion = f.version
	switch {
	case !s.flink && f.set():
		return usagef("resolve: --flink-job-id, --flink-root and the other --flink-… options need --flink-checkpoints or --flink-savepoints")
	case f.sources && !s.flink:
		return usagef("resolve: --flink-sources needs --flink-checkpoints or --flink-savepoints")
	case f.sinkCommitted && !s.flink:
		return usagef("resolve: --flink-sink-committed needs --flink-checkpoints or --flink-savepoints")
	case !s.flink && (f.job.given() || f.allowNonRestored):
		return usagef("resolve: --flink-plan, --flink-uid, --flink-sink-uid, --flink-uid-hash, --flink-operator-id and --flink-allow-non-restored-state need --flink-checkpoints or --flink-savepoints")
	case f.allowNonRestored && !f.job.given():
		return usagef("resolve: --flink-allow-non-restored-state needs the new job's operators (--flink-plan, --flink-uid, --flink-sink-uid, --flink-uid-hash or --flink-operator-id): without them nothing says which state would be dropped")
	}
	if err := f.job.check(); err != nil {
		return usagef("resolve: %v", err)
	}
	if f.root != "" && len(f.moreCheckpoints)+len(f.moreSavepoints) > 0 {
		return usagef("resolve: --flink-root is the Flink URI of one location, and several --flink-checkpoints/--flink-savepoints roots are given: leave it out (each location's root is inferred from its snapshots)")
	}
	if f.root != "" && f.checkpoints != "" && f.savepoints != "" && !bucketRootURI(f.root) {
		// Both locations take the root: a savepoint dir under sp/ would be
		// launched as <checkpoint root>/savepoint-… (a local location is
		// its own bucket, so nothing beside it can be refused later).
		return usagef("resolve: --flink-root %s names one location's root, and both --flink-checkpoints and --flink-savepoints are given: each would be mapped under it (a savepoint's -s path inside the checkpoint root); give the bucket's root (s3a://bucket/), or leave it out (each location's root is inferred from its snapshots; map a copied tree with --flink-extra-root OLD=NEW)", redact.Quote(redact.URL(f.root)))
	}
	return nil
}

// bucketRootURI reports whether a Flink URI names the root of its file
// system or bucket (s3a://bucket/, file:///): a root every location in it
// can share.
func bucketRootURI(u string) bool {
	i := strings.Index(u, "://")
	if i < 0 {
		return strings.Trim(strings.TrimPrefix(u, "file:"), "/") == ""
	}
	rest := u[i+3:]
	j := strings.IndexByte(rest, '/')
	return j < 0 || strings.Trim(rest[j:], "/") == ""
}

// options fills the flinkckpt options the flags give, except those that
// need I/O (extra roots, anchor) and the location's own.
func (f *flinkFlags) options(o *flinkckpt.Options) error {
	intent, err := flinkckpt.ParseIntent(f.intent)
	if err != nil {
		return usagef("resolve: --flink-intent: %v", err)
	}
	mode, err := flinkckpt.ParseClaimMode(f.claimMode)
	if err != nil {
		return usagef("resolve: --flink-claim-mode: %v", err)
	}
	deployment, err := flinkckpt.ParseDeployment(f.deployment)
	if err != nil {
		return usagef("resolve: --flink-deployment: %v", err)
	}
	o.DefaultFS, o.AllowUnverified, o.Intent, o.FlinkVersion, o.ClaimMode, o.Deployment = f.defaultFS, f.allowUnverified, intent, f.version, mode, deployment
	o.MaxMetadataSize, o.Observe = f.maxMetadata.n, f.observe.d
	return nil
}

// build makes the Flink resolver: over --flink-checkpoints, or
// --flink-savepoints, or both as one resolver (flinkckpt.Options.Locations)
// named flink-checkpoints. The live checkers (built.live), when given,
// check the chosen snapshot's source positions (flinkckpt.Options.Live).
func (f *flinkFlags) build(ctx context.Context, e *env, b *built) error {
	if !f.names() {
		return nil
	}
	var locs []*location
	b.closers = append(b.closers, func() {
		for _, l := range locs {
			l.Close(ctx)
		}
	})
	var base flinkckpt.Options
	if err := f.options(&base); err != nil {
		return err
	}
	job, err := f.job.job()
	if err != nil {
		return err
	}
	base.Job, base.AllowNonRestoredState = job, f.allowNonRestored
	base.Wait = e.flinkWait()
	base.OnEvent = e.onEvent // the progress line, when there is one
	base.Live = b.live
	base.SinkCommitted = f.sinkCommitted
	extras, err := f.extraRoots.open(ctx, e, &locs)
	if err != nil {
		return err
	}
	base.ExtraRoots = extras
	if f.anchor != "" {
		anchor, err := readAnchor(ctx, e, f.anchor, &locs)
		if err != nil {
			return err
		}
		base.Anchor, f.anchorJob = anchor, anchor
	}
	// Both locations go to one resolver: its application check, its
	// lineage rules (a job's checkpoint outranks the savepoints it took at
	// lower ids, whatever a copy did to their times) and its observation
	// window need the checkpoints and the savepoints side by side; two
	// resolvers could only compare modification times.
	var own *flinkckpt.Options
	var ownLoc *location
	type source struct{ url, name string }
	srcs := []source{{f.checkpoints, flinkckpt.DefaultName}, {f.savepoints, "flink-savepoints"}}
	for _, u := range f.moreCheckpoints {
		srcs = append(srcs, source{u, "more-checkpoints"})
	}
	for _, u := range f.moreSavepoints {
		srcs = append(srcs, source{u, "more-savepoints"})
	}
	for _, src := range srcs {
		if src.url == "" {
			continue
		}
		opts := base
		opts.Name, opts.JobID, opts.FlinkRoot, opts.Strict, opts.Now = src.name, f.jobID, f.root, f.strict, b.now
		loc, err := openFlink(ctx, e, src.url, &opts)
		if err != nil {
			return err
		}
		locs = append(locs, loc)
		if !strings.HasPrefix(src.name, "more-") {
			f.recordStorage(b, src.name == flinkckpt.DefaultName, loc, opts)
		}
		if own == nil {
			own, ownLoc = &opts, loc
			continue
		}
		own.Locations = append(own.Locations, flinkckpt.Location{Bucket: loc.Bucket, Prefix: loc.Prefix,
			FlinkRoot: opts.FlinkRoot, FallbackFlinkRoot: opts.FallbackFlinkRoot, BucketName: opts.BucketName})
	}
	r, err := flinkckpt.NewResolver(ownLoc.Bucket, ownLoc.Prefix, own)
	if err != nil {
		return usagef("resolve: %v", err)
	}
	if f.require {
		b.restore = append(b.restore, requiredResolver{r})
	} else {
		b.restore = append(b.restore, r)
	}
	return nil
}

// recordStorage adds the location to where the record group looks the
// records' snapshots up (built.flinkStorage), with the location's own
// options (its Flink root).
func (f *flinkFlags) recordStorage(b *built, checkpoints bool, loc *location, opts flinkckpt.Options) {
	if b.flinkStorage == nil {
		b.flinkStorage = &record.BucketStorage{}
	}
	opts.Locations = nil
	if checkpoints {
		b.flinkStorage.Checkpoints, b.flinkStorage.CheckpointsPrefix, b.flinkStorage.Options = loc.Bucket, loc.Prefix, &opts
		return
	}
	b.flinkStorage.Savepoints, b.flinkStorage.SavepointsPrefix, b.flinkStorage.SavepointOptions = loc.Bucket, loc.Prefix, &opts
}

// wantSalvage reports whether resolve offers the salvage candidate: asked
// for with --flink-sources, or whenever the new job is given with a Flink
// location — a refactored job whose state no longer fits then gets the
// snapshot's exact source positions instead of nothing.
func (f *flinkFlags) wantSalvage() bool {
	return f.sources || f.names() && f.job.given()
}
