package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // azblob://
	"gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/gcsblob" // gs://
	_ "gocloud.dev/blob/memblob" // mem://
	_ "gocloud.dev/blob/s3blob"  // s3://

	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// location is a bucket and a prefix inside it, opened from a resumectl URL.
type location struct {
	Bucket *blob.Bucket
	Prefix string // "" or "dir/"
	// Display is the URL with credentials removed, for reports and errors.
	Display string
	// Local is the absolute directory for local paths and file:// URLs, ""
	// otherwise.
	Local string
	inner *blob.Bucket // the fileblob bucket behind the symlink guard
	// FlinkFallback is how Flink most likely names the bucket's root when
	// nothing else tells (s3://bucket/, gs://bucket/); "" when unknown.
	FlinkFallback string
}

// Close closes the bucket (and the file-system bucket under a local guard).
func (l *location) Close() error {
	err := l.Bucket.Close()
	if l.inner != nil {
		err = errors.Join(err, l.inner.Close())
	}
	return err
}

// openLocation opens a resumectl URL: a plain local path or file:///dir (the
// file system root is the bucket, so that files next to the directory, such
// as a job's shared/ folder, stay reachable; the directory is the prefix),
// mem://, or a gocloud bucket URL with a path (s3://bucket/path?region=…,
// gs://bucket/path, azblob://container/path), whose path becomes the prefix.
// Errors never contain credentials.
func openLocation(ctx context.Context, raw string) (*location, error) {
	if raw == "" {
		return nil, usagef("empty storage URL")
	}
	if !strings.Contains(raw, "://") || strings.HasPrefix(raw, "file://") {
		return openLocal(raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, usagef("bad storage URL %s: %v", redact(raw), redactErr(err))
	}
	prefix := normalizePrefix(u.Path)
	display := redact(raw)
	u.Path, u.RawPath = "", ""
	b, err := blob.OpenBucket(ctx, u.String())
	if err != nil {
		return nil, fmt.Errorf("open %s: %s", display, redact(err.Error()))
	}
	loc := &location{Bucket: b, Prefix: prefix, Display: display}
	switch u.Scheme {
	case "s3", "gs":
		// Flink's S3 file systems (Hadoop and Presto) both serve s3://, and
		// its GCS file system gs://.
		loc.FlinkFallback = u.Scheme + "://" + u.Host + "/"
	}
	return loc, nil
}

func openLocal(raw string) (*location, error) {
	p := raw
	if strings.HasPrefix(raw, "file://") {
		u, err := url.Parse(raw)
		if err != nil {
			return nil, usagef("bad file URL %q: %v", raw, err)
		}
		if u.Host != "" && u.Host != "localhost" {
			return nil, usagef("file URL %q names host %q: only local paths are supported", raw, u.Host)
		}
		p = u.Path
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, fmt.Errorf("local path %q: %w", raw, err)
	}
	root := filepath.VolumeName(abs) + string(filepath.Separator)
	// MetadataDontWrite: no ".attrs" side files next to what we write (a
	// Paimon consumer folder must hold consumer files only).
	b, err := fileblob.OpenBucket(root, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		return nil, fmt.Errorf("open local path %q: %w", raw, err)
	}
	rel := strings.TrimPrefix(filepath.ToSlash(abs), filepath.ToSlash(root))
	prefix := normalizePrefix(rel)
	guarded, err := confine(b, root, prefix, abs)
	if err != nil {
		b.Close()
		return nil, err
	}
	return &location{Bucket: guarded, Prefix: prefix, Display: abs, Local: abs, inner: b}, nil
}

// confine guards a file-system bucket opened at root: a key under prefix
// (the directory the user named) that resolves through a symlink to a place
// outside that directory is refused, so that a hostile checkpoint or table
// tree cannot make resumectl read or write elsewhere (chk-9 -> /etc, a
// consumer folder linked out of the table). Keys outside the directory —
// a checkpoint's ../shared files, reached from flink inspect — are not
// confined. Keys that do not exist pass, and come back NotFound.
func confine(b *blob.Bucket, root, prefix, dir string) (*blob.Bucket, error) {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			realDir = dir // nothing there yet; every key will be NotFound
		} else {
			return nil, fmt.Errorf("local path %s: %w", dir, err)
		}
	}
	check := func(c blobtest.Call) error {
		if !strings.HasPrefix(c.Key, prefix) {
			return nil
		}
		p := filepath.Join(root, filepath.FromSlash(c.Key))
		// A key that does not exist yet (a write, a NotFound read) is judged
		// by its nearest existing ancestor: a linked-out folder counts.
		for q := p; ; q = filepath.Dir(q) {
			real, err := filepath.EvalSymlinks(q)
			if err == nil {
				if real != realDir && !strings.HasPrefix(real, realDir+string(filepath.Separator)) {
					return fmt.Errorf("refusing %s: it resolves through a symlink to %s, outside %s", q, real, dir)
				}
				return nil
			}
			if q == dir || len(q) <= len(dir) {
				return nil
			}
		}
	}
	// blobtest's wrapper is a gocloud driver over the public blob API whose
	// Fault hook sees every call's key first: exactly the hook a guard needs.
	guarded, _ := blobtest.Wrap(b, &blobtest.Options{Fault: check})
	return guarded, nil
}

// normalizePrefix turns a path into "" or "dir/".
func normalizePrefix(p string) string {
	p = strings.Trim(p, "/")
	if p == "" || p == "." {
		return ""
	}
	return p + "/"
}

var (
	userinfoRE = regexp.MustCompile(`://[^/@\s]*@`)
	secretRE   = regexp.MustCompile(`(?i)([?&;\s](?:[a-z0-9_.-]*(?:secret|token|password|passwd|credential|signature|sig|sas|access_key|accesskey|key_id|private_key|account_key)[a-z0-9_.-]*)=)[^&\s"']*`)
)

// redact removes user information and secret-looking query values from URLs
// inside s.
func redact(s string) string {
	s = userinfoRE.ReplaceAllString(s, "://REDACTED@")
	return secretRE.ReplaceAllString(s, "${1}REDACTED")
}

type redactedError struct{ msg string }

func (e redactedError) Error() string { return e.msg }

func redactErr(err error) error { return redactedError{redact(err.Error())} }
