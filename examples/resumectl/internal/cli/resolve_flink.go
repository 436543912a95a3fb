package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/resume"
)

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
