package flinkckpt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/resume/redact"
)

// Sources reads the source positions stored in the checkpoint or savepoint
// dir at key (key may also name the _metadata object): it reads _metadata
// (without verifying the other referenced files) and decodes every source
// operator's reader and enumerator state with package
// [github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate], reading
// the state files of source operators whose reader state is not inline —
// relative files of savepoints, absolute files under the snapshot's own
// Flink root, and byte ranges of merged files. Other operators' files are
// not read.
//
// It returns the snapshot (as Inspect does, unverified) and the decoded
// state. A snapshot that cannot be read returns an error wrapping
// ErrNoMetadata, metadata.ErrMalformed or metadata.ErrTooLarge, or a
// storage error. Sources whose state could not be read or decoded carry
// their own Err, joined in the returned error together with the state; a
// state file that storage failed to return (not a missing one) wraps
// [ErrStateUnreadable].
//
// Cost: one _metadata read, plus one read per subtask of a source operator
// whose reader state is in a file.
func Sources(ctx context.Context, b *blob.Bucket, key string, opts *Options) (*Snapshot, *sourcestate.State, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.SkipVerify = true
	s, err := Inspect(ctx, b, key, &o)
	if err != nil {
		return s, nil, err
	}
	o = o.withDefaults()
	rd := &stateReader{ctx: ctx, b: b, snap: s, limit: sourcestate.DefaultMaxStreamSize}
	st, err := sourcestate.Decode(s.Metadata, &sourcestate.Options{ReadStream: rd.read, Context: ctx})
	if err != nil {
		err = fmt.Errorf("flinkckpt: source state of %s: %w", redact.QuoteKey(s.Key), err)
	}
	return s, st, err
}

// stateReader reads state files of one snapshot.
type stateReader struct {
	ctx   context.Context
	b     *blob.Bucket
	snap  *Snapshot
	limit int64
}

// key maps a state handle's path to a bucket key: relative paths below
// the snapshot dir; absolute ones by the snapshot's own Flink path (the
// bucket root's Flink URI is its Path without its Key).
func (r *stateReader) key(h *metadata.StreamHandle) (string, error) {
	if h.Type == metadata.TypeRelativeFile {
		if h.Path == "" || strings.HasPrefix(h.Path, "/") || strings.Contains("/"+h.Path+"/", "/../") {
			return "", fmt.Errorf("relative state file %s escapes the snapshot dir", redact.QuoteKey(h.Path))
		}
		return r.snap.Key + h.Path, nil
	}
	dir := strings.TrimSuffix(r.snap.Key, "/")
	if r.snap.Path == "" || !strings.HasSuffix(r.snap.Path, dir) {
		return "", fmt.Errorf("state file %s: the snapshot's Flink path is unknown, so absolute paths cannot be mapped to keys (pass the Flink root)", h.Path)
	}
	root := strings.TrimSuffix(r.snap.Path, dir)
	k, ok := strings.CutPrefix(h.Path, root)
	if !ok || k == "" || strings.Contains("/"+k+"/", "/../") {
		return "", fmt.Errorf("state file %s is not under %s, the Flink URI of this bucket", h.Path, root)
	}
	return k, nil
}

// readError wraps a storage error reading key: a missing file is the
// snapshot's problem, anything else marks the state unreadable.
func (r *stateReader) readError(key string, err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound && r.ctx.Err() == nil {
		return fmt.Errorf("flinkckpt: read %s: %w", redact.QuoteKey(key), err)
	}
	return fmt.Errorf("flinkckpt: read %s: %w: %w", redact.QuoteKey(key), ErrStateUnreadable, err)
}

func (r *stateReader) read(h *metadata.StreamHandle) ([]byte, error) {
	key, err := r.key(h)
	if err != nil {
		return nil, err
	}
	var off, n int64 = 0, -1
	if h.Type == metadata.TypeSegment {
		off, n = h.Start, h.Size
		if off < 0 || n < 0 {
			return nil, fmt.Errorf("segment of %s at %d, %d bytes", h.Path, off, n)
		}
		if n > r.limit {
			return nil, fmt.Errorf("%w: segment of %s: %d bytes, limit %d", sourcestate.ErrTooLarge, h.Path, n, r.limit)
		}
	}
	rd, err := r.b.NewRangeReader(r.ctx, key, off, n, nil)
	if err != nil {
		return nil, r.readError(key, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(io.LimitReader(rd, r.limit+1))
	if err != nil {
		return nil, r.readError(key, err)
	}
	if int64(len(data)) > r.limit {
		return nil, fmt.Errorf("%w: %s: more than %d bytes", sourcestate.ErrTooLarge, redact.QuoteKey(key), r.limit)
	}
	if n >= 0 && int64(len(data)) != n {
		return nil, fmt.Errorf("flinkckpt: %s: segment at %d of %d bytes, read %d", redact.QuoteKey(key), off, n, len(data))
	}
	return data, nil
}

// SinkState reads the Sink V2 committer state of a snapshot that Inspect,
// List or Sources returned (its Metadata set): every operator holding
// "streaming_committer_raw_states", decoded with package
// [github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate], reading
// the committer's state files when they are not inline (as Sources does
// for sources). Committers whose state could not be read or decoded carry
// their own Err, joined in the returned error together with the state; a
// state file that storage failed to return (not a missing one) wraps
// [ErrStateUnreadable].
//
// Cost: one read per committer subtask whose state is in a file.
func SinkState(ctx context.Context, b *blob.Bucket, s *Snapshot) (*sinkstate.State, error) {
	if s == nil || s.Metadata == nil {
		return nil, errors.New("flinkckpt: SinkState: snapshot without _metadata")
	}
	rd := &stateReader{ctx: ctx, b: b, snap: s, limit: sourcestate.DefaultMaxStreamSize}
	st, err := sinkstate.Decode(s.Metadata, &sinkstate.Options{ReadStream: rd.read, Context: ctx})
	if err != nil {
		err = fmt.Errorf("flinkckpt: committer state of %s: %w", redact.QuoteKey(s.Key), err)
	}
	return st, err
}
