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
// blobwatch's bucket observer, and the Kafka clients' requests through
// franz-go's hooks (kafkaHook): those are waiting calls too, never counted
// as storage calls.
type tracer struct {
	mu       sync.Mutex
	buckets  int // the buckets wrapped so far, numbering their calls apart
	inflight map[callKey]traceCall
	// onEnd, when set, receives every call that ended (--verbose, the
	// progress line).
	onEnd func(resume.Event)
	// onBegin, when set, receives every call that began (tests wait on it).
	onBegin func(traceCall)
	// onEndKafka, when set, is called after Kafka requests ended (tests
	// wait on it: franz-go may run its read hook after Close returned).
	onEndKafka func()
	now        func() time.Time
}

// callKey names one call: the wrapped bucket's number and blobwatch's
// sequence number of the call in it.
type callKey struct {
	bucket int
	call   int64
}

type traceCall struct {
	op, key string
	at      string // the location's display (the endpoint: a dir, an s3:// URL without secrets), or "Kafka broker H:P"
	start   time.Time
	// kafkaKey is a Kafka request's API key plus one (kafkaTrace); 0 for
	// a storage call.
	kafkaKey int16
}

// name is the call for a message: "list "ck/" at s3://b/ck" (no "at" when
// the key already shows the location).
func (c traceCall) name() string {
	if c.kafkaKey != 0 {
		return fmt.Sprintf("%s to %s", c.op, c.at) // "ApiVersions request to Kafka broker 127.0.0.1:9092"
	}
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
	if t.onBegin != nil {
		t.onBegin(c)
	}
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

// waiting names the calls still waiting, the longest first, storage calls
// then Kafka requests: "the storage call(s) list ck/ (waiting 5m0s)", "the
// Kafka request(s) ApiVersions request to Kafka broker 127.0.0.1:9092
// (waiting 5m0s)"; "" when none is.
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
	var parts []string
	for _, kafka := range []bool{false, true} {
		out, n := "", 0
		for _, c := range calls {
			if (c.kafkaKey != 0) != kafka {
				continue
			}
			if n == 3 {
				n++
				continue
			}
			if n > 0 {
				out += ", "
			}
			out += fmt.Sprintf("%s (waiting %s)", c.name(), now.Sub(c.start).Round(time.Millisecond))
			n++
		}
		if more := countKind(calls, kafka) - 3; more > 0 {
			out += fmt.Sprintf(" and %d more", more)
		}
		switch {
		case out == "":
		case kafka:
			parts = append(parts, "the Kafka request(s) "+out)
		default:
			parts = append(parts, "the storage call(s) "+out)
		}
	}
	return strings.Join(parts, "; ")
}

// countKind counts the Kafka requests (kafka) or storage calls in calls.
func countKind(calls []traceCall, kafka bool) int {
	n := 0
	for _, c := range calls {
		if (c.kafkaKey != 0) == kafka {
			n++
		}
	}
	return n
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
