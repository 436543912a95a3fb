package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/internal/keyprefix"
)

// Ref names a snapshot a record will restore: by job and checkpoint id, or
// by path, or both.
type Ref struct {
	JobID        string
	CheckpointID int64
	Savepoint    bool
	// Path is Flink's external pointer (the snapshot dir's URI).
	Path string
}

// Storage says what storage holds for a snapshot a record names: the same
// classification flinkckpt's list, inspect and resolve use. found is false
// when storage has no such dir at all (deleted).
type Storage interface {
	Lookup(ctx context.Context, ref Ref) (snap *flinkckpt.Snapshot, found bool, err error)
}

// BucketStorage looks records' snapshots up in the checkpoint and savepoint
// locations a resolve reads, with flinkckpt.Inspect (one _metadata read and
// its file checks per lookup).
type BucketStorage struct {
	// Checkpoints is the checkpoint root (<prefix><job-id>/chk-<n>/); nil
	// when not given.
	Checkpoints       *blob.Bucket
	CheckpointsPrefix string
	// Savepoints is the savepoint dir (<prefix>savepoint-…/); nil when not
	// given.
	Savepoints       *blob.Bucket
	SavepointsPrefix string
	// Options are the resolve's flinkckpt options (roots, limits) for the
	// checkpoint root; SavepointOptions for the savepoint dir (nil: Options).
	Options, SavepointOptions *flinkckpt.Options
}

var chkPathRE = regexp.MustCompile(`/([0-9a-f]{32})/chk-([0-9]{1,19})/?$`)

// Lookup inspects the dir the ref names: a checkpoint of the job in the
// checkpoint root, or a savepoint dir (by its path's last name) in the
// savepoint dir. A ref that names no dir of these locations is an error.
func (s *BucketStorage) Lookup(ctx context.Context, ref Ref) (*flinkckpt.Snapshot, bool, error) {
	job, id := ref.JobID, ref.CheckpointID
	if m := chkPathRE.FindStringSubmatch(ref.Path); m != nil && !ref.Savepoint {
		n, err := strconv.ParseInt(m[2], 10, 64)
		if err == nil {
			job, id = m[1], n
		}
	}
	var b *blob.Bucket
	var key string
	opts := s.Options
	base := path.Base(strings.TrimSuffix(ref.Path, "/"))
	switch {
	case !ref.Savepoint && job != "" && id > 0 && s.Checkpoints != nil:
		b, key = s.Checkpoints, keyprefix.Normalize(s.CheckpointsPrefix)+job+"/chk-"+strconv.FormatInt(id, 10)+"/"
	case ref.Path != "" && strings.HasPrefix(base, "savepoint-") && s.Savepoints != nil:
		b, key = s.Savepoints, keyprefix.Normalize(s.SavepointsPrefix)+base+"/"
		if s.SavepointOptions != nil {
			opts = s.SavepointOptions
		}
	default:
		return nil, false, fmt.Errorf("record: no storage location given holds %s", refString(ref))
	}
	snap, err := flinkckpt.Inspect(ctx, b, key, opts)
	if errors.Is(err, flinkckpt.ErrNoMetadata) {
		it := b.List(&blob.ListOptions{Prefix: key})
		if _, lerr := it.Next(ctx); lerr == io.EOF {
			return snap, false, nil
		}
	}
	if snap == nil {
		return nil, false, err
	}
	return snap, true, nil
}

func refString(r Ref) string {
	switch {
	case r.Path != "":
		return r.Path
	case r.Savepoint:
		return fmt.Sprintf("savepoint %d", r.CheckpointID)
	}
	return fmt.Sprintf("checkpoint %d of job %s", r.CheckpointID, r.JobID)
}
