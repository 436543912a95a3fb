package localblob

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"

	"github.com/resumekit/resumekit/resume/redact"
)

// Options configures OpenBucket. A nil *Options means defaults.
type Options struct {
	// NoSync skips the fsync of a written file before it is renamed into
	// place: faster for test fixtures, but after a machine crash the target
	// may be empty on some file systems.
	NoSync bool
	// OnReadDir, when set, is called with the directory (a slash path
	// relative to the bucket's directory, "" for the directory itself) each
	// time a listing reads one, for tests and cost accounting.
	OnReadDir func(dir string)
	// OnKey, when set, is called before a call runs with the key it names
	// (reads, attributes, writes, deletes; both keys of a copy) or with the
	// prefix of a listing, possibly concurrently. resumectl notes with it
	// which keys a command used, to show them as the paths they are.
	OnKey func(key string)
	// DirCache is how many directories' sorted entries are kept for page
	// tokens; default DefaultDirCache. Negative means none: every page reads
	// its directory again.
	DirCache int
}

// DefaultDirCache is the default Options.DirCache.
const DefaultDirCache = 16

// OpenBucket returns a bucket over the directory dir, which must exist. Keys
// are paths relative to dir; nothing outside it is read or written. Closing
// the bucket closes the directory handle.
func OpenBucket(dir string, opts *Options) (*blob.Bucket, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	drv, err := openDriver(dir, o)
	if err != nil {
		return nil, err
	}
	return blob.NewBucket(drv), nil
}

func openDriver(dir string, o Options) (*bucket, error) {
	if o.DirCache == 0 {
		o.DirCache = DefaultDirCache
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("localblob: %s: %w", redact.QuoteKey(dir), err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // it repeats the path
		}
		return nil, fmt.Errorf("localblob: open %s: %w", redact.QuoteKey(abs), err)
	}
	return &bucket{root: root, dir: abs, opts: o, cache: newDirCache(o.DirCache)}, nil
}

type bucket struct {
	root  *os.Root
	dir   string // absolute, for messages
	opts  Options
	cache *dirCache

	mu     sync.Mutex // guards closed
	closed bool
}

var _ driver.Bucket = (*bucket)(nil)

// As answers *os.FileInfo (the directory's) and **os.Root (the confined
// root; the caller must not close it).
func (b *bucket) As(i any) bool {
	switch p := i.(type) {
	case *os.FileInfo:
		fi, err := b.root.Stat(".")
		if err != nil {
			return false
		}
		*p = fi
		return true
	case **os.Root:
		*p = b.root
		return true
	case **bucket: // StatKeys
		*p = b
		return true
	}
	return false
}

// ErrorAs exposes *os.PathError and *os.LinkError.
func (b *bucket) ErrorAs(err error, i any) bool {
	switch p := i.(type) {
	case **os.PathError:
		return errors.As(err, p)
	case **os.LinkError:
		return errors.As(err, p)
	}
	return false
}

// SignedURL is not supported.
func (b *bucket) SignedURL(_ context.Context, key string, _ *driver.SignedURLOptions) (string, error) {
	return "", &Error{Op: "sign", Key: key, Err: errUnimplemented}
}

// Close closes the directory handle. Open readers and writers keep their
// own handles and finish normally.
func (b *bucket) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	return b.root.Close()
}

// note calls Options.OnKey.
func (b *bucket) note(keys ...string) {
	if b.opts.OnKey != nil {
		for _, k := range keys {
			b.opts.OnKey(k)
		}
	}
}

// checkKey reports whether key is a clean relative path and returns it in
// the operating system's form.
func checkKey(key string) (string, error) {
	switch {
	case key == "":
		return "", errors.New("empty key")
	case strings.HasPrefix(key, "/"):
		return "", errors.New(`leading "/"`)
	case strings.HasSuffix(key, "/"):
		return "", errors.New(`trailing "/" (a directory, not an object)`)
	case strings.IndexByte(key, 0) >= 0:
		return "", errors.New("NUL byte")
	case runtime.GOOS == "windows" && strings.ContainsAny(key, `\:`):
		return "", errors.New(`"\" or ":" on Windows`)
	}
	for seg := range strings.SplitSeq(key, "/") {
		switch seg {
		case "":
			return "", errors.New(`empty segment ("//")`)
		case ".", "..":
			return "", fmt.Errorf("%q segment", seg)
		}
	}
	return filepath.FromSlash(key), nil
}

// checkDir checks a directory key ("" or "a/b/") and returns its operating
// system path ("." for the root).
func checkDir(dir string) (string, error) {
	if dir == "" {
		return ".", nil
	}
	return checkKey(strings.TrimSuffix(dir, "/"))
}
