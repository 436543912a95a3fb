package flinkckpt_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
)

// sortedBucket is an in-memory bucket for benchmarks whose listings cost
// what an object store's do: proportional to the entries on the page (a
// binary search finds the page start, and a collapsed directory is skipped
// in one search). memblob instead collects and sorts every key of the
// bucket on every page, so a delimiter listing of a 10,000-entry job dir in
// a 120,000-object bucket costs as much per page as a full listing — which
// flatters neither side. Keys are sorted lazily after writes.
type sortedBucket struct {
	mu     sync.RWMutex
	data   map[string][]byte
	keys   []string
	sorted bool
	mod    time.Time
}

var errNotFound = errors.New("sortedbucket: not found")

func openSortedBucket() *blob.Bucket {
	return blob.NewBucket(&sortedBucket{data: map[string][]byte{}, mod: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
}

func (b *sortedBucket) sortKeys() {
	b.mu.RLock()
	ok := b.sorted
	b.mu.RUnlock()
	if ok {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sorted {
		return
	}
	b.keys = b.keys[:0]
	for k := range b.data {
		b.keys = append(b.keys, k)
	}
	sort.Strings(b.keys)
	b.sorted = true
}

func (b *sortedBucket) ErrorCode(err error) gcerrors.ErrorCode {
	if errors.Is(err, errNotFound) {
		return gcerrors.NotFound
	}
	return gcerrors.Unknown
}
func (b *sortedBucket) As(any) bool             { return false }
func (b *sortedBucket) ErrorAs(error, any) bool { return false }
func (b *sortedBucket) Close() error            { return nil }
func (b *sortedBucket) SignedURL(context.Context, string, *driver.SignedURLOptions) (string, error) {
	return "", errors.New("sortedbucket: no signed URLs")
}
func (b *sortedBucket) Copy(ctx context.Context, dst, src string, _ *driver.CopyOptions) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, ok := b.data[src]
	if !ok {
		return errNotFound
	}
	b.data[dst], b.sorted = d, false
	return nil
}
func (b *sortedBucket) Delete(ctx context.Context, key string, _ *driver.DeleteOptions) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.data[key]; !ok {
		return errNotFound
	}
	delete(b.data, key)
	b.sorted = false
	return nil
}

func (b *sortedBucket) Attributes(ctx context.Context, key string) (*driver.Attributes, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	d, ok := b.data[key]
	if !ok {
		return nil, errNotFound
	}
	return &driver.Attributes{Size: int64(len(d)), ModTime: b.mod}, nil
}

func (b *sortedBucket) NewRangeReader(ctx context.Context, key string, offset, length int64, _ *driver.ReaderOptions) (driver.Reader, error) {
	b.mu.RLock()
	d, ok := b.data[key]
	b.mu.RUnlock()
	if !ok {
		return nil, errNotFound
	}
	d = d[min(offset, int64(len(d))):]
	if length >= 0 && length < int64(len(d)) {
		d = d[:length]
	}
	return &sortedReader{r: bytes.NewReader(d), attrs: driver.ReaderAttributes{Size: int64(len(d)), ModTime: b.mod}}, nil
}

type sortedReader struct {
	r     *bytes.Reader
	attrs driver.ReaderAttributes
}

func (r *sortedReader) Read(p []byte) (int, error)           { return r.r.Read(p) }
func (r *sortedReader) Close() error                         { return nil }
func (r *sortedReader) Attributes() *driver.ReaderAttributes { return &r.attrs }
func (r *sortedReader) As(any) bool                          { return false }

func (b *sortedBucket) NewTypedWriter(ctx context.Context, key, _ string, _ *driver.WriterOptions) (driver.Writer, error) {
	return &sortedWriter{b: b, key: key}, nil
}

type sortedWriter struct {
	b   *sortedBucket
	key string
	buf bytes.Buffer
}

func (w *sortedWriter) Write(p []byte) (int, error) { return w.buf.Write(p) }
func (w *sortedWriter) Close() error {
	w.b.mu.Lock()
	defer w.b.mu.Unlock()
	w.b.data[w.key], w.b.sorted = bytes.Clone(w.buf.Bytes()), false
	return nil
}

func (b *sortedBucket) ListPaged(ctx context.Context, opts *driver.ListOptions) (*driver.ListPage, error) {
	b.sortKeys()
	b.mu.RLock()
	defer b.mu.RUnlock()
	size := opts.PageSize
	if size <= 0 {
		size = 1000
	}
	start := opts.Prefix
	after := string(opts.PageToken)
	i := sort.SearchStrings(b.keys, start)
	if after != "" {
		if strings.HasSuffix(after, opts.Delimiter) && opts.Delimiter != "" {
			i = sort.SearchStrings(b.keys, successor(after))
		} else {
			i = sort.SearchStrings(b.keys, after+"\x00")
		}
	}
	page := &driver.ListPage{}
	for i < len(b.keys) {
		k := b.keys[i]
		if !strings.HasPrefix(k, opts.Prefix) {
			break
		}
		if len(page.Objects) == size {
			last := page.Objects[len(page.Objects)-1].Key
			page.NextPageToken = []byte(last)
			break
		}
		if opts.Delimiter != "" {
			if j := strings.Index(k[len(opts.Prefix):], opts.Delimiter); j >= 0 {
				dir := k[:len(opts.Prefix)+j+len(opts.Delimiter)]
				page.Objects = append(page.Objects, &driver.ListObject{Key: dir, IsDir: true})
				i = sort.SearchStrings(b.keys, successor(dir))
				continue
			}
		}
		page.Objects = append(page.Objects, &driver.ListObject{Key: k, Size: int64(len(b.data[k])), ModTime: b.mod})
		i++
	}
	return page, nil
}

// successor returns the smallest string greater than every string with
// prefix p.
func successor(p string) string {
	b := []byte(p)
	for len(b) > 0 {
		if b[len(b)-1] < 0xFF {
			b[len(b)-1]++
			return string(b)
		}
		b = b[:len(b)-1]
	}
	return "\xff\xff\xff\xff"
}

var _ io.Reader = (*sortedReader)(nil)
