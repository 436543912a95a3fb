package salvage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/redact"
)

// DefaultName is the resolver's name when Options.Name is empty.
const DefaultName = "flink-salvage"

// live returns the checker set (empty when none).
func (o *Options) live() *livecheck.Checkers {
	if o.Live == nil {
		return &livecheck.Checkers{}
	}
	return o.Live
}

// KafkaLog is the live check of salvaged Kafka positions
// (livecheck.KafkaLog). kafkaoffset.Log implements it.
type KafkaLog = livecheck.KafkaLog

// KafkaCommits resolves the committed marker of salvaged Kafka positions
// (livecheck.KafkaCommits): a partition the old job had not started
// reading with OffsetsInitializer.committedOffsets() starts at its group's
// commit. A KafkaLog that implements it too is asked when
// Options.KafkaGroup is set. kafkaoffset.Log implements it.
type KafkaCommits = livecheck.KafkaCommits

// PaimonTable is the live check of a salvaged Paimon position
// (livecheck.PaimonTable). *paimon.Table implements it.
type PaimonTable = livecheck.PaimonTable

// Options configures a [Resolver]. A nil *Options means defaults.
type Options struct {
	// Name is the resolver's name in decisions; DefaultName when empty.
	Name string
	// Snapshot is the key of the checkpoint or savepoint dir to salvage.
	// When empty, From chooses it.
	Snapshot string
	// From chooses the snapshot when Snapshot is empty: a resolver whose
	// candidate's position is a flinkckpt position (a flinkckpt.Resolver,
	// or any resolver wrapping one — this is where a compatibility check
	// offers a snapshot whose state the new job would drop). nil means a
	// flinkckpt.Resolver over the same bucket and prefix with Flink
	// (verification off: salvage reads only _metadata and source state, so
	// a checkpoint whose keyed state files are gone is still salvageable).
	From resume.Resolver
	// Flink configures reading the snapshot (FlinkRoot, EntropyKey,
	// MaxMetadataSize; JobID and Locations for the default From). A
	// position of location i > 0 (flinkckpt.Position.Location) is read
	// from Flink.Locations[i-1]. Flink.Observe is honoured however the
	// snapshot is chosen: once it is, the location (with Flink.Locations)
	// is listed, watched for the window (Flink.Wait) and listed again, and
	// a checkpoint, job dir or savepoint dir that appeared fails Resolve
	// with a *flinkckpt.StillRunningError, as on the restore path.
	Flink *flinkckpt.Options
	// Live checks the snapshot's source positions against the live
	// systems that serve them, with the same checker set a flinkckpt
	// restore takes (flinkckpt.Options.Live): Kafka every Kafka source's
	// partitions, Paimon the Paimon source whose table dir ends in
	// <db>.db/<table> of its SQLName, MySQL MySQL CDC binlog positions
	// (the file and gtid_purged), Postgres with PostgresSlot Postgres CDC
	// sources (the slot also names the launch's slot.name and the
	// slot-advance statement; "<slot>" when empty). A nil Live, or a nil
	// checker, leaves those sources unchecked (with a warning).
	Live *livecheck.Checkers
	// KafkaGroup is the consumer group the old job's KafkaSource committed
	// to (its group.id). With it, and a Kafka checker that implements
	// KafkaCommits, a partition the old job had not started reading from
	// its group's commit (the committed marker) starts at the group's
	// commit today; without it such a partition is named, not guessed.
	KafkaGroup string
	// PaimonConsumer, when set, binds the Paimon source to this consumer id
	// at the salvaged snapshot (the reset_consumer call) instead of
	// scan.snapshot-id.
	PaimonConsumer string
	// Job is the job that will start (the same description a
	// flinkckpt.Resolver takes in flinkckpt.Options.Job). With it the
	// snapshot is salvaged only when the new job cannot restore its state
	// (jobgraph.CheckCompat finds state the job would drop, or a
	// parallelism it refuses): then the snapshot's state is lost to the new
	// job, but its source positions are not. A snapshot that restores
	// offers nothing (an error wrapping resume.ErrNoPosition): restoring
	// its state is the better start, and the flinkckpt resolver offers it.
	// The default From then picks the job's application by the job's
	// operators and takes its newest snapshot whatever the job restores of
	// it. Put a flinkckpt.Resolver and a salvage Resolver with the same Job
	// in one chain, and a refactored job whose state no longer fits gets an
	// exact stateless start automatically.
	Job *jobgraph.Job
	// SinkCommitted says the operator checked the sink and every
	// transaction of the snapshot was committed: the prepared transactions
	// a Sink V2 committer holds in the snapshot's state (which a stateless
	// start never commits) are no loss. Without it a snapshot whose
	// committer holds any is graded resume.DataLoss
	// ([WarnSinkTransactionsPending]); with it the grade stands and the
	// candidate carries [WarnSinkCommittedAsserted].
	SinkCommitted bool
	// StopProof, when set, is asked for the salvaged snapshot whether the
	// old job is known to have ended by a completed stop-with-savepoint at
	// it (a JobResultStore's clean entry of the job, finished after that
	// savepoint, is such proof): it returns what proves it, "" when
	// nothing does. A savepoint whose _metadata records a stop (post-
	// checkpoint action SUSPEND or TERMINATE) needs no hook. Either way
	// the committers' prepared transactions count as committed
	// ([WarnSinkCommittedByStop]). An error is a failure to look.
	StopProof func(ctx context.Context, snap *flinkckpt.Snapshot) (string, error)
}

// Resolver turns the source positions inside a Flink snapshot into a
// stateless start of every source exactly where the snapshot had them,
// checked against the live systems when checkers are given. It implements
// [resume.Resolver]; it is immutable and safe for concurrent use.
type Resolver struct {
	bucket *blob.Bucket
	prefix string
	o      Options
	flink  flinkckpt.Options
	from   resume.Resolver
	// watch observes the location for a given Snapshot (Flink.Observe);
	// nil when there is nothing to observe or From observes.
	watch *flinkckpt.Resolver
}

var (
	_ resume.Resolver         = (*Resolver)(nil)
	_ resume.GuaranteeBounder = (*Resolver)(nil)
)

// NewResolver returns a salvage resolver over the snapshots under prefix of
// bucket. Bad options fail here, before any I/O.
func NewResolver(bucket *blob.Bucket, prefix string, opts *Options) (*Resolver, error) {
	if bucket == nil {
		return nil, errors.New("salvage: nil bucket")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = DefaultName
	}
	r := &Resolver{bucket: bucket, prefix: prefix, o: o}
	if o.Flink != nil {
		r.flink = *o.Flink
	}
	if o.PaimonConsumer != "" && (o.PaimonConsumer != stringsClean(o.PaimonConsumer)) {
		return nil, fmt.Errorf("salvage: consumer id %s contains '/', '\\\\', '..' or control characters", redact.Quote(o.PaimonConsumer))
	}
	r.from = o.From
	if fr, ok := o.From.(*flinkckpt.Resolver); ok && fr.RejectsIncompatible() && o.Snapshot == "" {
		return nil, fmt.Errorf("salvage: From is %s, a flinkckpt.Resolver that checks the new job: it never offers a snapshot the job cannot restore, which is the one to salvage, so salvage would never have a position: %w",
			fr.Name(), ErrFromChecksJob)
	}
	if r.from == nil && o.Snapshot == "" {
		fo := r.flink
		// The window is watched once, below, whichever way the snapshot
		// is chosen.
		fo.Name, fo.SkipVerify, fo.Observe = o.Name+"-snapshot", true, 0
		if o.Job != nil && !o.Job.ParallelismOnly() {
			// The job identifies its application; allowing non-restored
			// state, and leaving out the parallelism the restore check
			// would refuse, keeps the newest snapshot in play whatever the
			// job restores of it (its grade does not matter here: only its
			// key is used).
			fo.Job, fo.AllowNonRestoredState = operatorsOnly(o.Job), true
		}
		fr, err := flinkckpt.NewResolver(bucket, prefix, &fo)
		if err != nil {
			return nil, fmt.Errorf("salvage: %w", err)
		}
		r.from = fr
	}
	if r.flink.Observe > 0 {
		// Every candidate from a Flink location honours the window, a
		// snapshot given by key too: the old job may still be
		// checkpointing beside it.
		fo := r.flink
		fo.Name, fo.SkipVerify, fo.Job = o.Name+"-observe", true, nil
		w, err := flinkckpt.NewResolver(bucket, prefix, &fo)
		if err != nil {
			return nil, fmt.Errorf("salvage: %w", err)
		}
		r.watch = w
	}
	return r, nil
}

// operatorsOnly returns the job's operators without the parallelism and
// max parallelism a restore is checked against.
func operatorsOnly(j *jobgraph.Job) *jobgraph.Job {
	out := &jobgraph.Job{Unpredictable: j.Unpredictable, AllUIDs: j.AllUIDs}
	for _, op := range j.Operators {
		op.Parallelism, op.MaxParallelism = 0, 0
		_ = out.Add(op) // ids of a Job are valid
	}
	return out
}

// stringsClean returns id with what could escape a consumer folder removed.
func stringsClean(id string) string {
	out := make([]rune, 0, len(id))
	for i, c := range id {
		if c == '/' || c == '\\' || c < 0x20 || c == 0x7f || c == '.' && i+1 < len(id) && id[i+1] == '.' {
			continue
		}
		out = append(out, c)
	}
	return string(out)
}

// Name returns the resolver's name.
func (r *Resolver) Name() string { return r.o.Name }

// MaxGuarantee is the best the resolver offers (resume.GuaranteeBounder):
// the input continues exactly, and operator state starts empty. Under the
// chain's fail-closed policy a failed salvage blocks every weaker
// candidate.
func (r *Resolver) MaxGuarantee() resume.Guarantee { return resume.ExactInput }

// Resolve reads the snapshot's source state and returns a candidate whose
// launch starts every source where the snapshot had it. The guarantee is
// [resume.ExactInput] when every position is exact and (when checked)
// still available; [resume.Replay] when some input is read again (a
// partly read Paimon snapshot, a MySQL CDC source still in its snapshot
// phase, a Kafka partition whose start the old job had not resolved); and
// [resume.DataLoss] when a live check finds records or snapshots gone,
// naming them, or when the launch cannot start a source at its offsets (a
// KafkaSource that read several topics: [WarnSeveralTopics]), or when a
// Sink V2 committer in the snapshot holds prepared transactions a
// stateless start never commits ([WarnSinkTransactionsPending], unless
// Options.SinkCommitted). It returns an error wrapping [resume.ErrNoPosition] when
// the snapshot has no source, or a source resumekit does not know (its
// operator id and split serializer version are in the message), or a
// source without any position; other errors when the snapshot or a live
// system could not be read.
func (r *Resolver) Resolve(ctx context.Context) (resume.Candidate, error) {
	if err := ctx.Err(); err != nil {
		return resume.Candidate{}, fmt.Errorf("salvage: %w", err)
	}
	key, at, why, err := r.snapshot(ctx)
	if err != nil {
		return resume.Candidate{}, err
	}
	observed := ""
	if r.watch != nil {
		if observed, err = r.watch.Observe(ctx); err != nil {
			return resume.Candidate{}, fmt.Errorf("salvage: %w", err)
		}
	}
	bucket, fo := r.bucket, r.flink
	if at > 0 {
		// A snapshot of one of Flink.Locations (a savepoint dir beside the
		// checkpoint root): read it there, with that location's root.
		if at > len(r.flink.Locations) {
			return resume.Candidate{}, fmt.Errorf("salvage: %s chose a snapshot of location %d, and Flink.Locations has %d", r.from.Name(), at, len(r.flink.Locations))
		}
		l := r.flink.Locations[at-1]
		bucket, fo.FlinkRoot, fo.FallbackFlinkRoot = l.Bucket, l.FlinkRoot, l.FallbackFlinkRoot
	}
	fo.Locations = nil
	snap, st, err := flinkckpt.Sources(ctx, bucket, key, &fo)
	if st == nil {
		return resume.Candidate{}, fmt.Errorf("salvage: %w", err)
	}
	name := snap.Path
	if name == "" {
		name = snap.Key
	}
	x := &resolution{r: r, c: resume.Candidate{Resolver: r.o.Name, Guarantee: resume.ExactInput, At: snap.ModTime}}
	if why != "" {
		x.reason("%s", why)
	}
	if observed != "" {
		x.reason("%s", observed)
	}
	if r.o.Job != nil {
		// Before the source state's errors: a snapshot the job restores is
		// no salvage case, whatever its source state holds.
		compat := jobgraph.CheckCompat(snap.Metadata, r.o.Job)
		if compat.Restorable(false) && len(compat.Unknown) > 0 {
			// Never salvage on a guess: Flink may restore them.
			return resume.Candidate{}, fmt.Errorf("salvage: %s may restore into the new job with its state: every operator with state is in the job, or unknown (%s: no operator of the job's description has their ids, and they may be uid-less operators of the new job); restore it instead, or name the job's operators fully (jobgraph.Job.AllUIDs, --flink-all-uids, or their ids with --flink-operator-id); nothing to salvage: %w",
				name, compat.UnknownNames(), resume.ErrNoPosition)
		}
		if compat.Restorable(false) {
			return resume.Candidate{}, fmt.Errorf("salvage: %s restores into the new job with its state (every operator with state is in the job): restore it instead; nothing to salvage: %w", name, resume.ErrNoPosition)
		}
		x.reason("%s cannot be restored into the new job (%s): its state is lost to it, its source positions are not", name, compatSummary(compat))
	}
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, flinkckpt.ErrStateUnreadable) {
			// Storage failed to return state that may well be there: a
			// failure to look, which blocks weaker candidates.
			return resume.Candidate{}, fmt.Errorf("salvage: %w", err)
		}
		// The snapshot's source state cannot give a position (malformed,
		// missing files, too large): honestly nothing to salvage.
		return resume.Candidate{}, fmt.Errorf("salvage: %s: no position can be derived from its source state: %w: %w", name, resume.ErrNoPosition, err)
	}
	x.reason("%s (checkpoint %d, _metadata version %d): %d source operator(s); positions as of the snapshot, written %s (object modification time)",
		name, snap.CheckpointID, snap.Metadata.Version, len(st.Sources), snap.ModTime.UTC().Format(time.RFC3339))
	if len(st.Sources) == 0 {
		return resume.Candidate{}, fmt.Errorf("salvage: %s holds no source state: %w", name, resume.ErrNoPosition)
	}
	pos := Position{Snapshot: snap.Path, SnapshotKey: snap.Key, CheckpointID: snap.CheckpointID}
	for i := range st.Sources {
		s, err := x.source(ctx, &st.Sources[i])
		if err != nil {
			return resume.Candidate{}, err
		}
		x.legacyStop(snap.Metadata, &st.Sources[i]) // legacystop.go
		pos.Sources = append(pos.Sources, s)
	}
	if err := x.sinks(ctx, bucket, snap, &pos); err != nil {
		return resume.Candidate{}, err
	}
	if len(pos.Sources) > 1 && pos.Launch().IsZero() {
		x.warn(WarnSeveralSources, "%d sources whose connector options collide: start each with its own options from the position", len(pos.Sources))
	}
	x.c.Position = pos
	return x.c, nil
}

// compatSummary says why the new job cannot restore a snapshot: the
// operators whose state it would drop, and any fatal problem.
func compatSummary(c *jobgraph.Compat) string {
	var parts []string
	if d := c.DroppedOperators(); len(d) > 0 {
		parts = append(parts, fmt.Sprintf("state of %d operator(s) would be dropped: %s", len(d), c.DroppedNames()))
	}
	for _, p := range c.Problems {
		if p.Fatal {
			parts = append(parts, p.Text)
		}
	}
	if len(parts) == 0 {
		return "it does not fit"
	}
	return strings.Join(parts, "; ")
}

// snapshot returns the key of the snapshot to salvage, its location (0:
// the resolver's bucket, i: Flink.Locations[i-1]) and why it is that one.
func (r *Resolver) snapshot(ctx context.Context) (key string, at int, why string, err error) {
	if r.o.Snapshot != "" {
		return r.o.Snapshot, 0, "", nil
	}
	c, err := r.from.Resolve(ctx)
	var noPath *flinkckpt.NoFlinkPathError
	if errors.As(err, &noPath) {
		// Salvage restores no state and needs no -s path: a canonical
		// savepoint without a Flink root is read by its key.
		return noPath.Key, noPath.Location, fmt.Sprintf("snapshot chosen by %s: %s (no Flink path without a Flink root: salvage needs none, it reads the snapshot by key)",
			r.from.Name(), noPath.Key), nil
	}
	if errors.Is(err, flinkckpt.ErrIncompatible) {
		// A From (wrapping a flinkckpt.Resolver) that rejects what the new
		// job cannot restore passed over the very snapshot to salvage: a
		// setup error, never a silent "no position".
		return "", 0, "", fmt.Errorf("salvage: %s offered no snapshot because the new job restores none of them (%s): %w", r.from.Name(), strings.ReplaceAll(err.Error(), "\n", "; "), ErrFromChecksJob)
	}
	if err != nil {
		return "", 0, "", fmt.Errorf("salvage: choose the snapshot: %w", err)
	}
	p, err := flinkckpt.PositionOf(c.Position)
	if err != nil {
		return "", 0, "", fmt.Errorf("salvage: %s chose a %s position, not a Flink snapshot: %w", r.from.Name(), c.Position.Kind(), err)
	}
	return p.Key, p.Location, fmt.Sprintf("snapshot chosen by %s: %s", r.from.Name(), p), nil
}

type resolution struct {
	r *Resolver
	c resume.Candidate
}

func (x *resolution) reason(format string, args ...any) {
	x.c.Reasons = append(x.c.Reasons, fmt.Sprintf(format, args...))
}

func (x *resolution) warn(code resume.WarningCode, format string, args ...any) {
	x.c.Warnings = append(x.c.Warnings, resume.Warnf(code, format, args...))
}

// valid records a source's time to loss (livecheck.KafkaRetention,
// PaimonRetention); the candidate keeps the earliest, each reason is kept.
func (x *resolution) valid(until time.Time, why string) {
	if why != "" {
		x.c.Reasons = append(x.c.Reasons, why)
	}
	if !until.IsZero() && (x.c.ValidUntil.IsZero() || until.Before(x.c.ValidUntil)) {
		x.c.ValidUntil = until
	}
}

// grade lowers the candidate's guarantee to g.
func (x *resolution) grade(g resume.Guarantee) {
	if g < x.c.Guarantee {
		x.c.Guarantee = g
	}
}

func (x *resolution) source(ctx context.Context, s *sourcestate.Source) (Source, error) {
	out := Source{OperatorID: s.OperatorID, UID: s.UID, Kind: s.Kind}
	label := s.OperatorID
	if s.UID != "" {
		label += " (uid " + s.UID + ")"
	}
	switch s.Kind {
	case sourcestate.KindKafka:
		return out, x.kafka(ctx, label, s, &out)
	case sourcestate.KindPaimon:
		return out, x.paimon(ctx, label, s, &out)
	case sourcestate.KindMySQLCDC:
		return out, x.mysql(ctx, label, s, &out)
	case sourcestate.KindPostgresCDC:
		return out, x.postgres(ctx, label, s, &out)
	}
	version := "no splits"
	if s.SplitVersion >= 0 {
		version = fmt.Sprintf("split serializer version %d", s.SplitVersion)
	}
	return out, fmt.Errorf("salvage: source %s is of a kind resumekit does not know (%s; %v): no stateless start can be derived for it: %w",
		label, version, s.Notes, resume.ErrNoPosition)
}
