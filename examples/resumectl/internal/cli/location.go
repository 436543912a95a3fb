package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"regexp"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/memblob" // mem://; the cloud drivers are in drivers*.go

	"github.com/resumekit/resumekit/internal/keyprefix"
	"github.com/resumekit/resumekit/resume/localblob"
	"github.com/resumekit/resumekit/resume/redact"
)

// location is a bucket and a prefix inside it, opened from a resumectl URL.
type location struct {
	Bucket *blob.Bucket
	Prefix string // "" or "dir/"
	// Display is the URL with credentials removed, for reports and errors.
	Display string
	// Root is the local directory the bucket is confined to, for local
	// paths and file:// URLs; "" otherwise.
	Root string
	// FlinkFallback is how Flink most likely names the bucket's root when
	// nothing else tells (s3://bucket/, gs://bucket/); "" when unknown.
	FlinkFallback string
	// BucketName is the bucket's name for s3:// and gs:// URLs (the URL's
	// host): an inferred Flink root must name it (flinkckpt.Options.BucketName).
	BucketName string
	// under are the buckets behind Bucket's wrappers (a test hook's, the
	// tracer's), which leave them open: the opened bucket first.
	under []*blob.Bucket
}

// Close closes the bucket, waiting for it only while ctx lasts: after the
// deadline a call blocked in the store holds the bucket, and Close would
// wait for it forever.
func (l *location) Close(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.Bucket.Close()
		for i := len(l.under) - 1; i >= 0; i-- {
			l.under[i].Close()
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// openLocation opens a resumectl URL: a plain local path or a file URL
// (file:///dir, Flink's file:/dir, the scheme in any case: whatever
// localblob.LocalPath calls local; a localblob bucket confined to the
// directory, which is the bucket's root: nothing outside it is read or
// written, links leading out are refused),
// mem://, or a gocloud bucket URL with a path (s3://bucket/path?region=…,
// gs://bucket/path, azblob://container/path), whose path becomes the prefix.
// s3:// buckets refuse HTTP redirects. Errors never contain credentials.
func openLocation(ctx context.Context, e *env, raw string) (*location, error) {
	return openLocationAt(ctx, e, raw, false)
}

// chkDirRE matches a Flink checkpoint dir name.
var chkDirRE = regexp.MustCompile(`^chk-[1-9][0-9]*$|^chk-0$`)

// openLocationAt is openLocation; with flink set, a local chk-<n> dir is
// confined to its parent, the job dir, so that the checkpoint's shared/ and
// taskowned/ files can be verified (Flink's layout:
// <root>/<job-id>/{chk-<n>,shared,taskowned}).
func openLocationAt(ctx context.Context, e *env, raw string, flink bool) (*location, error) {
	if raw == "" {
		return nil, usagef("empty storage URL")
	}
	abs, local, err := localblob.LocalPath(raw)
	if err != nil {
		return nil, usagef("%v", err)
	}
	var loc *location
	if local {
		var keys func(string) func(string)
		if e != nil {
			keys = e.paths.dir
		}
		loc, err = openLocal(abs, flink, keys)
	} else {
		loc, err = openRemote(ctx, raw)
	}
	if err != nil {
		return nil, err
	}
	if e != nil && e.hooks != nil && e.hooks.bucket != nil {
		loc.under, loc.Bucket = append(loc.under, loc.Bucket), e.hooks.bucket(loc.Bucket)
	}
	if e != nil && e.trace != nil {
		loc.under, loc.Bucket = append(loc.under, loc.Bucket), e.trace.wrap(loc.Bucket, loc.Display)
	}
	return loc, nil
}

func openRemote(ctx context.Context, raw string) (*location, error) {
	if err := redact.CheckNested(raw); err != nil {
		// An endpoint with credentials: the SDK would quote it later.
		return nil, usagef("storage URL %v", err)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, usagef("bad storage URL %s: %v", redact.URL(raw), redact.ParseError(err))
	}
	prefix := keyprefix.Normalize(u.Path)
	display := redact.URL(raw)
	u.Path, u.RawPath = "", ""
	b, err := openCloud(ctx, u) // drivers.go

	if err != nil {
		// Drivers quote the URL they were given: mask it here already.
		return nil, redact.New(raw).Error(fmt.Errorf("open %s: %w", display, err))
	}
	loc := &location{Bucket: b, Prefix: prefix, Display: display}
	switch u.Scheme {
	case "s3", "gs":
		// Flink's S3 file systems (Hadoop and Presto) both serve s3://, and
		// its GCS file system gs://.
		loc.FlinkFallback = u.Scheme + "://" + u.Host + "/"
		loc.BucketName = u.Host
	}
	return loc, nil
}

// openLocal opens a local directory (absolute, as localblob.LocalPath
// returns it) with localblob. With flink set, a chk-<n> dir is opened at its
// parent, with the dir as the prefix. keys, when set, gives the bucket's
// Options.OnKey for its directory (localPaths.dir).
func openLocal(abs string, flink bool, keys func(dir string) func(string)) (*location, error) {
	root, prefix := abs, ""
	if flink && chkDirRE.MatchString(filepath.Base(abs)) {
		root, prefix = filepath.Dir(abs), filepath.Base(abs)+"/"
	}
	var opts localblob.Options
	if keys != nil {
		opts.OnKey = keys(root)
	}
	b, err := localblob.OpenBucket(root, &opts)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("local path %s does not exist", root)
	}
	if err != nil {
		return nil, fmt.Errorf("local path %s: %w", abs, err)
	}
	return &location{Bucket: b, Prefix: prefix, Display: abs, Root: root}, nil
}
