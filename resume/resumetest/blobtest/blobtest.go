// Package blobtest wraps a gocloud [blob.Bucket] for tests and benchmarks: it
// counts calls per operation (and the entries listings return), injects
// latency and faults, lets a test set objects' modification times, and
// hands each call to an observer as it ends ([Options.After]: a log or a
// trace of the calls). It is about buckets, not about the chain: any code
// that reads storage through gocloud can be tested with it.
//
// Any bucket can be wrapped — memblob, fileblob, or s3blob against a real or
// in-process S3 endpoint — because the wrapper is a gocloud driver written
// over the public blob API:
//
//	mem := memblob.OpenBucket(nil)
//	b, rec := blobtest.Wrap(mem, &blobtest.Options{
//		Latency: 20 * time.Millisecond,
//		Fault:   blobtest.FailKeys(regexp.MustCompile(`/_metadata$`)),
//	})
//	defer b.Close() // closes the wrapper only, never mem
//	... run the code under test on b ...
//	if got := rec.Count(blobtest.OpList); got > 3 { t.Errorf("%d list calls, want <= 3", got) }
//
// # Code that opens buckets by URL
//
// A deploy tool usually opens its storage from configuration
// (blob.OpenBucket(ctx, cfg.CheckpointURL), paimon.OpenTable(ctx, url, …)).
// [Mount] makes a bucket reachable under a blobtest:// URL for the rest of a
// test, wrapped as Wrap wraps it, so the tool is tested with counts and
// faults without changing its code:
//
//	u, rec := blobtest.Mount(t, mem, &blobtest.Options{Fault: blobtest.FailEvery(3)})
//	err := tool.Run(ctx, tool.Config{CheckpointURL: u + "/ck"})
//
// [WrapOpener] and [Register] do the same for any gocloud URL opener on a
// blob.URLMux of the caller's (s3blob's against s3test's server, fileblob's).
//
// memblob stamps every write with the current time, which makes "newest wins"
// tests flaky; [Recorder.SetModTime] pins a key's modification time as every
// later Attributes, List and reader call reports it.
//
// # Errors
//
// Injected faults are [*FaultError] values; the blob layer wraps them like any
// driver error, so gcerrors.Code reports their Code (gcerrors.Unknown unless
// set) and errors.As reaches the *FaultError. Opening a blobtest:// URL whose
// test has ended, or with query parameters other than gocloud's prefix=,
// fails with an error naming the URL. The package is independent of
// resumekit's resume package and does not import it.
package blobtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/internal/blobfwd"
)

// Op is a kind of bucket call (the names are shared with the module's
// other bucket wrapper, through internal/blobfwd).
type Op = blobfwd.Op

// The operations the Recorder counts. OpList counts list pages (one request
// each on a real store), not entries.
const (
	OpList       = blobfwd.OpList
	OpRead       = blobfwd.OpRead
	OpAttributes = blobfwd.OpAttributes
	OpWrite      = blobfwd.OpWrite
	OpCopy       = blobfwd.OpCopy
	OpDelete     = blobfwd.OpDelete
)

// Ops lists every Op in a fixed order.
var Ops = []Op{OpList, OpRead, OpAttributes, OpWrite, OpCopy, OpDelete}

// Call describes one bucket call for an [Options.Fault], [Options.Before]
// or [Options.After] hook.
type Call struct {
	Op  Op
	Key string // the object key, or the list prefix for OpList
	N   int    // 1-based sequence number of this call among calls of Op
	All int    // 1-based sequence number among all calls
}

// Options configures Wrap. A nil *Options counts calls and does nothing else.
type Options struct {
	// Latency is added to every call before it reaches the wrapped bucket.
	// The wait ends early, with the context's error, if the context ends.
	Latency time.Duration
	// Fault, when set, is asked before every call; a non-nil error fails the
	// call without reaching the wrapped bucket. Use FailEvery, FailNth,
	// FailKeys, or any function.
	Fault func(Call) error
	// Before, when set, runs before every call (after Fault passed), for
	// races: delete an object between a list and a read, rewrite a file.
	// It receives the wrapped bucket.
	Before func(ctx context.Context, c Call, inner *blob.Bucket)
	// Transform, when set, may replace the content a read returns (an empty
	// consumer file on the first reads, a truncated _metadata). It is called
	// with the full object content, once per read call.
	Transform func(c Call, data []byte) []byte
	// After, when set, observes every call as it ends, with the error the
	// call returns (nil on success; an injected fault, the context's error
	// or the wrapped bucket's): for logs, traces and timing. It runs for
	// calls Fault failed too, after the Recorder counted the call as
	// ended, and must not call the bucket. For a reader it runs when the
	// reader is opened, for a writer when it is created, not when either
	// is closed.
	After func(c Call, err error)
}

// FaultError is the error injected for a failed call.
type FaultError struct {
	Call Call               // the call that failed
	Code gcerrors.ErrorCode // reported through gcerrors.Code; Unknown when zero
	Msg  string             // what failed it; "injected fault" when empty
}

// Error names the operation, the key, the call number and the message.
func (e *FaultError) Error() string {
	msg := e.Msg
	if msg == "" {
		msg = "injected fault"
	}
	return fmt.Sprintf("blobtest: %s %q (call %d): %s", e.Call.Op, e.Call.Key, e.Call.N, msg)
}

// FailEvery fails every k-th call (counted over all operations) with a
// [*FaultError] of code gcerrors.Unknown. When ops are
// given, only their calls are counted and failed.
func FailEvery(k int, ops ...Op) func(Call) error {
	var n atomic.Int64
	return func(c Call) error {
		if len(ops) > 0 && !hasOp(ops, c.Op) {
			return nil
		}
		if k > 0 && n.Add(1)%int64(k) == 0 {
			return &FaultError{Call: c, Msg: "injected: every " + fmt.Sprint(k) + "th call fails"}
		}
		return nil
	}
}

// FailNth fails the n-th call of op (1-based) and no other.
func FailNth(op Op, n int) func(Call) error {
	return func(c Call) error {
		if c.Op == op && c.N == n {
			return &FaultError{Call: c, Msg: "injected: call " + fmt.Sprint(n) + " fails"}
		}
		return nil
	}
}

// FailKeys fails every call whose key (or list prefix) matches re; when ops
// are given, only calls of those operations.
func FailKeys(re *regexp.Regexp, ops ...Op) func(Call) error {
	return func(c Call) error {
		if len(ops) > 0 && !hasOp(ops, c.Op) {
			return nil
		}
		if re.MatchString(c.Key) {
			return &FaultError{Call: c, Msg: "injected: key matches " + re.String()}
		}
		return nil
	}
}

// NotFoundKeys makes reads and attribute calls of keys matching re answer
// NotFound, as if the object had been deleted after it was listed.
func NotFoundKeys(re *regexp.Regexp) func(Call) error {
	return func(c Call) error {
		if (c.Op == OpRead || c.Op == OpAttributes) && re.MatchString(c.Key) {
			return &FaultError{Call: c, Code: gcerrors.NotFound, Msg: "injected: deleted after listing"}
		}
		return nil
	}
}

// Any combines fault functions: the first non-nil error wins.
func Any(faults ...func(Call) error) func(Call) error {
	return func(c Call) error {
		for _, f := range faults {
			if err := f(c); err != nil {
				return err
			}
		}
		return nil
	}
}

func hasOp(ops []Op, op Op) bool {
	for _, o := range ops {
		if o == op {
			return true
		}
	}
	return false
}

// Recorder counts the calls made through a wrapped bucket and holds the
// modification times a test pinned. It is safe for concurrent use.
type Recorder struct {
	mu       sync.Mutex
	counts   map[Op]int
	all      int
	listed   int
	modTimes map[string]time.Time
	inFlight int
	maxIn    int
	// endedDepth is the largest depth of a call that has ended; waves the
	// largest depth of any call (see Waves).
	endedDepth, waves int
}

// Count returns the number of calls of op so far.
func (r *Recorder) Count(op Op) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts[op]
}

// Counts returns a copy of the per-operation counts.
func (r *Recorder) Counts() map[Op]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[Op]int, len(r.counts))
	for k, v := range r.counts {
		out[k] = v
	}
	return out
}

// Total returns the number of calls of every operation so far.
func (r *Recorder) Total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.all
}

// Listed returns the number of entries (objects and directories) all list
// calls returned so far.
func (r *Recorder) Listed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.listed
}

// MaxInFlight returns the largest number of calls that were under way at
// once, which shows whether code under test issues requests concurrently.
func (r *Recorder) MaxInFlight() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.maxIn
}

// Waves returns the number of round trips the calls so far took one after
// another: the length of the longest chain of calls each of which started
// after the one before it had ended. Calls under way together count once
// (a concurrent wave); a call that waited for another's answer (or for a
// free slot of a bounded pool) starts the next wave. With Options.Latency
// set, the calls' time is about Waves × Latency, whatever the machine's
// speed: it is the count to assert instead of a time.
func (r *Recorder) Waves() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.waves
}

// Reset sets every count to zero; pinned modification times stay.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts = map[Op]int{}
	r.all, r.listed, r.maxIn = 0, 0, 0
	r.endedDepth, r.waves = 0, 0
}

// String reports the counts, e.g. "list=3 read=2 attributes=0 ... listed=40".
func (r *Recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b bytes.Buffer
	for _, op := range Ops {
		fmt.Fprintf(&b, "%s=%d ", op, r.counts[op])
	}
	fmt.Fprintf(&b, "listed=%d", r.listed)
	return b.String()
}

// SetModTime pins the modification time every later call reports for key.
func (r *Recorder) SetModTime(key string, t time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.modTimes[key] = t
}

func (r *Recorder) modTime(key string, t time.Time) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m, ok := r.modTimes[key]; ok {
		return m
	}
	return t
}

// start counts a call and returns it with the func that ends it.
func (r *Recorder) start(op Op, key string) (Call, func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts[op]++
	r.all++
	r.inFlight++
	r.maxIn = max(r.maxIn, r.inFlight)
	// The call's depth: one more than the deepest call already answered.
	depth := r.endedDepth + 1
	r.waves = max(r.waves, depth)
	return Call{Op: op, Key: key, N: r.counts[op], All: r.all}, func() { r.end(depth) }
}

func (r *Recorder) end(depth int) {
	r.mu.Lock()
	r.inFlight--
	r.endedDepth = max(r.endedDepth, depth)
	r.mu.Unlock()
}

// Wrap returns a bucket that forwards to b, counting, delaying and failing
// calls as opts says, and the Recorder that holds its counts. Closing the
// returned bucket does not close b.
func Wrap(b *blob.Bucket, opts *Options) (*blob.Bucket, *Recorder) {
	if opts == nil {
		opts = &Options{}
	}
	rec := newRecorder()
	return newBucket(b, *opts, rec, false), rec
}

func newRecorder() *Recorder {
	return &Recorder{counts: map[Op]int{}, modTimes: map[string]time.Time{}}
}

// newBucket wraps inner; closing the result closes inner only when owned.
func newBucket(inner *blob.Bucket, opts Options, rec *Recorder, owned bool) *blob.Bucket {
	return blob.NewBucket(&bucket{inner: inner, opts: opts, rec: rec, owned: owned})
}

type bucket struct {
	inner *blob.Bucket
	opts  Options
	rec   *Recorder
	owned bool // opened by a WrapOpener: Close closes inner
}

// begin counts the call, waits the latency, and asks the fault hooks. The
// returned func must be called with the call's error when the call is
// done.
func (b *bucket) begin(ctx context.Context, op Op, key string) (Call, func(error), error) {
	c, ended := b.rec.start(op, key)
	end := func(err error) {
		ended()
		if b.opts.After != nil {
			b.opts.After(c, err)
		}
	}
	if b.opts.Latency > 0 {
		t := time.NewTimer(b.opts.Latency)
		select {
		case <-ctx.Done():
			t.Stop()
			return c, end, ctx.Err()
		case <-t.C:
		}
	}
	if err := ctx.Err(); err != nil {
		return c, end, err
	}
	if b.opts.Fault != nil {
		if err := b.opts.Fault(c); err != nil {
			return c, end, err
		}
	}
	if b.opts.Before != nil {
		b.opts.Before(ctx, c, b.inner)
	}
	return c, end, nil
}

func (b *bucket) ErrorCode(err error) gcerrors.ErrorCode {
	var fe *FaultError
	if errors.As(err, &fe) {
		if fe.Code == 0 {
			return gcerrors.Unknown
		}
		return fe.Code
	}
	switch {
	case errors.Is(err, context.Canceled):
		return gcerrors.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return gcerrors.DeadlineExceeded
	}
	return gcerrors.Code(err)
}

func (b *bucket) As(i any) bool { return b.inner.As(i) }

func (b *bucket) ErrorAs(err error, i any) bool { return errors.As(err, i) }

func (b *bucket) Attributes(ctx context.Context, key string) (_ *driver.Attributes, err error) {
	_, end, err := b.begin(ctx, OpAttributes, key)
	defer func() { end(err) }()
	if err != nil {
		return nil, err
	}
	a, err := b.inner.Attributes(ctx, key)
	if err != nil {
		return nil, err
	}
	return blobfwd.Attributes(key, a, b.rec.modTime), nil
}

func (b *bucket) ListPaged(ctx context.Context, opts *driver.ListOptions) (_ *driver.ListPage, err error) {
	_, end, err := b.begin(ctx, OpList, opts.Prefix)
	defer func() { end(err) }()
	if err != nil {
		return nil, err
	}
	page, err := blobfwd.ListPage(ctx, b.inner, opts, b.rec.modTime)
	if err != nil {
		return nil, err
	}
	b.rec.mu.Lock()
	b.rec.listed += len(page.Objects)
	b.rec.mu.Unlock()
	return page, nil
}

func (b *bucket) NewRangeReader(ctx context.Context, key string, offset, length int64, opts *driver.ReaderOptions) (_ driver.Reader, err error) {
	c, end, err := b.begin(ctx, OpRead, key)
	defer func() { end(err) }()
	if err != nil {
		return nil, err
	}
	if b.opts.Transform != nil {
		data, err := b.inner.ReadAll(ctx, key)
		if err != nil {
			return nil, err
		}
		attrs, err := b.inner.Attributes(ctx, key)
		if err != nil {
			return nil, err
		}
		data = b.opts.Transform(c, data)
		if offset > int64(len(data)) {
			offset = int64(len(data))
		}
		data = data[offset:]
		if length >= 0 && length < int64(len(data)) {
			data = data[:length]
		}
		if opts.BeforeRead != nil {
			if err := opts.BeforeRead(func(any) bool { return false }); err != nil {
				return nil, err
			}
		}
		return &reader{r: io.NopCloser(bytes.NewReader(data)), attrs: driver.ReaderAttributes{
			ContentType: attrs.ContentType, ModTime: b.rec.modTime(key, attrs.ModTime), Size: int64(len(data)),
		}}, nil
	}
	r, err := b.inner.NewRangeReader(ctx, key, offset, length, nil)
	if err != nil {
		return nil, err
	}
	if opts.BeforeRead != nil {
		if err := opts.BeforeRead(r.As); err != nil {
			r.Close()
			return nil, err
		}
	}
	return &reader{r: r, inner: r, attrs: driver.ReaderAttributes{
		ContentType: r.ContentType(), ModTime: b.rec.modTime(key, r.ModTime()), Size: r.Size(),
	}}, nil
}

type reader struct {
	r     io.ReadCloser
	inner *blob.Reader
	attrs driver.ReaderAttributes
}

func (r *reader) Read(p []byte) (int, error)           { return r.r.Read(p) }
func (r *reader) Close() error                         { return r.r.Close() }
func (r *reader) Attributes() *driver.ReaderAttributes { return &r.attrs }
func (r *reader) As(i any) bool {
	if r.inner == nil {
		return false
	}
	return r.inner.As(i)
}

func (b *bucket) NewTypedWriter(ctx context.Context, key, contentType string, opts *driver.WriterOptions) (_ driver.Writer, err error) {
	_, end, err := b.begin(ctx, OpWrite, key)
	defer func() { end(err) }()
	if err != nil {
		return nil, err
	}
	return blobfwd.NewWriter(ctx, b.inner, key, contentType, opts)
}

func (b *bucket) Copy(ctx context.Context, dstKey, srcKey string, opts *driver.CopyOptions) (err error) {
	_, end, err := b.begin(ctx, OpCopy, srcKey)
	defer func() { end(err) }()
	if err != nil {
		return err
	}
	return b.inner.Copy(ctx, dstKey, srcKey, nil)
}

func (b *bucket) Delete(ctx context.Context, key string, opts *driver.DeleteOptions) (err error) {
	_, end, err := b.begin(ctx, OpDelete, key)
	defer func() { end(err) }()
	if err != nil {
		return err
	}
	return b.inner.Delete(ctx, key)
}

func (b *bucket) SignedURL(ctx context.Context, key string, opts *driver.SignedURLOptions) (string, error) {
	return "", &FaultError{Call: Call{Key: key}, Code: gcerrors.Unimplemented, Msg: "signed URLs are not supported"}
}

func (b *bucket) Close() error {
	if b.owned {
		return b.inner.Close()
	}
	return nil
}
