package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/blobwatch"
	"github.com/resumekit/resumekit/resume/redact"
)

// tracer follows every storage call of a command: the calls still waiting,
// which a timeout names; with verbose, each call's line on stderr; and the
// progress line's count of calls. It sees the calls through
// blobwatch's bucket observer.
type tracer struct {
	mu       sync.Mutex
	buckets  int // the buckets wrapped so far, numbering their calls apart
	inflight map[callKey]traceCall
	// onEnd, when set, receives every call that ended (--verbose, the
	// progress line).
	onEnd func(resume.Event)
	now   func() time.Time
}

// callKey names one call: the wrapped bucket's number and blobwatch's
// sequence number of the call in it.
type callKey struct {
	bucket int
	call   int64
}

type traceCall struct {
	op, key string
	at      string // the location's display (the endpoint: a dir, an s3:// URL without secrets)
	start   time.Time
}

// name is the call for a message: "list "ck/" at s3://b/ck" (no "at" when
// the key already shows the location).
func (c traceCall) name() string {
	k := redact.QuoteKey(c.key)
	if c.at == "" || strings.HasPrefix(c.key, c.at) {
		return fmt.Sprintf("%s %s", c.op, k)
	}
	return fmt.Sprintf("%s %s at %s", c.op, k, c.at)
}

// longest names the call waiting longest, with how long, when it has
// waited at least min: the progress line shows it ("" when none has).
func (t *tracer) longest(min time.Duration) string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var oldest *traceCall
	for _, c := range t.inflight {
		if oldest == nil || c.start.Before(oldest.start) {
			oldest = &c
		}
	}
	if oldest == nil {
		return ""
	}
	d := t.now().Sub(oldest.start)
	if d < min {
		return ""
	}
	return fmt.Sprintf("%s (waiting %s)", oldest.name(), d.Round(time.Second))
}

func newTracer() *tracer {
	return &tracer{inflight: map[callKey]traceCall{}, now: time.Now}
}

// wrap returns b with every call followed by t, naming the root key "" by
// the location display (a local directory, an s3:// URL without secrets).
// Closing the result leaves b open.
func (t *tracer) wrap(b *blob.Bucket, display string) *blob.Bucket {
	t.mu.Lock()
	t.buckets++
	n := t.buckets
	t.mu.Unlock()
	return blobwatch.Wrap(b, bucketTrace{t: t, n: n, display: display})
}

// bucketTrace is the observer of one wrapped bucket.
type bucketTrace struct {
	t       *tracer
	n       int
	display string
}

func (b bucketTrace) call(c blobwatch.Call) (callKey, traceCall) {
	key := c.Key
	if key == "" && b.display != "" {
		key = b.display + " (root)"
	}
	return callKey{b.n, c.Seq}, traceCall{op: string(c.Op), key: key, at: b.display}
}

func (b bucketTrace) Begin(c blobwatch.Call) { b.t.begin(b.call(c)) }

func (b bucketTrace) End(c blobwatch.Call, err error) {
	k, tc := b.call(c)
	b.t.end(k, tc, err)
}

func (t *tracer) begin(k callKey, c traceCall) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c.start = t.now()
	t.inflight[k] = c
}

// end reports call k ended with err; c names it when it ended before it
// began (its context had ended: it never reached the store).
func (t *tracer) end(k callKey, c traceCall, err error) {
	t.mu.Lock()
	now := t.now()
	if begun, ok := t.inflight[k]; ok {
		c = begun
	} else {
		c.start = now
	}
	delete(t.inflight, k)
	onEnd := t.onEnd
	t.mu.Unlock()
	if onEnd != nil {
		onEnd(resume.Event{Kind: resume.EventStorageCall, Op: c.op, Key: c.key, Duration: now.Sub(c.start), Err: err})
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
		out += fmt.Sprintf("%s (waiting %s)", c.name(), now.Sub(c.start).Round(time.Millisecond))
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
