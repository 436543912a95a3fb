package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/resume/redact"
)

// Store is Flink's high-availability.storageDir: the bucket opened there
// and the URI Flink names it by (the prefix of every pointer file's path).
type Store struct {
	Bucket *blob.Bucket
	// Dir is high-availability.storageDir as Flink's configuration says it
	// (s3://bucket/flink/ha, file:///flink/ha); pointer files outside it
	// are refused.
	Dir string
}

// ReadPointers reads the CompletedCheckpoint file of the newest entry of
// every job (the one HA recovery restores) from the store. It reads one
// file per job. A file outside storageDir, over [MaxCompletedBytes], missing or
// malformed is set as that entry's Err (Flink's recovery fails on it too);
// only the context's end is returned as an error.
func ReadPointers(ctx context.Context, s *Store, h *HA) error {
	for i := range h.Jobs {
		c := h.Jobs[i].Latest()
		if c == nil || c.Err != nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		c.Completed, c.Err = readCompleted(ctx, s.Bucket, s.Dir, c)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

func readCompleted(ctx context.Context, b *blob.Bucket, storageDir string, c *HACheckpoint) (*Completed, error) {
	key, err := KeyUnder(storageDir, c.File)
	if err != nil {
		return nil, fmt.Errorf("record: %s: %w", c.Name, err)
	}
	r, err := b.NewReader(ctx, key, nil)
	if err != nil {
		return nil, fmt.Errorf("record: %s: pointer file: %w", c.Name, err)
	}
	defer r.Close()
	if r.Size() > MaxCompletedBytes {
		return nil, malformed(c.File, "completed checkpoint of %d bytes, over %d", r.Size(), MaxCompletedBytes)
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxCompletedBytes+1))
	if err != nil {
		return nil, fmt.Errorf("record: %s: pointer file: %w", c.Name, err)
	}
	done, err := ParseCompleted(c.File, data)
	if err != nil {
		return nil, err
	}
	if done.CheckpointID != c.ID {
		return nil, malformed(c.File, "holds checkpoint %d, its entry %s says %d", done.CheckpointID, c.Name, c.ID)
	}
	return done, nil
}

// ErrOutsideStore marks a pointer file path outside the HA storage dir
// given (check with errors.Is): resumekit did not read it; Flink, whose
// storageDir it is, may.
var ErrOutsideStore = errors.New("record: path outside the HA storage dir")

// KeyUnder returns the bucket key of a file path Flink wrote (an absolute
// URI such as s3://bucket/ha/completedCheckpoint1f2e or
// file:/flink/ha/completedCheckpoint1f2e) relative to dir, the URI the
// bucket was opened at. A path on another scheme or host, or outside dir
// (after cleaning "." and ".."), is an error: a record never makes
// resumekit read outside the store it was given.
func KeyUnder(dir, file string) (string, error) {
	du, err1 := url.Parse(dir)
	fu, err2 := url.Parse(file)
	if err1 != nil || err2 != nil {
		return "", fmt.Errorf("path %s is not a URI", redact.Quote(file))
	}
	if scheme(du.Scheme) != scheme(fu.Scheme) || du.Host != fu.Host {
		return "", fmt.Errorf("path %s is outside the HA storage dir %s: %w", redact.Quote(file), redact.Quote(dir), ErrOutsideStore)
	}
	dp := path.Clean("/" + du.Path)
	fp := path.Clean("/" + fu.Path)
	if strings.Contains(fu.Path, "/../") || strings.HasSuffix(fu.Path, "/..") {
		return "", fmt.Errorf("path %s climbs out with ..: %w", redact.Quote(file), ErrOutsideStore)
	}
	rel, ok := strings.CutPrefix(fp, strings.TrimSuffix(dp, "/")+"/")
	if !ok || rel == "" {
		return "", fmt.Errorf("path %s is outside the HA storage dir %s: %w", redact.Quote(file), redact.Quote(dir), ErrOutsideStore)
	}
	return rel, nil
}

// scheme folds the schemes that name one file system: Hadoop's s3a/s3n/s3p
// and Flink's s3 are the same buckets; no scheme is a local file.
func scheme(s string) string {
	switch s = strings.ToLower(s); s {
	case "s3a", "s3n", "s3p":
		return "s3"
	case "":
		return "file"
	}
	return s
}
