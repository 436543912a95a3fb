package flinkckpt

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

// Resolver finds the newest restorable checkpoint or savepoint under a
// prefix of a bucket. It is immutable and safe for concurrent use.
//
// Order: it lists with a delimiter only (never walking a job's shared/ dir), job
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
// Applications: a checkpoint root or savepoint dir is often shared by a cluster, and
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
// Verification: incomplete (no _metadata) and broken (unparseable, or referenced files
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
// the references say the snapshot lives (a copied tree), makes the
// snapshot unverified, never broken: refused ([ErrMapping],
// [ErrUnverified]) unless [Options.AllowUnverified], which offers it with
// a warning; an extra root that maps the old place checks the references
// there, and Position.ExtraRoots records it. One classification (state.go)
// decides complete, broken and unverified for List, Inspect and Resolve
// alike. A location holding no snapshot dir with Flink's layout one level
// below it fails with [ErrLayoutBelow], naming where, never "no position". [List] reports every snapshot's state (complete, unverified,
// incomplete, broken, too-large) and [Inspect] one; [Sources] reads where
// each source of a snapshot was (package flinkckpt/metadata/sourcestate
// decodes it; package flinkckpt/salvage turns it into a stateless start).
// The _metadata format itself is read by package
// [github.com/resumekit/resumekit/flinkckpt/metadata], which is pure
// (bytes in, model out).
//
// Cost: for a root with j job dirs of n_i chk-<n> dirs each and s savepoint dirs:
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
// Local paths: flinkckpt takes a bucket and reads nothing else. Open a local root with
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
type Resolver struct {
	locs []*loc // its own location first, then Options.Locations
	opts Options
}

var _ resume.Resolver = (*Resolver)(nil)

// NewResolver returns a resolver over bucket and prefix: a checkpoint root
// (<job-id>/chk-<n> below it), a job dir, a layout without job dirs, a
// savepoint dir's parent, or a single chk-<n> or savepoint dir. Bad options
// fail here, before any I/O.
func NewResolver(bucket *blob.Bucket, prefix string, opts *Options) (*Resolver, error) {
	if bucket == nil {
		return nil, errors.New("flinkckpt: nil bucket")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	locs, err := newLocs(bucket, prefix, o)
	if err != nil {
		return nil, err
	}
	return &Resolver{locs: locs, opts: o.withDefaults()}, nil
}

// Name returns the resolver's name.
func (r *Resolver) Name() string { return r.opts.Name }

// RejectsIncompatible reports whether the resolver passes over the
// snapshots its Options.Job cannot restore (a Job without
// AllowNonRestoredState): then it never offers the snapshot a salvage
// resolver needs, so it cannot be salvage's From (salvage.NewResolver
// refuses it).
func (r *Resolver) RejectsIncompatible() bool {
	return r.opts.Job != nil && !r.opts.AllowNonRestoredState
}

// advance reads _metadata newest first until one parses, recording why the
// others were skipped. A _metadata over the size limit stops it with a
// *TooLargeError: an older snapshot is no substitute for one nobody read.
func (r *Resolver) advance(ctx context.Context, s *source) error {
	s.head = nil
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var dir, jobKey, job string
		var id int64
		switch {
		case s.job != nil:
			if s.next >= len(s.job.ids) {
				return nil
			}
			id = s.job.ids[s.next]
			dir, jobKey, job = fmt.Sprintf("%schk-%d/", s.job.key, id), s.job.key, s.job.job
		case s.next == 0:
			dir = s.dir
		default:
			return nil
		}
		s.next++
		sn := &snap{loc: s.loc, key: dir, job: job, jobKey: jobKey, id: id, dirID: -1, savepoint: s.job == nil && isSavepointDir(dir)}
		if d, ok := chkID(lastSegment(dir) + "/"); ok {
			sn.dirID = d
		}
		md, mod, err := readMetadata(ctx, s.loc.bucket, dir, r.opts.MaxMetadataSize)
		if err == nil {
			resume.Emit(r.opts.OnEvent, resume.Event{Kind: resume.EventMetadataRead, Resolver: r.opts.Name, Key: dir})
		}
		if err != nil {
			if errors.Is(err, ErrNoMetadata) {
				s.reasons = append(s.reasons, sn.name()+": no _metadata (in progress, failed or being deleted)")
				s.considered = append(s.considered, sn.consider(ConsideredIncomplete, "no _metadata (in progress, failed or being deleted)"))
				continue
			}
			if isContentError(err) {
				vd := unparsed(err) // state.go
				s.reasons = append(s.reasons, sn.name()+": broken: "+vd.why)
				sn.mod = mod
				s.considered = append(s.considered, sn.consider(passOutcome(vd.passKind()), "broken: "+vd.why))
				s.passed = append(s.passed, passed{loc: s.loc, name: sn.name(), key: dir, jobKey: jobKey, id: id, savepoint: sn.savepoint, mod: mod, kind: vd.passKind()})
				continue
			}
			return err
		}
		sn.md, sn.mod, sn.id = md, mod, md.CheckpointID
		sn.savepoint = md.Savepoint || sn.savepoint
		sn.kindUnknown = !sn.savepoint && sn.dirID < 0 && md.Version <= 3
		s.head = sn
		return nil
	}
}

// Resolve returns the newest restorable snapshot: within a job dir by
// checkpoint id (by run where ids restarted), across job dirs and savepoint
// dirs by _metadata modification time, except that a checkpoint
// referencing another job dir's shared files descends from that job, and a
// job's checkpoint outranks its savepoints of lower ids. It falls back
// past incomplete, broken and unverified snapshots, and past those the new
// job (Options.Job) cannot restore, with a reason for each.
//
// It returns an error wrapping resume.ErrNoPosition when there is nothing
// restorable (ErrEmptyLocation when nothing at all is stored there), and
// fails — naming the key — when storage fails or ctx is done, when the
// snapshot to choose is too large to read (*TooLargeError) or has no Flink
// path (ErrNoFlinkPath), when snapshots of several applications are found
// and the job is not identified (*ApplicationsError), when nothing could be
// offered because snapshots failed to map to the location (ErrMapping),
// could not be verified (ErrUnverified) or cannot serve the intent
// (ErrIntent), or when the observation window saw the old job still
// running (*StillRunningError).
func (r *Resolver) Resolve(ctx context.Context) (resume.Candidate, error) {
	if err := ctx.Err(); err != nil {
		return resume.Candidate{}, fmt.Errorf("flinkckpt: resolve %s: %w", r.where(), err)
	}
	c, err := r.resolve(ctx)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%s)", ctxErr, unprefixed(err))
		}
		if !errors.Is(err, resume.ErrNoPosition) {
			err = wrapf(err, "flinkckpt: resolve %s", r.where())
		}
	}
	return c, err
}

// found is what the locations hold: their layouts, and one source per job
// dir, savepoint dir or location that is itself a snapshot.
type found struct {
	layouts []*layout
	sources []*source
	jobs    []*jobDir
	jobKeys map[*loc][]string // each location's job dir keys
}

// find lists every location (concurrently), orders each job dir's runs
// and reads each source's newest _metadata (advance). It fails with
// ErrEmptyLocation when nothing at all is stored, and when no chk-<n> or
// savepoint dir is found (noSnapshotDir).
func (r *Resolver) find(ctx context.Context) (*found, error) {
	layouts := make([]*layout, len(r.locs))
	if err := parallel(ctx, len(r.locs), len(r.locs), func(i int) error {
		lc := r.locs[i]
		l, err := discover(ctx, lc.bucket, lc.prefix, r.opts.JobID, r.opts.Concurrency)
		if err != nil {
			return err
		}
		layouts[i] = l
		resume.Emit(r.opts.OnEvent, resume.Event{Kind: resume.EventListed, Resolver: r.opts.Name, Key: lc.prefix, Count: len(l.jobs) + len(l.savepoints)})
		_, err = orderRuns(ctx, lc.bucket, l.jobs, r.opts.Concurrency)
		return err
	}); err != nil {
		return nil, err
	}
	entries := 0
	f := &found{layouts: layouts, jobKeys: map[*loc][]string{}}
	for i, l := range layouts {
		lc := r.locs[i]
		entries += l.entries
		for _, j := range l.jobs {
			f.sources = append(f.sources, &source{loc: lc, job: j})
			f.jobs = append(f.jobs, j)
			if j.key != "" {
				f.jobKeys[lc] = append(f.jobKeys[lc], j.key)
			}
		}
		for _, sp := range l.savepoints {
			f.sources = append(f.sources, &source{loc: lc, dir: sp})
		}
		if l.direct {
			f.sources = append(f.sources, &source{loc: lc, dir: lc.prefix})
		}
	}
	if entries == 0 {
		return nil, fmt.Errorf("flinkckpt: %s: %w", r.where(), ErrEmptyLocation)
	}
	if len(f.sources) == 0 {
		return nil, r.noSnapshotDir(ctx)
	}
	if err := parallel(ctx, len(f.sources), r.opts.Concurrency, func(i int) error {
		return r.advance(ctx, f.sources[i])
	}); err != nil {
		return nil, err
	}
	return f, nil
}

func (r *Resolver) resolve(ctx context.Context) (resume.Candidate, error) {
	f, err := r.find(ctx)
	if err != nil {
		return resume.Candidate{}, err
	}
	jobKeys := f.jobKeys
	sources, skipped, err := r.selectApplication(f.sources)
	if err != nil {
		return resume.Candidate{}, err
	}
	var newest *snap // for the warning about a running job
	for _, s := range sources {
		if s.head != nil && (newest == nil || s.head.mod.After(newest.mod)) {
			newest = s.head
		}
	}
	// No mapping is ever borrowed from another snapshot: a head that failed
	// verification, or another job dir's or directory's inference, may be
	// exactly what is wrong, and would give a -s path that does not exist.
	// Passed-over snapshots that are probably fine (their files could not
	// be checked, or they do not fit the intent) make "nothing restorable"
	// a failure: a chain must not start stateless in their place.
	var counts passCounts
	for {
		var heads []*snap
		for _, s := range sources {
			if s.head != nil {
				if s.head.ancestors == nil {
					r.annotate(s.head, jobKeys[s.loc])
				}
				heads = append(heads, s.head)
			}
		}
		rank(heads)
		best := pick(heads, r.opts.Intent)
		if best == nil {
			return resume.Candidate{}, r.nothingRestorable(sources, skipped, counts)
		}
		var src *source
		for _, s := range sources {
			if s.head == best {
				src = s
			}
		}
		// skip passes best over with a reason and reads its source's next
		// snapshot.
		skip := func(why string, kind passKind) error {
			skipped = append(skipped, best.name()+": "+why)
			src.considered = append(src.considered, best.consider(passOutcome(kind), why))
			src.passed = append(src.passed, passed{loc: best.loc, name: best.name(), key: best.key, jobKey: best.jobKey, id: best.id,
				savepoint: best.savepoint, mod: best.mod, ancestors: best.ancestors, kind: kind})
			return r.advance(ctx, src)
		}
		// The new job's Flink version (Options.FlinkVersion) must read the
		// _metadata's version: Flink fails the restore with "Unrecognized
		// checkpoint version number: N" otherwise (a rollback 2.x → 1.x).
		// The new job's check (Options.Job) reads only the parsed
		// _metadata: a snapshot it rejects costs no storage call and is
		// never settled or verified. Both say why when both refuse it.
		unread := r.opts.unreadable(best.md)
		jc := r.gradeForJob(best).orUpgradeFails(r.opts, best.md, unread) // compatgrade.go, flinkversion.go
		if jc != nil && jc.reject != "" {
			counts.incompatible++
			why := jc.reject
			if unread != "" {
				why += "; and " + unread
			}
			if err := skip(why, passIncompatible); err != nil {
				return resume.Candidate{}, err
			}
			continue
		}
		if unread != "" {
			counts.unreadable++
			if err := skip(unread, passUnreadable); err != nil {
				return resume.Candidate{}, err
			}
			continue
		}
		if err := best.settle(ctx); err != nil {
			return resume.Candidate{}, err
		}
		if r.opts.Intent == IntentUpgrade && best.facts.channels > 0 && !best.savepoint {
			counts.refused++
			if err := skip("refused for an upgrade: an unaligned checkpoint (in-flight data recorded) restores neither across a Flink minor version nor into a changed job (only rescaling and patch upgrades)", passRefused); err != nil {
				return resume.Candidate{}, err
			}
			continue
		}
		path, hasPath := best.m.uri(best.key)
		v, err := r.verify(ctx, best, path)
		if err != nil {
			return resume.Candidate{}, err
		}
		// The one classification (state.go), as List and Inspect say it.
		vd := classify(best.contradiction, v)
		var why string
		switch {
		case vd.state == StateBroken:
			why = "broken: " + vd.why
		case vd.mapping && r.opts.refuseUnverified():
			counts.mapping++
			why = vd.why + " — or accept that (Options.AllowUnverified, --flink-allow-unverified)"
		case !hasPath:
			// Verified as far as it goes, and the one to choose: choosing an
			// older snapshot instead would roll back what this one
			// committed, and "no position" a stateless start.
			return resume.Candidate{}, r.noFlinkPath(best)
		case vd.state == StateUnverified && v != nil && r.opts.refuseUnverified():
			counts.unverified++
			why = "unverified: " + vd.why + " — map them (Options.ExtraRoots, --flink-extra-root) or accept that (Options.AllowUnverified, --flink-allow-unverified)"
			if r.opts.Strict {
				why += " (strict mode)"
			}
		}
		if why != "" {
			if err := skip(why, vd.passKind()); err != nil {
				return resume.Candidate{}, err
			}
			continue
		}
		var live *liveResult
		if r.opts.Live != nil {
			live, err = r.checkSources(ctx, best, path) // livesources.go
			if err != nil {
				return resume.Candidate{}, err
			}
			if live.refuse != "" {
				if err := skip(live.refuse, passFailingRestore); err != nil {
					return resume.Candidate{}, err
				}
				continue
			}
		}
		best.changelogLineage = changelogLineage(best, sources) // claim.go
		r.nameForSt(ctx, best, path)                            // forst.go
		above := outranking(best, src, sources, r.opts.Intent)
		c := r.candidate(best, heads, v, path, collectReasons(sources, skipped), above)
		r.applyJob(&c, jc, above, best, live) // compatgrade.go
		r.versionFacts(ctx, &c, best, path)   // flinkversion.go
		withConsidered(&c, sources, heads, best, r.opts.Intent)
		live.apply(&c, best)
		if err := r.withSinks(ctx, &c, best, live, path); err != nil {
			return resume.Candidate{}, err
		}
		r.warn(&c, best, src, heads, f.jobs, newest, path)
		if r.opts.Observe > 0 {
			reason, err := r.observe(ctx, f.layouts)
			if err != nil {
				return resume.Candidate{}, err
			}
			c.Reasons = append(c.Reasons, reason)
		}
		return c, nil
	}
}

// withSinks adds what the chosen snapshot's sinks hold (livesinks.go) and
// the input starts its sources give the chain.
func (r *Resolver) withSinks(ctx context.Context, c *resume.Candidate, best *snap, live *liveResult, path string) error {
	sinks, err := r.checkSinks(ctx, best, path) // livesinks.go
	if err != nil {
		return err
	}
	sinks.apply(c)
	if p, ok := c.Position.(Position); ok {
		p.Inputs = inputStarts(best, live)
		c.Position = p
	}
	return nil
}

// warn adds the warnings about the chosen snapshot's place: its run, its
// lineage, near ties, a job that may still run, a fixed job id, keeping
// it, the run line's claim flag.
func (r *Resolver) warn(c *resume.Candidate, best *snap, src *source, heads []*snap, jobs []*jobDir, newest *snap, path string) {
	if w, ok := restartedRunWarning(best, src.job); ok {
		c.Warnings = append(c.Warnings, w)
	}
	c.Warnings = append(c.Warnings, lineageWarnings(best, heads, jobs)...)
	c.Warnings = append(c.Warnings, nearTieWarnings(best, heads, r.opts.Intent)...)
	if w, ok := r.notObservedWarning(newest); ok {
		c.Warnings = append(c.Warnings, w)
	}
	if w, ok := fixedJobWarning(best); ok {
		c.Warnings = append(c.Warnings, w)
	}
	c.Warnings = append(c.Warnings, r.keepAdvice(best, path))
	if w, ok := r.claimFlagWarning(best); ok {
		c.Warnings = append(c.Warnings, w)
	}
	if w, ok := r.claimNativeSavepointWarning(best, path); ok {
		c.Warnings = append(c.Warnings, w)
	}
}

// noSnapshotDir is the error when the locations hold entries but no
// chk-<n> or savepoint dir: ErrLayoutBelow when Flink's layout is one
// level below one of them, else one wrapping resume.ErrNoPosition.
func (r *Resolver) noSnapshotDir(ctx context.Context) error {
	for _, lc := range r.locs {
		below, err := layoutBelow(ctx, lc.bucket, lc.prefix, r.opts.Concurrency)
		if err != nil {
			return err
		}
		if err := belowError(r.where(), below); err != nil {
			return err
		}
	}
	return fmt.Errorf("flinkckpt: no chk-<n> or savepoint dir under %s: %w", r.where(), resume.ErrNoPosition)
}

// settle settles the snapshot's inferred mapping (flinkpath.go's settle:
// at most one attribute call) once; a given root is settled already.
func (s *snap) settle(ctx context.Context) error {
	if s.settled {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m, calls, err := settle(ctx, s.loc.bucket, s.inf)
	if err != nil {
		return err
	}
	s.m, s.probes, s.settled = m, calls, true
	return nil
}

// passCounts count the snapshots the resolve loop passed over that are
// probably fine, by why: they make "nothing restorable" a failure, not a
// first deploy.
type passCounts struct {
	mapping, unverified, refused, incompatible int
	// unreadable: a _metadata version the new job's Flink does not
	// register (Options.FlinkVersion).
	unreadable int
}

// nothingRestorable is Resolve's error when no snapshot is left to offer:
// the most telling cause first — snapshots that did not map, could not be
// verified, cannot serve the intent, do not fit the new job (each a
// failure: a chain must not start stateless in their place), then
// snapshots with _metadata that cannot be restored (ErrBroken: the state
// is lost, not absent), and only then "no position".
func (r *Resolver) nothingRestorable(sources []*source, skipped []string, n passCounts) error {
	reasons := strings.Join(collectReasons(sources, skipped), "; ")
	switch {
	case n.mapping > 0:
		return fmt.Errorf("flinkckpt: nothing restorable under %s, and %d snapshots failed because their Flink paths do not map to it (%s): %w (%w)",
			r.where(), n.mapping, reasons, ErrMapping, ErrUnverified)
	case n.unverified > 0:
		return fmt.Errorf("flinkckpt: nothing verified under %s, and %d snapshots have references that could not be checked (%s): %w",
			r.where(), n.unverified, reasons, ErrUnverified)
	case n.refused > 0:
		return fmt.Errorf("flinkckpt: nothing under %s serves an %s, and %d snapshots were refused for it (%s): %w",
			r.where(), r.opts.Intent, n.refused, reasons, ErrIntent)
	case n.unreadable > 0 && n.incompatible == 0:
		return fmt.Errorf("flinkckpt: nothing under %s that Flink %s can read: %d snapshot(s) have a _metadata version it does not register (%s): %w",
			r.where(), r.opts.FlinkVersion, n.unreadable, reasons, ErrIncompatible)
	case n.incompatible+n.unreadable > 0:
		return fmt.Errorf("flinkckpt: nothing under %s restores into the new job: %d snapshot(s) cannot (%s): %w",
			r.where(), n.incompatible+n.unreadable, reasons, ErrIncompatible)
	}
	broken := 0
	for _, s := range sources {
		for _, p := range s.passed {
			if p.kind == passBroken || p.kind == passFailingRestore {
				broken++
			}
		}
	}
	if broken > 0 {
		// The job had state and every snapshot of it is lost: never
		// "nothing to restore" (a first deploy would start it empty).
		return fmt.Errorf("flinkckpt: no restorable checkpoint or savepoint under %s: %d snapshot(s) with _metadata cannot be restored (%s): %w",
			r.where(), broken, reasons, ErrBroken)
	}
	return fmt.Errorf("flinkckpt: no restorable checkpoint or savepoint under %s (%s): %w",
		r.where(), reasons, resume.ErrNoPosition)
}

// verify checks every file the snapshot at path references (path "" when
// it has no Flink path yet); nil with Options.SkipVerify.
func (r *Resolver) verify(ctx context.Context, s *snap, path string) (*Verification, error) {
	if r.opts.SkipVerify {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, err := verify(ctx, s.loc.bucket, s.key, path, s.md, s.m, s.loc.roots, r.opts.Concurrency)
	if err != nil {
		return nil, err
	}
	v.Attributes += s.probes
	resume.Emit(r.opts.OnEvent, resume.Event{Kind: resume.EventVerified, Resolver: r.opts.Name, Key: s.key, Count: len(v.Files)})
	return v, nil
}

// noFlinkPath is the error for a snapshot to choose that has no Flink path.
func (r *Resolver) noFlinkPath(s *snap) error {
	abs := s.loc.roots.absolute(s.md)
	why := "its references are all relative (a canonical savepoint), so there is nothing to infer the Flink root from"
	switch {
	case s.rootRefused != "":
		why = s.rootRefused
	case len(abs) > 0:
		why = fmt.Sprintf("none of its %d absolute references contains its key, so there is nothing to infer the Flink root from (first: %s)", len(abs), abs[0])
	}
	at := 0
	for i, lc := range r.locs {
		if lc == s.loc {
			at = i
		}
	}
	return &NoFlinkPathError{Key: s.key, Location: at,
		msg: fmt.Sprintf("flinkckpt: %s (key %s) is the snapshot to choose but has no Flink path: %s; pass the Flink URI of the location (Options.FlinkRoot, --flink-root): %v",
			s.name(), redact.QuoteKey(s.key), why, ErrNoFlinkPath)}
}

// annotate sets the snapshot's mapping (given, or inferred and settled
// when it is picked), the contradiction between a given root and its
// references, the other job dirs it references, and its restore facts.
func (r *Resolver) annotate(s *snap, jobKeys []string) {
	rs := s.loc.roots
	abs := rs.absolute(s.md)
	inf, refused := rs.infer(s.key, abs)
	s.rootRefused = refused
	switch {
	case rs.given != nil:
		s.m, s.settled = rs.given, true
		s.contradiction = rs.contradiction(s.key, inf)
	case inf != nil:
		s.inf, s.m = inf, inf.m
	case len(abs) == 0 && rs.fallback != nil:
		s.m, s.settled, s.fromFallback = rs.fallback, true, true
	}
	s.ancestors = map[string]bool{}
	for _, a := range abs {
		k, ok := s.m.key(a)
		if !ok {
			continue
		}
		for _, j := range jobKeys {
			if j != s.jobKey && (strings.HasPrefix(k, j) || strings.Contains(k, "/"+j)) {
				s.ancestors[j] = true
			}
		}
	}
	s.facts = restoreFactsOf(s.md)
}

func collectReasons(sources []*source, skipped []string) []string {
	var out []string
	for _, s := range sources {
		out = append(out, s.reasons...)
	}
	return append(out, skipped...)
}
