package flinkckpt

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume"
)

// DefaultName is the resolver name used when Options.Name is empty.
const DefaultName = "flink-checkpoints"

// DefaultConcurrency bounds concurrent storage calls when
// Options.Concurrency is 0: enough to check 2,000 shared files at 20 ms per
// call in well under a second, few enough for any object store.
const DefaultConcurrency = 64

// Options configures a Resolver, List and Inspect. A nil *Options means
// defaults.
type Options struct {
	// Name of the resolver; DefaultName when empty.
	Name string
	// JobID restricts the search to that job's dir and its savepoints
	// (savepoint-<first 6 of the id>-…). 32 hex characters.
	JobID string
	// FlinkRoot is the Flink file-system URI of the prefix (s3a://bucket/ck
	// for prefix "ck/"), of one of its parent dirs (s3a://bucket/ck for
	// prefix "ck/<job>/": the value of execution.checkpointing.dir), or,
	// when its path ends with none of those, of the bucket root
	// (s3a://bucket/). A root naming a path inside or beside the prefix is
	// refused. It maps absolute paths in _metadata to keys and gives the -s
	// path. When empty it is inferred per snapshot from the absolute paths
	// of its files; a snapshot without any (a savepoint whose references
	// are all relative) then has no Flink path and is not offered.
	FlinkRoot string
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
	// SkipVerify turns off checking that every referenced file exists with
	// its recorded size (on by default).
	SkipVerify bool
	// Strict rejects snapshots with references that could not be checked
	// (not mappable to a key of this bucket) instead of warning.
	Strict bool
	// Concurrency bounds concurrent storage calls (job dir listings,
	// _metadata reads, attribute calls); DefaultConcurrency when 0.
	Concurrency int
	// MaxMetadataSize limits the size of a _metadata file; metadata.DefaultMaxSize
	// when 0.
	MaxMetadataSize int64
	// Job is the job that will restore the snapshot: its operators, from
	// uids, uid hashes, operator ids or a compiled plan (JobFromPlan). With
	// it every snapshot is checked against it (CheckCompat): one whose
	// state the new job would not take is not offered — it is rejected with
	// the operators named, and an older one is tried — unless
	// AllowNonRestoredState is set. nil means the new job is not known.
	Job *Job
	// AllowNonRestoredState is set when the new job will be started with
	// --allowNonRestoredState: a snapshot whose state it drops in part is
	// offered, graded exact-input at best (data-loss when a source
	// enumerator's state is dropped) with a coded warning naming the
	// dropped operators, and its launch carries --allowNonRestoredState.
	// It needs Job: without the new job's operators nothing says what is
	// dropped.
	AllowNonRestoredState bool
}

var hexJobRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

func (o *Options) validate() error {
	switch {
	case o.JobID != "" && !hexJobRE.MatchString(o.JobID):
		return fmt.Errorf("flinkckpt: job id %q is not 32 lower-case hex characters", o.JobID)
	case o.FlinkRoot != "" && authorityEnd(strings.TrimSuffix(o.FlinkRoot, "/")+"/") < 0:
		return fmt.Errorf("flinkckpt: Flink root %q is not a file-system URI such as s3a://bucket/path", o.FlinkRoot)
	case o.FallbackFlinkRoot != "" && authorityEnd(strings.TrimSuffix(o.FallbackFlinkRoot, "/")+"/") < 0:
		return fmt.Errorf("flinkckpt: fallback Flink root %q is not a file-system URI such as s3://bucket/path", o.FallbackFlinkRoot)
	case o.Concurrency < 0:
		return fmt.Errorf("flinkckpt: negative concurrency %d", o.Concurrency)
	case o.MaxMetadataSize < 0:
		return fmt.Errorf("flinkckpt: negative metadata size limit %d", o.MaxMetadataSize)
	case strings.Contains(o.EntropyKey, "/"):
		return fmt.Errorf("flinkckpt: entropy key %q contains a slash", o.EntropyKey)
	case o.AllowNonRestoredState && o.Job == nil:
		return errors.New("flinkckpt: AllowNonRestoredState needs Options.Job: without the new job's operators nothing says which state would be dropped")
	case o.Job != nil && len(o.Job.Operators) == 0 && len(o.Job.Unpredictable) == 0:
		return errors.New("flinkckpt: Options.Job has no operators")
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
	return o
}

// Resolver finds the newest restorable checkpoint or savepoint under a
// prefix of a bucket. It is immutable and safe for concurrent use.
type Resolver struct {
	bucket *blob.Bucket
	prefix string
	opts   Options
	given  *mapping // from opts.FlinkRoot, nil when inferred
	// fallback is from opts.FallbackFlinkRoot, for snapshots without
	// absolute references when given is nil.
	fallback *mapping
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
	r := &Resolver{bucket: bucket, prefix: normalizePrefix(prefix), opts: o.withDefaults()}
	m, err := o.mappings(r.prefix)
	if err != nil {
		return nil, err
	}
	r.given, r.fallback = m.given, m.fallback
	return r, nil
}

// Name returns the resolver's name.
func (r *Resolver) Name() string { return r.opts.Name }

// snap is one snapshot under consideration.
type snap struct {
	key       string // dir key
	job       string
	jobKey    string // the job dir key ("" for savepoints)
	id        int64
	savepoint bool
	md        *metadata.Checkpoint
	mod       time.Time
	m         *mapping
	inf       *inference // inferred mapping, until settled
	settled   bool       // m is final
	probes    int        // attribute calls spent settling m
	// fromFallback: m is Options.FallbackFlinkRoot's (nothing to infer).
	fromFallback bool
	ancestors    map[string]bool // other job dir keys whose files it references
	// Set by rank for the current heads: eff is the newest _metadata time
	// of the snapshot and the heads it descends from (transitively), via
	// the head that time comes from (nil: its own), descends the heads it
	// descends from.
	eff      time.Time
	via      *snap
	descends map[*snap]bool
}

// passed is a completed snapshot that was passed over (broken, or without
// a Flink path), kept to tell whether it ranks above the one chosen.
type passed struct {
	name      string
	key       string
	jobKey    string
	id        int64
	mod       time.Time
	ancestors map[string]bool
	pathless  bool
	// incompatible: Options.Job cannot restore it (gradeForJob).
	incompatible bool
}

func (s *snap) name() string {
	if s.savepoint {
		return lastSegment(s.key)
	}
	if s.job != "" {
		return fmt.Sprintf("chk-%d of job %s", s.id, s.job)
	}
	return fmt.Sprintf("chk-%d", s.id)
}

// source yields the snapshots of one job dir newest first, or the single
// snapshot of a savepoint dir or of the prefix itself.
type source struct {
	job     *jobDir
	dir     string
	next    int
	head    *snap
	reasons []string
	passed  []passed // completed but unusable snapshots, for the warning
}

// advance reads _metadata newest first until one parses, recording why the
// others were skipped.
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
		sn := &snap{key: dir, job: job, jobKey: jobKey, id: id, savepoint: s.job == nil && isSavepointDir(dir)}
		md, mod, err := readMetadata(ctx, r.bucket, dir, r.opts.MaxMetadataSize)
		if err != nil {
			if errors.Is(err, ErrNoMetadata) {
				s.reasons = append(s.reasons, sn.name()+": no _metadata (in progress, failed or being deleted)")
				continue
			}
			if isContentError(err) {
				s.reasons = append(s.reasons, sn.name()+": broken: "+err.Error())
				s.passed = append(s.passed, passed{name: sn.name(), key: dir, jobKey: jobKey, id: id, mod: mod})
				continue
			}
			return err
		}
		sn.md, sn.mod, sn.id = md, mod, md.CheckpointID
		sn.savepoint = md.Savepoint || sn.savepoint
		s.head = sn
		return nil
	}
}

// Resolve returns the newest restorable snapshot: within a job dir by
// checkpoint id, across job dirs and savepoint dirs by _metadata
// modification time, except that a checkpoint referencing another job
// dir's shared files descends from that job and is newer. It falls back
// past incomplete and broken snapshots with a reason for each. It returns an
// error wrapping resume.ErrNoPosition when there is nothing restorable, and
// other errors (naming the key) when storage fails or ctx is done.
func (r *Resolver) Resolve(ctx context.Context) (resume.Candidate, error) {
	if err := ctx.Err(); err != nil {
		return resume.Candidate{}, fmt.Errorf("flinkckpt: resolve %q: %w", r.prefix, err)
	}
	c, err := r.resolve(ctx)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
		if !errors.Is(err, resume.ErrNoPosition) {
			err = fmt.Errorf("flinkckpt: resolve %q: %w", r.prefix, err)
		}
	}
	return c, err
}

func (r *Resolver) resolve(ctx context.Context) (resume.Candidate, error) {
	l, err := discover(ctx, r.bucket, r.prefix, r.opts.JobID, r.opts.Concurrency)
	if err != nil {
		return resume.Candidate{}, err
	}
	var sources []*source
	for _, j := range l.jobs {
		sources = append(sources, &source{job: j})
	}
	for _, sp := range l.savepoints {
		sources = append(sources, &source{dir: sp})
	}
	if l.direct {
		sources = append(sources, &source{dir: r.prefix})
	}
	if len(sources) == 0 {
		return resume.Candidate{}, fmt.Errorf("flinkckpt: no chk-<n> or savepoint dir under %q: %w", r.prefix, resume.ErrNoPosition)
	}
	if err := parallel(ctx, len(sources), r.opts.Concurrency, func(i int) error {
		return r.advance(ctx, sources[i])
	}); err != nil {
		return resume.Candidate{}, err
	}
	var jobKeys []string
	for _, j := range l.jobs {
		if j.key != "" {
			jobKeys = append(jobKeys, j.key)
		}
	}
	// No mapping is ever borrowed from another snapshot: a head that failed
	// verification, or another job dir's or directory's inference, may be
	// exactly what is wrong, and would give a -s path that does not exist.
	var skipped []string // reasons for snapshots passed over after reading
	for {
		var heads []*snap
		for _, s := range sources {
			if s.head != nil {
				if s.head.ancestors == nil {
					r.annotate(s.head, jobKeys)
				}
				heads = append(heads, s.head)
			}
		}
		rank(heads)
		best := pick(heads)
		if best == nil {
			reasons := collectReasons(sources, skipped)
			return resume.Candidate{}, fmt.Errorf("flinkckpt: no restorable checkpoint or savepoint under %q (%s): %w",
				r.prefix, strings.Join(reasons, "; "), resume.ErrNoPosition)
		}
		var src *source
		for _, s := range sources {
			if s.head == best {
				src = s
			}
		}
		// The new job's check is pure: before any storage call.
		jc := r.gradeForJob(best) // compatgrade.go
		if jc != nil && jc.reject != "" {
			skipped = append(skipped, best.name()+": "+jc.reject)
			src.passed = append(src.passed, passed{name: best.name(), key: best.key, jobKey: best.jobKey, id: best.id, mod: best.mod, ancestors: best.ancestors, incompatible: true})
			if err := r.advance(ctx, src); err != nil {
				return resume.Candidate{}, err
			}
			continue
		}
		if !best.settled {
			if err := ctx.Err(); err != nil {
				return resume.Candidate{}, err
			}
			m, calls, err := settle(ctx, r.bucket, best.inf)
			if err != nil {
				return resume.Candidate{}, err
			}
			best.m, best.probes, best.settled = m, calls, true
		}
		if _, ok := best.m.uri(best.key); !ok {
			skipped = append(skipped, best.name()+": no Flink path: its references are all relative, so there is nothing to infer the Flink root from: pass Options.FlinkRoot (--flink-root)")
			src.passed = append(src.passed, passedOf(best, true))
			if err := r.advance(ctx, src); err != nil {
				return resume.Candidate{}, err
			}
			continue
		}
		var v *Verification
		if !r.opts.SkipVerify {
			if err := ctx.Err(); err != nil {
				return resume.Candidate{}, err
			}
			v, err = verify(ctx, r.bucket, best.key, best.md, best.m, r.opts.Concurrency)
			if err != nil {
				return resume.Candidate{}, err
			}
			v.Attributes += best.probes
			if !v.OK() || (r.opts.Strict && v.Unchecked > 0) {
				why := v.Problem()
				if v.OK() {
					why += " (strict mode)"
				}
				skipped = append(skipped, best.name()+": broken: "+why)
				src.passed = append(src.passed, passedOf(best, false))
				if err := r.advance(ctx, src); err != nil {
					return resume.Candidate{}, err
				}
				continue
			}
		}
		above := outranking(best, src, sources)
		c := r.candidate(best, heads, v, collectReasons(sources, skipped), above)
		r.applyJob(&c, jc, above)
		if w := r.restartedRun(ctx, best, src); w != "" {
			c.Warnings = append(c.Warnings, resume.Warning{Code: WarnRestartedRun, Text: w})
		}
		return c, nil
	}
}

func passedOf(s *snap, pathless bool) passed {
	return passed{name: s.name(), key: s.key, jobKey: s.jobKey, id: s.id, mod: s.mod, ancestors: s.ancestors, pathless: pathless}
}

// sharedJobID is the fixed job id of application mode with HA: every run
// of the application checkpoints into the same job dir.
const sharedJobID = "00000000000000000000000000000000"

// restartedRun warns when best is in the shared job dir of application
// mode and the highest id below a gap in its ids (where a new run that lost
// its HA store would have restarted numbering) has a newer _metadata than
// best: ids alone cannot tell runs apart. It costs at most one attribute
// call, and only in that job dir; failures leave the warning out.
func (r *Resolver) restartedRun(ctx context.Context, best *snap, src *source) string {
	if src.job == nil || best.job != sharedJobID || best.savepoint {
		return ""
	}
	prev := best.id
	lower := int64(-1)
	for _, id := range src.job.ids {
		if id >= best.id {
			continue
		}
		if id < prev-1 {
			lower = id
			break
		}
		prev = id
	}
	if lower < 0 {
		return ""
	}
	a, err := r.bucket.Attributes(ctx, fmt.Sprintf("%schk-%d/_metadata", src.job.key, lower))
	if err != nil || !a.ModTime.After(best.mod) {
		return ""
	}
	return fmt.Sprintf("chk-%d of job %s has a newer _metadata (%s) than the chosen %s (%s): in the shared job dir of application mode a run whose HA store was lost restarts checkpoint ids, so the chosen one may belong to an older run; the order within a job dir is by id, check which run is current and pass its checkpoint explicitly if needed",
		lower, best.job, a.ModTime.UTC().Format(time.RFC3339), best.name(), best.mod.UTC().Format(time.RFC3339))
}

// annotate sets the snapshot's mapping (given, or inferred and settled
// when it is picked) and the other job dirs it references.
func (r *Resolver) annotate(s *snap, jobKeys []string) {
	var abs []string
	for _, f := range s.md.Files {
		if !f.Relative {
			abs = append(abs, f.Path)
		}
	}
	if r.given != nil {
		s.m, s.settled = r.given, true
	} else {
		s.inf = inferMapping(s.key, abs, r.opts.EntropyKey)
		switch {
		case s.inf != nil:
			s.m = s.inf.m
		case len(abs) == 0 && r.fallback != nil:
			s.m, s.settled, s.fromFallback = r.fallback, true, true
		}
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
}

// rank sets each head's effective time: the newest _metadata modification
// time of the head and of the heads of the job dirs it descends from,
// transitively (a checkpoint referencing another job dir's shared files
// descends from that job and is at least as new as it).
func rank(heads []*snap) {
	byJob := map[string]*snap{}
	for _, h := range heads {
		if h.jobKey != "" {
			byJob[h.jobKey] = h
		}
	}
	for _, h := range heads {
		h.eff, h.via = h.mod, nil
		h.descends = map[*snap]bool{}
		stack := []*snap{h}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for j := range x.ancestors {
				a := byJob[j]
				if a == nil || a == h || h.descends[a] {
					continue
				}
				h.descends[a] = true
				stack = append(stack, a)
				if a.mod.After(h.eff) || (h.via != nil && a.mod.Equal(h.eff) && a.key < h.via.key) {
					h.eff, h.via = a.mod, a
				}
			}
		}
	}
}

// better reports whether a ranks before b: the later effective time (see
// rank), then the higher checkpoint id, then the smaller key — a total
// order.
func better(a, b *snap) bool {
	return ranksAbove(a.eff, a.id, a.key, b.eff, b.id, b.key)
}

func ranksAbove(aT time.Time, aID int64, aKey string, bT time.Time, bID int64, bKey string) bool {
	if !aT.Equal(bT) {
		return aT.After(bT)
	}
	if aID != bID {
		return aID > bID
	}
	return aKey < bKey
}

func pick(heads []*snap) *snap {
	var best *snap
	for _, h := range heads {
		if best == nil || better(h, best) {
			best = h
		}
	}
	return best
}

func collectReasons(sources []*source, skipped []string) []string {
	var out []string
	for _, s := range sources {
		out = append(out, s.reasons...)
	}
	return append(out, skipped...)
}

// outranking returns the passed-over snapshots that rank above best: those
// of its own job dir (higher ids: it is read newest first) and those of
// other sources that are newer than best by the same order, or descend from
// best's job dir. Broken snapshots older than best are no reason for the
// duplicates warning.
func outranking(best *snap, src *source, sources []*source) []passed {
	var out []passed
	for _, s := range sources {
		for _, p := range s.passed {
			switch {
			case s == src:
			case best.jobKey != "" && p.ancestors[best.jobKey]:
			case p.jobKey != "" && (best.ancestors[p.jobKey] || descendsFromJob(best, p.jobKey)):
				continue
			case !ranksAbove(p.mod, p.id, p.key, best.eff, best.id, best.key):
				continue
			}
			out = append(out, p)
		}
	}
	return out
}

func descendsFromJob(s *snap, jobKey string) bool {
	for a := range s.descends {
		if a.jobKey == jobKey {
			return true
		}
	}
	return false
}

func (r *Resolver) candidate(best *snap, heads []*snap, v *Verification, skipped []string, above []passed) resume.Candidate {
	pos := Position{Key: best.key, JobID: best.job, CheckpointID: best.md.CheckpointID, Savepoint: best.savepoint,
		Format: string(best.md.Format), Version: best.md.Version, Drained: best.md.Drained}
	if p, ok := best.m.uri(best.key); ok {
		pos.Path = strings.TrimSuffix(p, "/")
	}
	c := resume.Candidate{Resolver: r.opts.Name, Position: pos, Guarantee: resume.ExactlyOnce, At: best.mod}
	c.Reasons = append(c.Reasons, skipped...)
	kind := "checkpoint"
	if best.savepoint {
		kind = "savepoint"
	}
	c.Reasons = append(c.Reasons, fmt.Sprintf("%s: %s _metadata version %d, checkpoint id %d, %d operators, written %s (object modification time: _metadata records no time)",
		best.name(), kind, best.md.Version, best.md.CheckpointID, len(best.md.Operators), best.mod.UTC().Format(time.RFC3339)))
	if v != nil {
		c.Reasons = append(c.Reasons, fmt.Sprintf("%s: all %d checked referenced files exist with their recorded sizes (%d listing(s), %d attribute calls)",
			best.name(), len(v.Files)-v.Unchecked, v.Lists, v.Attributes))
	}
	for _, h := range heads {
		if h != best {
			c.Reasons = append(c.Reasons, rankReason(best, h))
		}
	}
	var broken, pathless []string
	for _, p := range above {
		switch {
		case p.pathless:
			pathless = append(pathless, p.name)
		case !p.incompatible: // applyJob warns about those
			broken = append(broken, p.name)
		}
	}
	if len(broken) > 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnOlderThanBroken, "older snapshot chosen because newer ones are broken (%s): they completed, so transactional sinks may already have published what they committed — expect duplicates downstream",
			strings.Join(broken, ", ")))
	}
	if len(pathless) > 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnOlderThanPathless, "older snapshot chosen because newer ones have no known Flink path (%s; pass the Flink root to use them): they completed, so transactional sinks may already have published what they committed — expect duplicates downstream",
			strings.Join(pathless, ", ")))
	}
	if best.md.Drained {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnDrainedSavepoint, "drained savepoint (stop --drain): the old job emitted its final watermark and fired all event-time timers; windows and timers do not resume where a running job would be"))
	}
	if v == nil {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnVerificationOff, "referenced files not checked: verification is off"))
	} else if v.Unchecked > 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnUnverifiedReferences, "references not checked: %s", v.Problem()))
	}
	if best.fromFallback {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnPathFromLocation, "the Flink path %s comes from the storage location (the snapshot's references are all relative): if Flink names this file system differently (s3a://, s3p://, an HDFS name service), pass the Flink root", pos.Path))
	}
	c.Warnings = append(c.Warnings, resume.Warnf(WarnKeepUntilFirstCheckpoint, "keep %s until the new job has completed its first checkpoint: the default NO_CLAIM restore never deletes it, but CLAIM mode hands it to the new job, which deletes it when subsumed", pos.Path))
	return c
}

// rankReason says truthfully why best ranks above h (see better).
func rankReason(best, h *snap) string {
	ts := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	switch {
	case h.jobKey != "" && best.ancestors[h.jobKey]:
		return fmt.Sprintf("%s references shared files of job dir %s: it descends from %s and is newer whatever the modification times say",
			best.name(), h.jobKey, h.name())
	case best.descends[h]:
		return fmt.Sprintf("%s descends from %s through the job dirs whose shared files it references: it is newer whatever the modification times say",
			best.name(), h.name())
	case best.eff.After(h.eff):
		hTime := ts(h.eff)
		if h.via != nil {
			hTime += " (of " + h.via.name() + ", which it descends from)"
		}
		if best.via == nil {
			return fmt.Sprintf("newer than %s by _metadata modification time (%s vs %s; copies reset modification times)",
				h.name(), ts(best.mod), hTime)
		}
		return fmt.Sprintf("ranks above %s: it descends from %s, whose _metadata modification time is newer (%s vs %s; copies reset modification times)",
			h.name(), best.via.name(), ts(best.eff), hTime)
	case best.id != h.id:
		return fmt.Sprintf("ranks above %s: same effective modification time (%s), higher checkpoint id (%d vs %d)",
			h.name(), ts(best.eff), best.id, h.id)
	default:
		return fmt.Sprintf("ranks above %s: same effective modification time (%s) and checkpoint id %d; first by key", h.name(), ts(best.eff), best.id)
	}
}
