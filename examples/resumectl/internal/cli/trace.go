package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

// tracer follows every storage call of a command: the calls still waiting,
// which a timeout names; with verbose, each call's line on stderr; and the
// progress line's count of calls.
type tracer struct {
	mu       sync.Mutex
	next     int
	inflight map[int]traceCall
	done     int
	// onEnd, when set, receives every call that ended (--verbose, the
	// progress line).
	onEnd func(resume.Event)
	now   func() time.Time
}

type traceCall struct {
	op, key string
	start   time.Time
}

func newTracer() *tracer {
	return &tracer{inflight: map[int]traceCall{}, now: time.Now}
}

func (t *tracer) begin(op, key string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	t.inflight[t.next] = traceCall{op: op, key: key, start: t.now()}
	return t.next
}

func (t *tracer) end(id int, err error) {
	t.mu.Lock()
	c := t.inflight[id]
	delete(t.inflight, id)
	t.done++
	onEnd := t.onEnd
	d := t.now().Sub(c.start)
	t.mu.Unlock()
	if onEnd != nil {
		onEnd(resume.Event{Kind: resume.EventStorageCall, Op: c.op, Key: c.key, Duration: d, Err: err})
	}
}

// waiting names the storage calls still waiting, the longest first: "list
// ck/ (waiting 5m0s)"; "" when none is.
func (t *tracer) waiting() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	calls := make([]traceCall, 0, len(t.inflight))
	for _, c := range t.inflight {
		calls = append(calls, c)
	}
	sort.Slice(calls, func(i, j int) bool { return calls[i].start.Before(calls[j].start) })
	now := t.now()
	out := ""
	for i, c := range calls {
		if i == 3 {
			out += fmt.Sprintf(" and %d more", len(calls)-3)
			break
		}
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%s %s (waiting %s)", c.op, redact.QuoteKey(c.key), now.Sub(c.start).Round(time.Millisecond))
	}
	return out
}

// verboseLine writes one storage call's line: "resumectl: storage: read
// "ck/…/_metadata" 12ms" (the key is shown as a path for a local location).
func verboseLine(w io.Writer, e resume.Event) {
	status := ""
	if e.Err != nil {
		status = ": " + oneLine(e.Err.Error())
	}
	fmt.Fprintf(w, "resumectl: storage: %s %s %s%s\n", e.Op, redact.QuoteKey(e.Key), e.Duration.Round(10*time.Microsecond), status)
}

// traceBucket returns b with every call followed by t; closing the result
// closes b.
func traceBucket(b *blob.Bucket, t *tracer, display string) *blob.Bucket {
	return blob.NewBucket(&tracedBucket{inner: b, t: t, display: display})
}

type tracedBucket struct {
	inner   *blob.Bucket
	t       *tracer
	display string // the location as given, naming its root key ""
}

// begin starts following a call on key, naming the root key "" by the
// location (a local directory, an s3:// URL without secrets).
func (b *tracedBucket) begin(op, key string) int {
	if key == "" && b.display != "" {
		key = b.display + " (root)"
	}
	return b.t.begin(op, key)
}

func (b *tracedBucket) ErrorCode(err error) gcerrors.ErrorCode {
	switch {
	case errors.Is(err, context.Canceled):
		return gcerrors.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return gcerrors.DeadlineExceeded
	}
	return gcerrors.Code(err)
}

func (b *tracedBucket) As(i any) bool                 { return b.inner.As(i) }
func (b *tracedBucket) ErrorAs(err error, i any) bool { return errors.As(err, i) }

func (b *tracedBucket) Attributes(ctx context.Context, key string) (a *driver.Attributes, err error) {
	id := b.begin("attributes", key)
	defer func() { b.t.end(id, err) }()
	x, err := b.inner.Attributes(ctx, key)
	if err != nil {
		return nil, err
	}
	return &driver.Attributes{
		CacheControl: x.CacheControl, ContentDisposition: x.ContentDisposition,
		ContentEncoding: x.ContentEncoding, ContentLanguage: x.ContentLanguage,
		ContentType: x.ContentType, Metadata: x.Metadata, CreateTime: x.CreateTime,
		ModTime: x.ModTime, Size: x.Size, MD5: x.MD5, ETag: x.ETag,
	}, nil
}

func (b *tracedBucket) ListPaged(ctx context.Context, opts *driver.ListOptions) (p *driver.ListPage, err error) {
	id := b.begin("list", opts.Prefix)
	defer func() { b.t.end(id, err) }()
	pageSize := opts.PageSize
	if pageSize == 0 {
		pageSize = 1000
	}
	token := opts.PageToken
	if len(token) == 0 {
		token = blob.FirstPageToken
	}
	objs, next, err := b.inner.ListPage(ctx, token, pageSize, &blob.ListOptions{Prefix: opts.Prefix, Delimiter: opts.Delimiter})
	if err != nil {
		return nil, err
	}
	page := &driver.ListPage{Objects: make([]*driver.ListObject, len(objs))}
	if len(next) > 0 {
		page.NextPageToken = next
	}
	for i, o := range objs {
		page.Objects[i] = &driver.ListObject{Key: o.Key, ModTime: o.ModTime, Size: o.Size, MD5: o.MD5, IsDir: o.IsDir}
	}
	return page, nil
}

func (b *tracedBucket) NewRangeReader(ctx context.Context, key string, offset, length int64, opts *driver.ReaderOptions) (r driver.Reader, err error) {
	id := b.begin("read", key)
	defer func() { b.t.end(id, err) }()
	x, err := b.inner.NewRangeReader(ctx, key, offset, length, nil)
	if err != nil {
		return nil, err
	}
	return &tracedReader{r: x, attrs: driver.ReaderAttributes{ContentType: x.ContentType(), ModTime: x.ModTime(), Size: x.Size()}}, nil
}

type tracedReader struct {
	r     *blob.Reader
	attrs driver.ReaderAttributes
}

func (r *tracedReader) Read(p []byte) (int, error)           { return r.r.Read(p) }
func (r *tracedReader) Close() error                         { return r.r.Close() }
func (r *tracedReader) Attributes() *driver.ReaderAttributes { return &r.attrs }
func (r *tracedReader) As(i any) bool                        { return r.r.As(i) }

func (b *tracedBucket) NewTypedWriter(ctx context.Context, key, contentType string, opts *driver.WriterOptions) (w driver.Writer, err error) {
	id := b.begin("write", key)
	defer func() { b.t.end(id, err) }()
	return b.inner.NewWriter(ctx, key, &blob.WriterOptions{
		BufferSize: opts.BufferSize, MaxConcurrency: opts.MaxConcurrency, CacheControl: opts.CacheControl,
		ContentDisposition: opts.ContentDisposition, ContentEncoding: opts.ContentEncoding,
		ContentLanguage: opts.ContentLanguage, ContentType: contentType, ContentMD5: opts.ContentMD5,
		Metadata: opts.Metadata, DisableContentTypeDetection: opts.DisableContentTypeDetection,
		IfNotExist: opts.IfNotExist,
	})
}

func (b *tracedBucket) Copy(ctx context.Context, dstKey, srcKey string, opts *driver.CopyOptions) (err error) {
	id := b.begin("copy", srcKey)
	defer func() { b.t.end(id, err) }()
	return b.inner.Copy(ctx, dstKey, srcKey, nil)
}

func (b *tracedBucket) Delete(ctx context.Context, key string, opts *driver.DeleteOptions) (err error) {
	id := b.begin("delete", key)
	defer func() { b.t.end(id, err) }()
	return b.inner.Delete(ctx, key)
}

func (b *tracedBucket) SignedURL(ctx context.Context, key string, opts *driver.SignedURLOptions) (string, error) {
	return b.inner.SignedURL(ctx, key, &blob.SignedURLOptions{Expiry: opts.Expiry, Method: opts.Method, ContentType: opts.ContentType})
}

func (b *tracedBucket) Close() error { return b.inner.Close() }
