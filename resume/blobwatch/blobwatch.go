// Package blobwatch lets an observer see every call a gocloud [blob.Bucket]
// makes: when it begins and when it ends, with its error. It is for
// production code that logs, traces or shows the progress of its storage
// calls (resumectl's --verbose and --progress, and the calls a timeout
// names), not for tests: it changes nothing about a call. (Faults,
// latency and call counts for tests are resume/resumetest/blobtest's.)
//
//	b = blobwatch.Wrap(b, observer) // closing b leaves the wrapped bucket open
//
// A call whose context had already ended when it was made never reaches
// the wrapped bucket: the observer's End reports it with the context's
// error, and Begin is not called.
package blobwatch

import (
	"context"
	"errors"
	"sync/atomic"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/internal/blobfwd"
)

// Op is a kind of bucket call (the names are shared with the module's
// other bucket wrapper, through internal/blobfwd).
type Op = blobfwd.Op

// The operations an Observer sees. OpList is one list page (one request on
// a real store), not one entry.
const (
	OpList       = blobfwd.OpList
	OpRead       = blobfwd.OpRead
	OpAttributes = blobfwd.OpAttributes
	OpWrite      = blobfwd.OpWrite
	OpCopy       = blobfwd.OpCopy
	OpDelete     = blobfwd.OpDelete
)

// Call describes one bucket call.
type Call struct {
	Op  Op
	Key string // the object key, or the list prefix for OpList
	// Seq numbers the calls of one wrapped bucket from 1, in the order
	// they were made: Begin and End of the same call carry the same Seq.
	Seq int64
}

// Observer is told about every call of a wrapped bucket. Its methods may
// be called concurrently (a bucket's calls run concurrently) and must not
// call the bucket.
type Observer interface {
	// Begin is called when a call is about to reach the wrapped bucket.
	Begin(Call)
	// End is called when the call is done, with the error it returns (nil
	// on success). For a reader it is called when the reader is opened,
	// for a writer when it is created, not when either is closed.
	End(Call, error)
}

// Wrap returns a bucket that forwards every call to b and tells o about
// it. Closing the returned bucket does not close b. A nil o is allowed
// and observes nothing.
func Wrap(b *blob.Bucket, o Observer) *blob.Bucket {
	return blob.NewBucket(&bucket{inner: b, obs: o})
}

type bucket struct {
	inner *blob.Bucket
	obs   Observer
	seq   atomic.Int64
}

// begin starts a call: the returned func ends it with its error. err is
// the context's error when it had already ended (the call is then not
// made, and Begin not called).
func (b *bucket) begin(ctx context.Context, op Op, key string) (end func(error), err error) {
	c := Call{Op: op, Key: key, Seq: b.seq.Add(1)}
	end = func(err error) {
		if b.obs != nil {
			b.obs.End(c, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return end, err
	}
	if b.obs != nil {
		b.obs.Begin(c)
	}
	return end, nil
}

func (b *bucket) ErrorCode(err error) gcerrors.ErrorCode {
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
	end, err := b.begin(ctx, OpAttributes, key)
	defer func() { end(err) }()
	if err != nil {
		return nil, err
	}
	a, err := b.inner.Attributes(ctx, key)
	if err != nil {
		return nil, err
	}
	return blobfwd.Attributes(key, a, nil), nil
}

func (b *bucket) ListPaged(ctx context.Context, opts *driver.ListOptions) (_ *driver.ListPage, err error) {
	end, err := b.begin(ctx, OpList, opts.Prefix)
	defer func() { end(err) }()
	if err != nil {
		return nil, err
	}
	return blobfwd.ListPage(ctx, b.inner, opts, nil)
}

func (b *bucket) NewRangeReader(ctx context.Context, key string, offset, length int64, opts *driver.ReaderOptions) (_ driver.Reader, err error) {
	end, err := b.begin(ctx, OpRead, key)
	defer func() { end(err) }()
	if err != nil {
		return nil, err
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
	return &reader{r: r, attrs: driver.ReaderAttributes{ContentType: r.ContentType(), ModTime: r.ModTime(), Size: r.Size()}}, nil
}

type reader struct {
	r     *blob.Reader
	attrs driver.ReaderAttributes
}

func (r *reader) Read(p []byte) (int, error)           { return r.r.Read(p) }
func (r *reader) Close() error                         { return r.r.Close() }
func (r *reader) Attributes() *driver.ReaderAttributes { return &r.attrs }
func (r *reader) As(i any) bool                        { return r.r.As(i) }

func (b *bucket) NewTypedWriter(ctx context.Context, key, contentType string, opts *driver.WriterOptions) (_ driver.Writer, err error) {
	end, err := b.begin(ctx, OpWrite, key)
	defer func() { end(err) }()
	if err != nil {
		return nil, err
	}
	return blobfwd.NewWriter(ctx, b.inner, key, contentType, opts)
}

func (b *bucket) Copy(ctx context.Context, dstKey, srcKey string, _ *driver.CopyOptions) (err error) {
	end, err := b.begin(ctx, OpCopy, srcKey)
	defer func() { end(err) }()
	if err != nil {
		return err
	}
	return b.inner.Copy(ctx, dstKey, srcKey, nil)
}

func (b *bucket) Delete(ctx context.Context, key string, _ *driver.DeleteOptions) (err error) {
	end, err := b.begin(ctx, OpDelete, key)
	defer func() { end(err) }()
	if err != nil {
		return err
	}
	return b.inner.Delete(ctx, key)
}

func (b *bucket) SignedURL(ctx context.Context, key string, opts *driver.SignedURLOptions) (string, error) {
	return b.inner.SignedURL(ctx, key, &blob.SignedURLOptions{
		Expiry: opts.Expiry, Method: opts.Method, ContentType: opts.ContentType,
		EnforceAbsentContentType: opts.EnforceAbsentContentType,
	})
}

// Close leaves the wrapped bucket open.
func (b *bucket) Close() error { return nil }
