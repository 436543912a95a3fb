package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/resume"
)

// flinkFlags are the flinkckpt options of resumectl resolve beyond the
// location, job id and root.
type flinkFlags struct {
	defaultFS       string
	extraRoots      extraRootsFlag
	allowUnverified bool
	anchor          string
	intent          string
	version         string
	claimMode       string
	maxMetadata     sizeFlag
	observe         durationFlag
	require         bool
}

func (f *flinkFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.defaultFS, "flink-default-fs", "", "the file system of paths without an authority (`URI`: Hadoop's fs.defaultFS, e.g. hdfs://ns)")
	fs.Var(&f.extraRoots, "flink-extra-root", "map another Flink root to a storage location, `FLINKURI=BUCKETURL` (repeatable): changelog dstl.dfs.base-path, files of a checkpoint copied from another bucket")
	fs.BoolVar(&f.allowUnverified, "flink-allow-unverified", false, "offer snapshots with references that could not be checked (with a warning)")
	fs.StringVar(&f.anchor, "flink-anchor", "", "a snapshot (`URL` of its dir) known to be this job's, e.g. the savepoint it last started from: its operators identify the application")
	fs.StringVar(&f.intent, "flink-intent", "", "what the restart is for: restart (default) or upgrade (a savepoint first, in --flink-savepoints and --flink-checkpoints alike; unaligned checkpoints refused)")
	fs.StringVar(&f.version, "flink-version", "", "the new job's Flink version (`X.Y`): picks the run line's claim-mode flag and, with --flink-plan, the planner's uid rules (default there: the plan's flinkVersion)")
	fs.StringVar(&f.claimMode, "flink-claim-mode", "", "claim mode of the restore (`MODE`: NO_CLAIM, CLAIM or LEGACY; default NO_CLAIM, CLAIM for changelog snapshots; CLAIM too when the new job enables the changelog state backend)")
	fs.Var(&f.maxMetadata, "flink-max-metadata-size", "the largest _metadata to read (`BYTES`, e.g. 4GiB; default 2GiB)")
	fs.Var(&f.observe, "flink-observe", "list the checkpoints again after this long (`DUR`) and fail if a new one appeared: the old job still runs")
	fs.BoolVar(&f.require, "flink-require", false, "fail (exit 1) instead of falling back when no Flink location offers a restorable position (empty: a first deploy or a mistyped prefix)")
}

// set reports whether any of the flags was given.
func (f *flinkFlags) set() bool {
	return f.defaultFS != "" || len(f.extraRoots) > 0 || f.allowUnverified || f.anchor != "" || f.intent != "" ||
		f.version != "" || f.claimMode != "" || f.maxMetadata.n != 0 || f.observe.d != 0 || f.require
}

// options fills the flinkckpt options the flags give, except those that
// need I/O (extra roots, anchor).
func (f *flinkFlags) options(o *flinkckpt.Options) error {
	intent, err := flinkckpt.ParseIntent(f.intent)
	if err != nil {
		return usagef("resolve: --flink-intent: %v", err)
	}
	mode, err := flinkckpt.ParseClaimMode(f.claimMode)
	if err != nil {
		return usagef("resolve: --flink-claim-mode: %v", err)
	}
	o.DefaultFS, o.AllowUnverified, o.Intent, o.FlinkVersion, o.ClaimMode = f.defaultFS, f.allowUnverified, intent, f.version, mode
	o.MaxMetadataSize, o.Observe = f.maxMetadata.n, f.observe.d
	return nil
}

// flinkResolvers builds the Flink resolver: over --flink-checkpoints, or
// --flink-savepoints, or both as one resolver (flinkckpt.Options.Locations)
// named flink-checkpoints.
//
// The Kafka cluster and the Paimon table of checks, when given, check the
// chosen snapshot's source positions (flinkckpt.Options.Live).
func (f *resolveFlags) flinkResolvers(ctx context.Context, e *env, checks salvageChecks) ([]resume.Resolver, func(), error) {
	var out []resume.Resolver
	var locs []*location
	closeAll := func() {
		for _, l := range locs {
			l.Close(ctx)
		}
	}
	var base flinkckpt.Options
	if err := f.flink.options(&base); err != nil {
		return nil, closeAll, err
	}
	job, err := f.flinkJob.job()
	if err != nil {
		return nil, closeAll, err
	}
	base.Job, base.AllowNonRestoredState = job, f.flinkAllowNonRestored
	base.Wait = e.flinkWait()
	base.OnEvent = e.onEvent // the progress line, when there is one
	base.Live = checks.live()
	extras, err := f.flink.extraRoots.open(ctx, e, &locs)
	if err != nil {
		return nil, closeAll, err
	}
	base.ExtraRoots = extras
	if f.flink.anchor != "" {
		anchor, err := readAnchor(ctx, e, f.flink.anchor, &locs)
		if err != nil {
			return nil, closeAll, err
		}
		base.Anchor, f.flinkAnchor = anchor, anchor
	}
	// Both locations go to one resolver: its application check, its
	// lineage rules (a job's checkpoint outranks the savepoints it took at
	// lower ids, whatever a copy did to their times) and its observation
	// window need the checkpoints and the savepoints side by side; two
	// resolvers could only compare modification times.
	var own *flinkckpt.Options
	var ownLoc *location
	for _, src := range []struct{ url, name string }{
		{f.flinkCheckpoints, flinkckpt.DefaultName},
		{f.flinkSavepoints, "flink-savepoints"},
	} {
		if src.url == "" {
			continue
		}
		opts := base
		opts.Name, opts.JobID, opts.FlinkRoot, opts.Strict, opts.Now = src.name, f.flinkJobID, f.flinkRoot, f.flinkStrict, f.clock()
		loc, err := openFlink(ctx, e, src.url, &opts)
		if err != nil {
			return nil, closeAll, err
		}
		locs = append(locs, loc)
		if own == nil {
			own, ownLoc = &opts, loc
			continue
		}
		own.Locations = append(own.Locations, flinkckpt.Location{Bucket: loc.Bucket, Prefix: loc.Prefix,
			FlinkRoot: opts.FlinkRoot, FallbackFlinkRoot: opts.FallbackFlinkRoot})
	}
	if own == nil {
		return nil, closeAll, nil
	}
	r, err := flinkckpt.NewResolver(ownLoc.Bucket, ownLoc.Prefix, own)
	if err != nil {
		return nil, closeAll, usagef("resolve: %v", err)
	}
	if f.flink.require {
		out = append(out, requiredResolver{r})
	} else {
		out = append(out, r)
	}
	return out, closeAll, nil
}

// readAnchor reads the _metadata of the snapshot at raw (not verified: only
// its operators matter) and returns them as the application's identity.
func readAnchor(ctx context.Context, e *env, raw string, locs *[]*location) (*jobgraph.Job, error) {
	loc, err := openLocation(ctx, e, snapshotDir(raw))
	if err != nil {
		return nil, err
	}
	*locs = append(*locs, loc)
	s, err := flinkckpt.Inspect(ctx, loc.Bucket, loc.Prefix, &flinkckpt.Options{SkipVerify: true})
	if s == nil || s.Metadata == nil {
		if err == nil {
			err = errors.New("no _metadata")
		}
		return nil, fmt.Errorf("--flink-anchor %s: %w", loc.Display, err)
	}
	return jobgraph.JobOfCheckpoint(s.Metadata), nil
}

// requiredResolver turns "no restorable position" into a failure
// (--flink-require) when the Flink locations of the command offer none: a
// deploy tool that needs the state must not fall back to a stateless start
// because of a first deploy or a mistyped prefix. The one resolver reads
// every location, so an empty savepoint dir beside a checkpoint root that
// offers a checkpoint is no failure.
type requiredResolver struct {
	*flinkckpt.Resolver
}

func (r requiredResolver) Resolve(ctx context.Context) (resume.Candidate, error) {
	c, err := r.Resolver.Resolve(ctx)
	if errors.Is(err, resume.ErrNoPosition) {
		return c, requiredError{err}
	}
	return c, err
}

// requiredError is a "no position" made a failure: it does not match
// resume.ErrNoPosition, but still matches flinkckpt.ErrEmptyLocation.
type requiredError struct{ err error }

func (e requiredError) Error() string {
	return e.err.Error() + " (--flink-require: a Flink position is required)"
}

func (e requiredError) Is(target error) bool {
	return target == flinkckpt.ErrEmptyLocation && errors.Is(e.err, flinkckpt.ErrEmptyLocation)
}

// extraRootsFlag collects --flink-extra-root FLINKURI=BUCKETURL.
type extraRootsFlag []string

func (f *extraRootsFlag) String() string { return strings.Join(*f, ",") }

func (f *extraRootsFlag) Set(s string) error {
	flinkURI, bucketURL, ok := strings.Cut(s, "=")
	if !ok || flinkURI == "" || bucketURL == "" {
		return fmt.Errorf("want FLINKURI=BUCKETURL, e.g. s3a://other/=s3://other/?region=eu-west-1")
	}
	*f = append(*f, s)
	return nil
}

// open opens the storage of every extra root.
func (f extraRootsFlag) open(ctx context.Context, e *env, locs *[]*location) ([]flinkckpt.ExtraRoot, error) {
	var out []flinkckpt.ExtraRoot
	for _, s := range f {
		flinkURI, bucketURL, _ := strings.Cut(s, "=")
		loc, err := openLocation(ctx, e, bucketURL)
		if err != nil {
			return nil, err
		}
		*locs = append(*locs, loc)
		out = append(out, flinkckpt.ExtraRoot{FlinkRoot: flinkURI, Bucket: loc.Bucket, Prefix: loc.Prefix})
	}
	return out, nil
}

// sizeFlag is a flag.Value for BYTES: a number of bytes, or one with a
// unit (KiB, MiB, GiB, TiB; KB, MB, GB, TB as powers of 1000).
type sizeFlag struct{ n int64 }

func (f *sizeFlag) String() string {
	if f == nil || f.n == 0 {
		return ""
	}
	return strconv.FormatInt(f.n, 10)
}

func (f *sizeFlag) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	f.n = n
	return nil
}

func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("size %q: want a positive number of bytes, e.g. 4GiB", s)
	}
	return n * mult, nil
}
