package blobwatch_test

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/resume/blobwatch"
)

type event struct {
	begin bool
	c     blobwatch.Call
	err   error
}

type recorder struct {
	mu     sync.Mutex
	events []event
}

func (r *recorder) Begin(c blobwatch.Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, event{begin: true, c: c})
}

func (r *recorder) End(c blobwatch.Call, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, event{c: c, err: err})
}

// TestWrapSeesEveryCallAndChangesNone: each operation is seen once as it
// begins and once as it ends, with the same sequence number and the
// call's error; what the wrapped bucket answers (content, sizes,
// modification times, listings, NotFound) passes through unchanged; a
// call whose context had ended is reported ended, never begun, and does
// not reach the bucket; closing the wrapper leaves the bucket open.
func TestWrapSeesEveryCallAndChangesNone(t *testing.T) {
	ctx := context.Background()
	inner, err := fileblob.OpenBucket(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	var rec recorder
	b := blobwatch.Wrap(inner, &rec)

	if err := b.WriteAll(ctx, "ck/chk-1/_metadata", []byte("hello"), nil); err != nil {
		t.Fatal(err)
	}
	got, err := b.ReadAll(ctx, "ck/chk-1/_metadata")
	if err != nil || string(got) != "hello" {
		t.Fatalf("read %q, %v", got, err)
	}
	a, err := b.Attributes(ctx, "ck/chk-1/_metadata")
	want, _ := inner.Attributes(ctx, "ck/chk-1/_metadata")
	if err != nil || a.Size != 5 || !a.ModTime.Equal(want.ModTime) {
		t.Fatalf("attributes %+v, %v; want size 5, mod time %s", a, err, want.ModTime)
	}
	objs, _, err := b.ListPage(ctx, blob.FirstPageToken, 10, &blob.ListOptions{Prefix: "ck/", Delimiter: "/"})
	if err != nil || len(objs) != 1 || objs[0].Key != "ck/chk-1/" || !objs[0].IsDir {
		t.Fatalf("list %+v, %v", objs, err)
	}
	if _, err := b.ReadAll(ctx, "ck/missing"); gcerrors.Code(err) != gcerrors.NotFound {
		t.Fatalf("read of a missing key: %v, want NotFound", err)
	}
	if err := b.Copy(ctx, "ck/copy", "ck/chk-1/_metadata", nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(ctx, "ck/copy"); err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := b.NewReader(done, "ck/chk-1/_metadata", nil); !errors.Is(err, context.Canceled) || gcerrors.Code(err) != gcerrors.Canceled {
		t.Fatalf("read with an ended context: %v (code %v)", err, gcerrors.Code(err))
	}

	wantCalls := []struct {
		op  blobwatch.Op
		key string
		ok  bool
	}{
		{blobwatch.OpWrite, "ck/chk-1/_metadata", true},
		{blobwatch.OpRead, "ck/chk-1/_metadata", true},
		{blobwatch.OpAttributes, "ck/chk-1/_metadata", true},
		{blobwatch.OpList, "ck/", true},
		{blobwatch.OpRead, "ck/missing", false},
		{blobwatch.OpCopy, "ck/chk-1/_metadata", true},
		{blobwatch.OpDelete, "ck/copy", true},
	}
	rec.mu.Lock()
	events := rec.events
	rec.mu.Unlock()
	if len(events) != 2*len(wantCalls)+1 {
		t.Fatalf("%d events, want %d: %+v", len(events), 2*len(wantCalls)+1, events)
	}
	for i, w := range wantCalls {
		bg, en := events[2*i], events[2*i+1]
		if !bg.begin || en.begin || bg.c != en.c || bg.c.Op != w.op || bg.c.Key != w.key || bg.c.Seq != int64(i+1) {
			t.Errorf("call %d: %+v then %+v, want %s %s, seq %d", i, bg, en, w.op, w.key, i+1)
		}
		if (en.err == nil) != w.ok {
			t.Errorf("call %d (%s %s): error %v", i, w.op, w.key, en.err)
		}
	}
	if last := events[len(events)-1]; last.begin || last.c.Op != blobwatch.OpRead || !errors.Is(last.err, context.Canceled) {
		t.Errorf("the call with an ended context: %+v, want only its end, with context.Canceled", last)
	}

	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := inner.NewReader(ctx, "ck/chk-1/_metadata", nil)
	if err != nil {
		t.Fatalf("closing the wrapper closed the bucket: %v", err)
	}
	data, _ := io.ReadAll(r)
	r.Close()
	if string(data) != "hello" {
		t.Errorf("content %q", data)
	}
}

// TestWrapNilObserver: a nil observer is allowed.
func TestWrapNilObserver(t *testing.T) {
	ctx := context.Background()
	mem := memblob.OpenBucket(nil)
	defer mem.Close()
	b := blobwatch.Wrap(mem, nil)
	if err := b.WriteAll(ctx, "k", []byte("v"), nil); err != nil {
		t.Fatal(err)
	}
	if got, err := b.ReadAll(ctx, "k"); err != nil || string(got) != "v" {
		t.Fatalf("%q, %v", got, err)
	}
}
