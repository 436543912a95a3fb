package blobtest

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	"gocloud.dev/blob"
)

// TB is the part of testing.TB that Mount takes. It has the same three
// methods as resumetest.TB, which every resumekit test helper takes (blobtest
// declares its own because it does not depend on package resume): a
// *testing.T, a resumetest.TB, and the TB of resumetest.Run all satisfy it.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Scheme is the URL scheme of the URLs Mount returns, registered on
// blob.DefaultURLMux when the package is initialised, as gocloud's drivers
// register theirs: a URLMux must not be written while parallel tests open
// URLs through it.
const Scheme = "blobtest"

func init() { blob.DefaultURLMux().RegisterBucket(Scheme, mountOpener{}) }

var (
	mounts   sync.Map // name -> *mount
	mountSeq atomic.Int64
)

type mount struct {
	bucket *blob.Bucket
	opts   Options
	rec    *Recorder
}

// Mount makes b reachable by URL for the rest of the test, so that code which
// opens its buckets from configuration — blob.OpenBucket(ctx, url),
// paimon.OpenTable(ctx, url, …), resumectl — can be tested with counts and
// faults without changing it. It returns a URL blobtest://<name> (unique in
// the process, so parallel tests do not meet) and the Recorder of every
// bucket opened from it: each is b wrapped as [Wrap] wraps it with opts, and
// closing one does not close b.
//
// Like s3://bucket/path, the URL names a bucket, and a path after it is not
// part of the bucket: blob.OpenBucket ignores it, and code that takes a URL
// with a path (paimon.OpenTable, resumectl) makes it the key prefix:
//
//	u, rec := blobtest.Mount(t, mem, &blobtest.Options{Fault: blobtest.FailNth(blobtest.OpRead, 1)})
//	err := deploy(ctx, Config{Table: u + "/wh/shop.db/orders"}) // the code under test
//	... rec.Count(blobtest.OpList) ...
//
// gocloud's prefix= query parameter works as on any URL; other parameters are
// refused. [Scheme] is registered on blob.DefaultURLMux when the package is
// initialised (which panics if something else registered that scheme);
// Fatalf is called only if b is nil. The URL stops opening when the test
// ends.
func Mount(t TB, b *blob.Bucket, opts *Options) (rawURL string, rec *Recorder) {
	t.Helper()
	if b == nil {
		t.Fatalf("blobtest: Mount: nil bucket")
		return "", nil
	}
	if opts == nil {
		opts = &Options{}
	}
	name := "m" + strconv.FormatInt(mountSeq.Add(1), 10)
	m := &mount{bucket: b, opts: *opts, rec: newRecorder()}
	mounts.Store(name, m)
	t.Cleanup(func() { mounts.Delete(name) })
	return Scheme + "://" + name, m.rec
}

// mountOpener opens the URLs Mount returns.
type mountOpener struct{}

func (mountOpener) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	for p := range u.Query() {
		return nil, fmt.Errorf("blobtest: open %s://%s: unknown query parameter %q", u.Scheme, u.Host, p)
	}
	v, ok := mounts.Load(u.Host)
	if !ok {
		return nil, fmt.Errorf("blobtest: open %s://%s: no bucket is mounted as %q (a Mount URL opens until its test ends)", u.Scheme, u.Host, u.Host)
	}
	m := v.(*mount)
	return newBucket(m.bucket, m.opts, m.rec, false), nil
}

// WrapOpener returns an opener that opens each URL with inner and wraps the
// bucket as [Wrap] does with opts, and the Recorder that counts the calls of
// every bucket it opens. Register it on a blob.URLMux that the code under test
// opens its URLs with. Closing a bucket it opened closes the inner bucket.
//
// Each URL is opened anew by inner: for memblob's opener that is a new empty
// bucket every time, so to share one in-memory bucket use [Mount].
func WrapOpener(inner blob.BucketURLOpener, opts *Options) (blob.BucketURLOpener, *Recorder) {
	if opts == nil {
		opts = &Options{}
	}
	w := &wrapOpener{inner: inner, opts: *opts, rec: newRecorder()}
	return w, w.rec
}

type wrapOpener struct {
	inner blob.BucketURLOpener
	opts  Options
	rec   *Recorder
}

func (w *wrapOpener) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	b, err := w.inner.OpenBucketURL(ctx, u)
	if err != nil {
		return nil, err
	}
	return newBucket(b, w.opts, w.rec, true), nil
}

// Register registers on mux, under scheme, the opener [WrapOpener] makes of
// inner and opts, and returns its Recorder:
//
//	mux := new(blob.URLMux)
//	rec := blobtest.Register(mux, "s3", &s3blob.URLOpener{}, &blobtest.Options{Latency: 20 * time.Millisecond})
//	b, err := mux.OpenBucket(ctx, srv.BucketURL("ckpt")) // s3test's server, 20 ms a call
//
// Like mux.RegisterBucket it panics when scheme is already registered on mux,
// so register on blob.DefaultURLMux once per process (in TestMain), or use
// [Mount].
func Register(mux *blob.URLMux, scheme string, inner blob.BucketURLOpener, opts *Options) *Recorder {
	o, rec := WrapOpener(inner, opts)
	mux.RegisterBucket(scheme, o)
	return rec
}
