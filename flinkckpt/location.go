package flinkckpt

import (
	"errors"
	"fmt"
	"strings"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/internal/keyprefix"
	"github.com/resumekit/resumekit/resume/redact"
)

// Location is a further place a Resolver looks (Options.Locations), ranked
// together with the resolver's own: typically the savepoint dir
// (execution.checkpointing.savepoint-dir, state.savepoints.dir) beside the
// checkpoint root (execution.checkpointing.dir, state.checkpoints.dir).
// One Resolver over both groups their snapshots into applications, ranks a
// job's checkpoints against the savepoints it took by checkpoint id, and
// watches both while observing; two Resolvers, one per location, could
// only compare modification times, across applications too.
type Location struct {
	// Bucket holds the location.
	Bucket *blob.Bucket
	// Prefix is the location's key prefix in Bucket, in the forms
	// NewResolver's prefix takes.
	Prefix string
	// FlinkRoot is the Flink file-system URI of Prefix or of a parent dir,
	// as Options.FlinkRoot is the resolver's own location's; inferred per
	// snapshot when empty.
	FlinkRoot string
	// FallbackFlinkRoot is Options.FallbackFlinkRoot for this location.
	FallbackFlinkRoot string
	// BucketName is Options.BucketName for this location.
	BucketName string
}

// loc is one location a Resolver reads: the resolver's own (index 0) or
// Options.Locations[index-1].
type loc struct {
	index  int
	bucket *blob.Bucket
	prefix string
	roots  *roots
	name   string // for messages: see locName
}

// locName names a location in messages: its Flink root joined with its
// prefix when a root is given (a local directory resumectl opened is
// file:///data/ck, never ""), else its quoted prefix, else "the bucket's
// root".
func locName(prefix, flinkRoot, fallback string) string {
	root := flinkRoot
	if root == "" {
		root = fallback
	}
	root = strings.TrimSuffix(root, "/")
	p := strings.TrimSuffix(prefix, "/")
	switch {
	case root != "" && (p == "" || strings.HasSuffix(root, "/"+p)):
		return redact.QuoteKey(redact.URL(root))
	case root != "":
		return redact.QuoteKey(redact.URL(root + "/" + p))
	case prefix == "":
		return "the bucket's root"
	}
	return redact.QuoteKey(prefix)
}

// newLocs returns the resolver's locations: its own, then o.Locations.
func newLocs(bucket *blob.Bucket, prefix string, o Options) ([]*loc, error) {
	own := &loc{bucket: bucket, prefix: keyprefix.Normalize(prefix)}
	own.name = locName(own.prefix, o.FlinkRoot, o.FallbackFlinkRoot)
	rs, err := o.roots(own.prefix)
	if err != nil {
		return nil, err
	}
	own.roots = rs
	out := []*loc{own}
	for i, l := range o.Locations {
		if l.Bucket == nil {
			return nil, fmt.Errorf("flinkckpt: location %d (prefix %s): nil bucket", i+1, redact.QuoteKey(l.Prefix))
		}
		lo := o
		lo.FlinkRoot, lo.FallbackFlinkRoot, lo.BucketName = l.FlinkRoot, l.FallbackFlinkRoot, l.BucketName
		if err := lo.validate(); err != nil {
			return nil, wrapf(err, "flinkckpt: location %d", i+1)
		}
		x := &loc{index: i + 1, bucket: l.Bucket, prefix: keyprefix.Normalize(l.Prefix)}
		x.name = locName(x.prefix, l.FlinkRoot, l.FallbackFlinkRoot)
		if x.roots, err = lo.roots(x.prefix); err != nil {
			return nil, wrapf(err, "flinkckpt: location %d", i+1)
		}
		for _, y := range out {
			if y.bucket == x.bucket && (strings.HasPrefix(x.prefix, y.prefix) || strings.HasPrefix(y.prefix, x.prefix)) {
				return nil, fmt.Errorf("flinkckpt: location %d (prefix %s) overlaps prefix %s of the same bucket: %w", i+1, redact.QuoteKey(x.prefix), redact.QuoteKey(y.prefix), errOverlap)
			}
		}
		out = append(out, x)
	}
	return out, nil
}

var errOverlap = errors.New("a snapshot would be counted twice")

// where names the resolver's locations in messages: "ck/", or "ck/" and
// "sp/".
func (r *Resolver) where() string {
	q := make([]string, len(r.locs))
	for i, l := range r.locs {
		q[i] = l.name
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
