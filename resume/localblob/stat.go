package localblob

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// KeyStat is what [StatKeys] reports of one key.
type KeyStat struct {
	// Exists is false where Attributes would report NotFound: nothing at the
	// key, a directory, or a key that cannot exist here.
	Exists  bool
	Size    int64
	ModTime time.Time
}

// StatKeys reports the size and modification time of each key (in the order
// given) of a bucket opened with OpenBucket, with the answers Attributes
// would give at a fraction of the cost: each directory the keys are in is
// opened once, through the root, and each key then costs one system call
// relative to it, instead of a path walk through the root and gocloud's
// per-call tracing for every key. A key whose answer there is anything but
// a regular file (a link, say, which must be resolved against the whole
// root) is asked again exactly as Attributes asks it. It is meant for many
// keys in few directories, as a checkpoint's shared/ files are.
//
// ok is false, with nothing done, for a bucket whose driver is not
// localblob's (Bucket.As reaches it through wrappers that pass As on, as
// blobtest's do: such a wrapper is bypassed). The error is the first key
// Attributes would fail on other than with NotFound — a link leading out of
// the directory (ErrOutside), something other than a regular file
// (ErrNotRegular) — or ctx's error; it names the key.
func StatKeys(ctx context.Context, b *blob.Bucket, keys []string) (stats []KeyStat, ok bool, err error) {
	var lb *bucket
	if b == nil || !b.As(&lb) {
		return nil, false, nil
	}
	stats = make([]KeyStat, len(keys))
	var (
		opened bool
		dir    string   // the key directory of the last key
		sub    *os.Root // dir opened as a root; nil when that failed
	)
	defer func() {
		if sub != nil {
			sub.Close()
		}
	}()
	for i, key := range keys {
		lb.note(key)
		if err := ctx.Err(); err != nil {
			return nil, true, err
		}
		p, kerr := checkKey(key)
		if kerr != nil {
			continue // such a key cannot exist here: NotFound
		}
		if d := path.Dir(key); !opened || d != dir {
			if sub != nil {
				sub.Close()
			}
			opened, dir = true, d
			if sub, err = lb.root.OpenRoot(filepath.Dir(p)); err != nil {
				sub = nil
			}
		}
		var fi os.FileInfo
		if sub != nil {
			if fi, err = sub.Stat(filepath.Base(p)); err != nil || !fi.Mode().IsRegular() {
				fi = nil
			}
		}
		if fi == nil {
			// The directory is missing, or the name is not a plain regular
			// file in it: ask as Attributes does.
			if fi, err = lb.stat("stat", key); err != nil {
				if errorCode(err) == gcerrors.NotFound {
					continue
				}
				return nil, true, err
			}
		}
		stats[i] = KeyStat{Exists: true, Size: fi.Size(), ModTime: fi.ModTime()}
	}
	return stats, true, nil
}
