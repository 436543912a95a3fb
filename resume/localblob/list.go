package localblob

import (
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
)

// walkPageSize bounds a page of a listing without the "/" delimiter when the
// caller leaves the size to the driver (a walk may cover a whole tree).
const walkPageSize = 1000

// entry is one name of a directory read.
type entry struct {
	key  string      // full key; a directory's ends in "/"
	dir  bool        // a directory, or a link to one inside the root
	link bool        // a symbolic link
	fi   os.FileInfo // a link's target, when it resolves inside the root
}

// readDir reads the directory dirKey ("" or ending in "/") once and returns
// its entries sorted by key. A directory that does not exist (or a file in
// its place) has no entries; a directory that leads outside the root is an
// ErrOutside error.
func (b *bucket) readDir(ctx context.Context, dirKey string) ([]entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	osDir, err := checkDir(dirKey)
	if err != nil {
		return nil, nil // no object can live under an unclean prefix
	}
	f, err := b.root.Open(osDir)
	if err != nil {
		if code := errorCode(b.fail("list", dirKey, err)); code == gcerrors.NotFound {
			return nil, nil
		}
		return nil, b.fail("list", dirKey, err)
	}
	des, err := readDirEntries(f)
	f.Close()
	if b.opts.OnReadDir != nil {
		b.opts.OnReadDir(strings.TrimSuffix(dirKey, "/"))
	}
	if err != nil {
		if errors.Is(err, syscall.ENOTDIR) {
			return nil, nil
		}
		return nil, b.fail("list", dirKey, err)
	}
	out := make([]entry, 0, len(des))
	for _, de := range des {
		e := entry{key: dirKey + de.Name(), dir: de.IsDir()}
		if de.Type()&fs.ModeSymlink != 0 {
			e.link = true
			// Followed inside the root only; a link leading out (or
			// dangling) stays an object whose reads are refused.
			if fi, err := b.root.Stat(e.osPath()); err == nil {
				e.fi, e.dir = fi, fi.IsDir()
			}
		}
		if e.dir {
			e.key += "/"
		}
		out = append(out, e)
	}
	// Every key starts with dirKey: comparing the rest is the same order,
	// and cheaper for the 3,000 chk-<n> dirs of a job dir.
	n := len(dirKey)
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.key[n:], b.key[n:]) })
	return out, nil
}

// osPath is the entry's path relative to the root in the operating
// system's form (its key is a clean path: a directory key and a name read
// from that directory).
func (e *entry) osPath() string { return filepath.FromSlash(strings.TrimSuffix(e.key, "/")) }

// object returns the list object of a non-directory entry; ok is false when
// the file vanished since the directory was read. Its size and time come
// from an Lstat through the root, made only for entries a page returns.
func (b *bucket) object(e *entry) (*driver.ListObject, bool) {
	fi := e.fi
	if fi == nil {
		var err error
		if fi, err = b.root.Lstat(e.osPath()); err != nil {
			if e.link {
				// A link leading out or dangling: listed so that reading it
				// reports why, with no size or time.
				return &driver.ListObject{Key: e.key}, true
			}
			return nil, false
		}
	}
	return &driver.ListObject{Key: e.key, ModTime: fi.ModTime(), Size: fi.Size(), AsFunc: fileInfoAs(fi)}, true
}

// ListPaged lists keys under opts.Prefix in lexicographic order.
func (b *bucket) ListPaged(ctx context.Context, opts *driver.ListOptions) (*driver.ListPage, error) {
	b.note(opts.Prefix)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.BeforeList != nil {
		if err := opts.BeforeList(func(any) bool { return false }); err != nil {
			return nil, err
		}
	}
	id, after, err := parseToken(opts.PageToken)
	if err != nil {
		return nil, &Error{Op: "list", Key: opts.Prefix, Err: err, code: gcerrors.InvalidArgument}
	}
	if opts.Delimiter == "/" {
		return b.listDir(ctx, opts.Prefix, opts.PageSize, id, after)
	}
	return b.listWalk(ctx, opts.Prefix, opts.Delimiter, opts.PageSize, after)
}

// dirOf splits a prefix into its directory key and the start of the names
// in it: "consumer/consumer-" → "consumer/", "consumer-".
func dirOf(prefix string) (dir, name string) {
	i := strings.LastIndexByte(prefix, '/')
	return prefix[:i+1], prefix[i+1:]
}

// listDir answers a "/" listing from one read of one directory, kept in the
// cache while the caller pages through it.
func (b *bucket) listDir(ctx context.Context, prefix string, pageSize int, id uint64, after string) (*driver.ListPage, error) {
	dirKey, _ := dirOf(prefix)
	ents := b.cache.get(id, dirKey)
	if ents == nil {
		var err error
		if ents, err = b.readDir(ctx, dirKey); err != nil {
			return nil, err
		}
		id = b.cache.put(dirKey, ents)
	}
	start := max(prefix, after)
	i, _ := slices.BinarySearchFunc(ents, start, func(e entry, k string) int { return strings.Compare(e.key, k) })
	if i < len(ents) && ents[i].key == after {
		i++
	}
	page := &driver.ListPage{}
	for ; i < len(ents) && strings.HasPrefix(ents[i].key, prefix); i++ {
		if pageSize > 0 && len(page.Objects) == pageSize {
			page.NextPageToken = makeToken(id, page.Objects[len(page.Objects)-1].Key)
			return page, nil
		}
		e := &ents[i]
		if e.dir {
			page.Objects = append(page.Objects, &driver.ListObject{Key: e.key, IsDir: true})
			continue
		}
		if o, ok := b.object(e); ok {
			page.Objects = append(page.Objects, o)
		}
	}
	b.cache.drop(id)
	return page, nil
}

// listWalk answers a listing without the "/" delimiter by walking the tree
// below the prefix's directory in key order, resuming after the last key.
func (b *bucket) listWalk(ctx context.Context, prefix, delim string, pageSize int, after string) (*driver.ListPage, error) {
	if pageSize <= 0 {
		pageSize = walkPageSize
	}
	page := &driver.ListPage{}
	lastGroup := ""
	full := false
	// emit returns false to stop the walk once the page is full and one more
	// key shows there is a next page.
	emit := func(e *entry) bool {
		key := e.key
		if delim != "" {
			if j := strings.Index(key[len(prefix):], delim); j >= 0 {
				g := key[:len(prefix)+j+len(delim)]
				if g <= after || g == lastGroup {
					return true
				}
				if len(page.Objects) == pageSize {
					full = true
					return false
				}
				lastGroup = g
				page.Objects = append(page.Objects, &driver.ListObject{Key: g, IsDir: true})
				return true
			}
		}
		if key <= after {
			return true
		}
		o, ok := b.object(e)
		if !ok {
			return true
		}
		if len(page.Objects) == pageSize {
			full = true
			return false
		}
		page.Objects = append(page.Objects, o)
		return true
	}
	dirKey, _ := dirOf(prefix)
	if err := b.walk(ctx, dirKey, prefix, after, emit); err != nil && err != errStop {
		return nil, err
	}
	if full {
		page.NextPageToken = makeToken(0, page.Objects[len(page.Objects)-1].Key)
	}
	return page, nil
}

// walk visits the files under dirKey whose keys start with prefix, in key
// order, skipping subtrees that lie entirely at or before after. It does not
// descend into links.
func (b *bucket) walk(ctx context.Context, dirKey, prefix, after string, emit func(*entry) bool) error {
	ents, err := b.readDir(ctx, dirKey)
	if err != nil {
		return err
	}
	for i := range ents {
		e := &ents[i]
		if !e.dir {
			if strings.HasPrefix(e.key, prefix) && !emit(e) {
				return errStop
			}
			continue
		}
		if e.link || !(strings.HasPrefix(e.key, prefix) || strings.HasPrefix(prefix, e.key)) {
			continue
		}
		if after >= e.key && !strings.HasPrefix(after, e.key) {
			continue // every key below e is before after
		}
		if err := b.walk(ctx, e.key, prefix, after, emit); err != nil {
			return err
		}
	}
	return nil
}

// errStop ends a walk whose page is full.
var errStop = errors.New("stop")

// makeToken encodes a page token: the cache entry (0 for none) and the last
// key returned.
func makeToken(id uint64, last string) []byte {
	return append(binary.BigEndian.AppendUint64(nil, id), last...)
}

func parseToken(t []byte) (uint64, string, error) {
	if len(t) == 0 {
		return 0, "", nil
	}
	if len(t) < 8 {
		return 0, "", errors.New("malformed page token")
	}
	return binary.BigEndian.Uint64(t), string(t[8:]), nil
}

// dirCache keeps the sorted entries of the directories being paged through,
// at most max of them (the oldest goes first).
type dirCache struct {
	mu    sync.Mutex
	max   int
	next  uint64
	dirs  map[uint64]cached
	order []uint64
}

type cached struct {
	dirKey string
	ents   []entry
}

func newDirCache(n int) *dirCache {
	return &dirCache{max: n, dirs: map[uint64]cached{}}
}

func (c *dirCache) get(id uint64, dirKey string) []entry {
	if id == 0 || c.max <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.dirs[id]; ok && d.dirKey == dirKey {
		return d.ents
	}
	return nil
}

func (c *dirCache) put(dirKey string, ents []entry) uint64 {
	if c.max <= 0 {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	id := c.next
	c.dirs[id] = cached{dirKey: dirKey, ents: ents}
	c.order = append(c.order, id)
	for len(c.dirs) > c.max {
		old := c.order[0]
		c.order = c.order[1:]
		delete(c.dirs, old)
	}
	return id
}

// drop forgets an entry once its last page was served.
func (c *dirCache) drop(id uint64) {
	if id == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.dirs[id]; !ok {
		return
	}
	delete(c.dirs, id)
	c.order = slices.DeleteFunc(c.order, func(x uint64) bool { return x == id })
}
