package flinkckpt

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/internal/keyprefix"
	"github.com/resumekit/resumekit/resume/redact"
)

// Snapshot is one checkpoint or savepoint dir and its state.
type Snapshot struct {
	// Key of the dir in the bucket, ending in "/".
	Key string
	// Path is the dir's Flink URI ("" when unknown: Reason asks for a
	// Flink root). For a StateTooLarge snapshot, whose _metadata is not
	// read, it is what Options.FlinkRoot (else FallbackFlinkRoot) names the
	// dir.
	Path         string
	JobID        string
	CheckpointID int64
	Savepoint    bool
	// KindUnknown marks a version 2 or 3 _metadata in a dir named neither
	// chk-<n> nor savepoint-…: checkpoint or savepoint, nothing tells.
	KindUnknown bool
	State       State
	// Reason says why the state is what it is.
	Reason string
	// ModTime is the _metadata modification time (zero when absent).
	ModTime time.Time
	// Metadata and Verification are set when read and checked.
	Metadata     *metadata.Checkpoint
	Verification *Verification
	// Err is set for StateUnknown.
	Err error
}

// List returns every chk-<n> and savepoint dir under prefix with its state:
// job dirs in key order, each newest checkpoint first, then savepoints,
// then the prefix itself when it holds a _metadata. It reads every
// _metadata and (unless opts.SkipVerify) checks every referenced file,
// concurrently. Per-snapshot storage failures are in each Snapshot's Err and
// joined in the returned error; a failure to list returns no snapshots.
func List(ctx context.Context, b *blob.Bucket, prefix string, opts *Options) ([]Snapshot, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	prefix = keyprefix.Normalize(prefix)
	rs, err := o.roots(prefix)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("flinkckpt: list %s: %w", redact.QuoteKey(prefix), err)
	}
	l, err := discover(ctx, b, prefix, o.JobID, o.Concurrency)
	if err != nil {
		return nil, err
	}
	if len(l.jobs) == 0 && len(l.savepoints) == 0 && !l.direct && l.entries > 0 {
		below, err := layoutBelow(ctx, b, prefix, o.Concurrency)
		if err != nil {
			return nil, err
		}
		if err := belowError(redact.QuoteKey(prefix), below); err != nil {
			return nil, err
		}
	}
	var out []Snapshot
	for _, j := range l.jobs {
		for _, id := range j.ids {
			out = append(out, Snapshot{Key: fmt.Sprintf("%schk-%d/", j.key, id), JobID: j.job, CheckpointID: id})
		}
	}
	for _, sp := range l.savepoints {
		out = append(out, Snapshot{Key: sp, Savepoint: true})
	}
	if l.direct {
		out = append(out, Snapshot{Key: prefix, Savepoint: isSavepointDir(prefix)})
	}
	// Eight snapshots at a time, each verifying with an eighth of the
	// concurrency: at most o.Concurrency calls in flight.
	errs := make([]error, len(out))
	each := o
	each.Concurrency = max(1, o.Concurrency/8)
	_ = parallel(ctx, len(out), 8, func(i int) error {
		_, errs[i] = inspect(ctx, b, &out[i], rs, each)
		return nil
	})
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("flinkckpt: list %s: %w", redact.QuoteKey(prefix), err)
	}
	return out, errors.Join(errs...)
}

// Inspect reads and verifies the _metadata of one checkpoint or savepoint
// dir (key may also name the _metadata object itself). Its error wraps
// ErrNoMetadata or metadata.ErrMalformed for a bad dir, is a *TooLargeError
// for a _metadata over the limit, and is a storage error otherwise; the
// snapshot is returned with what was found either way.
func Inspect(ctx context.Context, b *blob.Bucket, key string, opts *Options) (*Snapshot, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	dir := keyprefix.Normalize(strings.TrimSuffix(strings.TrimSuffix(key, "/"), "_metadata"))
	s := &Snapshot{Key: dir, Savepoint: isSavepointDir(dir)}
	if id, ok := chkID(lastSegment(dir) + "/"); ok {
		s.CheckpointID = id
		if j := lastSegment(parentDir(dir)); hexJobRE.MatchString(j) {
			s.JobID = j
		}
	}
	rs, err := o.roots(dir)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return s, fmt.Errorf("flinkckpt: inspect %s: %w", redact.QuoteKey(dir), err)
	}
	bad, err := inspect(ctx, b, s, rs, o)
	if err != nil {
		return s, err
	}
	return s, bad
}

// inspect reads, parses and verifies one snapshot, filling in its state. It
// returns what is wrong with the snapshot (bad) and storage errors (err)
// separately.
func inspect(ctx context.Context, b *blob.Bucket, s *Snapshot, rs *roots, o Options) (bad, err error) {
	md, mod, err := readMetadata(ctx, b, s.Key, o.MaxMetadataSize)
	var tooLarge *TooLargeError
	switch {
	case errors.Is(err, ErrNoMetadata):
		s.State, s.Reason = StateIncomplete, "no _metadata (in progress, failed or being deleted)"
		return err, nil
	case errors.As(err, &tooLarge):
		s.State, s.Reason, s.ModTime = StateTooLarge, err.Error(), mod
		// The _metadata that would tell was not read: the Flink path is
		// the given root's (or the location's likely root's) name for it.
		m := rs.given
		if m == nil {
			m = rs.fallback
		}
		if p, ok := m.uri(s.Key); ok {
			s.Path = strings.TrimSuffix(p, "/")
		}
		return err, nil
	case err != nil && isContentError(err):
		vd := unparsed(err) // state.go
		s.State, s.Reason = vd.state, vd.why
		return err, nil
	case err != nil:
		s.State, s.Reason, s.Err = StateUnknown, err.Error(), err
		return nil, err
	}
	s.Metadata, s.ModTime, s.CheckpointID = md, mod, md.CheckpointID
	s.Savepoint = s.Savepoint || md.Savepoint
	dirID, isChk := chkID(lastSegment(s.Key) + "/")
	s.KindUnknown = !s.Savepoint && !isChk && md.Version <= 3
	note := ""
	if isChk && dirID != md.CheckpointID {
		note += fmt.Sprintf("; _metadata records checkpoint id %d, not %d as its dir name says (copied by hand?)", md.CheckpointID, dirID)
	}
	if s.KindUnknown {
		note += fmt.Sprintf("; checkpoint or savepoint, nothing tells (version %d records no properties, and the dir is named neither chk-<n> nor savepoint-…)", md.Version)
	}
	abs := rs.absolute(md)
	inf, refused := rs.infer(s.Key, abs)
	m, probes := rs.given, 0
	contradiction := rs.contradiction(s.Key, inf)
	if m == nil {
		m, probes, err = settle(ctx, b, inf)
		if err != nil {
			s.State, s.Reason, s.Err = StateUnknown, err.Error(), err
			return nil, err
		}
		if m == nil && len(abs) == 0 {
			m = rs.fallback
		}
	}
	path, hasPath := m.uri(s.Key)
	if hasPath {
		s.Path = strings.TrimSuffix(path, "/")
	}
	noPath := note
	if !hasPath {
		if refused != "" {
			noPath += "; " + refused
		}
		noPath += "; no Flink path: pass the Flink URI of the location (Options.FlinkRoot, --flink-root)"
	}
	var v *Verification
	if !o.SkipVerify {
		v, err = verify(ctx, b, s.Key, path, md, m, rs, o.Concurrency)
		if err != nil {
			s.State, s.Reason, s.Err = StateUnknown, err.Error(), err
			return nil, err
		}
		v.Attributes += probes
		s.Verification = v
	}
	vd := classify(contradiction, v) // state.go: the one rule
	s.State = vd.state
	strict := ""
	if o.Strict {
		strict = " (strict mode: refused)"
	}
	switch {
	case vd.state == StateBroken:
		s.Reason = vd.why + noPath
		return fmt.Errorf("flinkckpt: %s: %s", redact.QuoteKey(s.Key), s.Reason), nil
	case vd.mapping:
		s.Reason = vd.why + strict + noPath
	case v == nil:
		s.Reason = fmt.Sprintf("_metadata version %d parses (%d file references not checked: verification is off)%s", md.Version, len(md.Files), noPath)
	case vd.state == StateUnverified:
		s.Reason = fmt.Sprintf("_metadata version %d, %d operators, %d checked referenced files exist with their recorded sizes; %s%s%s",
			md.Version, len(md.Operators), v.Checked(), vd.why, strict, noPath)
	default:
		s.Reason = fmt.Sprintf("_metadata version %d, %d operators, %d referenced files exist with their recorded sizes%s", md.Version, len(md.Operators), len(v.Files), noPath)
	}
	return nil, nil
}
