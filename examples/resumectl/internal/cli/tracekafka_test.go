package cli

import (
	"bytes"
	"context"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// hangingBroker listens on loopback, accepts every connection, reads what
// the client sends and never answers: a Kafka broker that hangs. Its
// connections are closed when the test ends.
func hangingBroker(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go io.Copy(io.Discard, c) //nolint:errcheck // read until closed, answer nothing
		}
	}()
	return ln.Addr().String()
}

// TestHangingKafkaBrokerNamed (issue 33 item 16, Kafka): a broker that
// accepts the connection and never answers is named like a hanging store:
// the pending request and the broker's address, in the progress line (once
// it has waited a while, with --timeout) and in what is still waiting.
func TestHangingKafkaBrokerNamed(t *testing.T) {
	addr := hangingBroker(t)
	tr := newTracer()
	begun := make(chan traceCall, 16)
	tr.onBegin = func(c traceCall) {
		select {
		case begun <- c:
		default: // only the first matters
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.WithHooks(tr.kafkaHook()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pinged := make(chan error, 1)
	go func() { pinged <- cl.Ping(ctx) }()
	c := <-begun // the request kgo wrote to the broker
	want := "ApiVersions request to Kafka broker " + addr
	if c.name() != want {
		t.Errorf("pending request %q, want %q", c.name(), want)
	}
	now := time.Now().Add(5 * time.Minute)
	tr.now = func() time.Time { return now }
	if got := tr.waiting(); !strings.HasPrefix(got, "the Kafka request(s) "+want+" (waiting 5m") {
		t.Errorf("waiting %q", got)
	}
	p := &progress{now: tr.now, start: now.Add(-5 * time.Minute), sources: 1,
		pending: func() string { return tr.longest(2 * time.Second) }}
	if line := p.line(); !strings.Contains(line, "waiting for "+want+" (waiting 5m") || !strings.Contains(line, "(--timeout ends it)") {
		t.Errorf("progress line %q", line)
	}
	// Once the client gives up, the connection closes: nothing waits.
	// franz-go runs the read hook from the broker's goroutine, which may
	// be after Close returned: wait for the request's end (bounded), then
	// look.
	ended := make(chan struct{}, 1)
	tr.mu.Lock()
	tr.onEndKafka = func() {
		select {
		case ended <- struct{}{}:
		default:
		}
	}
	tr.mu.Unlock()
	cancel()
	<-pinged
	cl.Close()
	for tr.waiting() != "" {
		select {
		case <-ended:
		case <-time.After(time.Minute):
			t.Fatalf("a minute after close, still waiting %q", tr.waiting())
		}
	}
}

// TestHangingKafkaBrokerTimeout: through the CLI, a resolve and a kafka
// offsets against a broker that never answers end at --timeout (exit 1)
// with an error that names --timeout, the pending Kafka request and the
// broker's address.
func TestHangingKafkaBrokerTimeout(t *testing.T) {
	addr := hangingBroker(t)
	re := regexp.MustCompile(`--timeout.*still waiting for the Kafka request\(s\) ApiVersions request to Kafka broker ` + regexp.QuoteMeta(addr) + ` \(waiting [0-9.]+m?s\)`)
	for _, args := range [][]string{
		{"resolve", "--kafka-brokers", addr, "--kafka-topic", "orders", "--kafka-group", "g"},
		{"kafka", "offsets", "--brokers", addr, "--topic", "orders", "--group", "g"},
	} {
		var out, errOut bytes.Buffer
		code := runHooked(append(args, "--timeout", "2s"), &out, &errOut, &hooks{grace: time.Hour})
		if code != ExitFailed || !re.MatchString(errOut.String()) {
			t.Errorf("%s: exit %d, stderr does not name the request, the broker and --timeout:\n%s", args[0], code, errOut.String())
		}
	}
}
