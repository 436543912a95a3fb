package cli

import (
	"context"
	"errors"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/resume"
)

// TestTracerSeesEveryCall: the tracer built on blobwatch's observer reports
// each call once with its error — a read of a missing key, a listing of
// the root key (named by the location), a call whose context had already
// ended (it never reached the store) — and leaves nothing waiting; two
// buckets' calls are told apart; closing the traced bucket leaves the
// wrapped one open (location.Close closes it).
func TestTracerSeesEveryCall(t *testing.T) {
	ctx := context.Background()
	tr := newTracer()
	var got []resume.Event
	tr.onEnd = func(e resume.Event) { got = append(got, e) }
	mem1, mem2 := memblob.OpenBucket(nil), memblob.OpenBucket(nil)
	defer mem1.Close()
	defer mem2.Close()
	if err := mem1.WriteAll(ctx, "ck/a", []byte("x"), nil); err != nil {
		t.Fatal(err)
	}
	b1, b2 := tr.wrap(mem1, "/data/ck"), tr.wrap(mem2, "s3://bucket/")

	if _, err := b1.ReadAll(ctx, "ck/missing"); gcerrors.Code(err) != gcerrors.NotFound {
		t.Fatalf("read: %v", err)
	}
	if _, err := b1.List(&blob.ListOptions{Delimiter: "/"}).Next(ctx); err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := b2.Attributes(done, "ck/a"); !errors.Is(err, context.Canceled) {
		t.Fatalf("attributes with an ended context: %v", err)
	}
	if len(got) != 3 {
		t.Fatalf("%d events, want 3: %+v", len(got), got)
	}
	for i, want := range []struct{ op, key string }{{"read", "ck/missing"}, {"list", "/data/ck (root)"}, {"attributes", "ck/a"}} {
		if e := got[i]; e.Kind != resume.EventStorageCall || e.Op != want.op || e.Key != want.key {
			t.Errorf("event %d: %+v, want %s %s", i, e, want.op, want.key)
		}
	}
	if gcerrors.Code(got[0].Err) != gcerrors.NotFound || got[1].Err != nil || !errors.Is(got[2].Err, context.Canceled) || got[2].Duration != 0 {
		t.Errorf("errors %v, %v, %v (duration %s)", got[0].Err, got[1].Err, got[2].Err, got[2].Duration)
	}
	if w := tr.waiting(); w != "" {
		t.Errorf("still waiting: %s", w)
	}
	b1.Close()
	if _, err := mem1.ReadAll(ctx, "ck/a"); err != nil {
		t.Errorf("closing the traced bucket closed the wrapped one: %v", err)
	}
}
