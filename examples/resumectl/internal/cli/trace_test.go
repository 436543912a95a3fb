package cli

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

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

// TestHangingCallNamed (issue 33 item 16): a hanging store showed "0
// storage calls" for minutes and a timeout message without the endpoint.
// The waiting call is named with its location (an s3:// endpoint) in the
// timeout message, and in the progress line once it has waited a while,
// with --timeout.
func TestHangingCallNamed(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	tr := newTracer()
	tr.now = func() time.Time { return now }
	tr.begin(callKey{1, 1}, traceCall{op: "list", key: "ck/", at: "s3://bucket/ck?endpoint=minio:9000"})
	if got := tr.longest(2 * time.Second); got != "" {
		t.Errorf("at once: %q", got)
	}
	now = now.Add(5 * time.Minute)
	want := `list "ck/" at s3://bucket/ck?endpoint=minio:9000 (waiting 5m0s)`
	if got := tr.waiting(); got != "the storage call(s) "+want {
		t.Errorf("waiting %q, want %q", got, want)
	}
	p := &progress{now: func() time.Time { return now }, start: now.Add(-5 * time.Minute), sources: 1,
		pending: func() string { return tr.longest(2 * time.Second) }}
	if line := p.line(); !strings.Contains(line, "0 storage calls, waiting for "+want+" (--timeout ends it)") {
		t.Errorf("progress line %q", line)
	}
	// A local location's key already shows where it is.
	tr.begin(callKey{2, 1}, traceCall{op: "read", key: "/data/ck/x/_metadata", at: "/data/ck"})
	if got := tr.waiting(); !strings.Contains(got, `read "/data/ck/x/_metadata" (waiting 0s)`) {
		t.Errorf("waiting %q", got)
	}
}
