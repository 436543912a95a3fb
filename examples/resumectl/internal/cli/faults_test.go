package cli

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// blockingHooks wraps every bucket so that every call blocks until the test
// ends, ignoring its context — a storage SDK stuck in a call.
func blockingHooks(t *testing.T) *hooks {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	return &hooks{wait: noWait, bucket: func(b *blob.Bucket) *blob.Bucket {
		w, _ := blobtest.Wrap(b, &blobtest.Options{Before: func(context.Context, blobtest.Call, *blob.Bucket) {
			<-release
		}})
		return w
	}}
}

// TestTimeoutEndsABlockedCall: with a storage call that never returns,
// every command ends at --timeout with the timeout error (exit 1), without
// waiting on the call or on Bucket.Close behind it. resolve still prints its
// report: the chain gives up on the stuck source at the deadline.
func TestTimeoutEndsABlockedCall(t *testing.T) {
	dir, _ := paimonDir(t, nil)
	ck := localLayout(t)
	for _, args := range [][]string{
		{"paimon", "consumers", dir},
		{"paimon", "snapshots", dir},
		{"paimon", "reset-consumer", dir, "--consumer", "job", "--next-snapshot", "8"},
		{"flink", "list", ck},
		{"flink", "inspect", ck + "/0123456789abcdef0123456789abcdef/chk-2"},
		{"flink", "sources", ck + "/0123456789abcdef0123456789abcdef/chk-2"},
		{"flink", "compat", ck + "/0123456789abcdef0123456789abcdef/chk-2", "--uid", "a"},
		{"resolve", "--flink-checkpoints", ck},
		{"resolve", "--paimon-table", dir, "--paimon-consumer", "job"},
	} {
		var out, errOut bytes.Buffer
		code := runHooked(append(args, "--timeout", "50ms"), &out, &errOut, blockingHooks(t))
		if code != ExitFailed {
			t.Errorf("%q: exit %d, want 1\n%s%s", args, code, out.String(), errOut.String())
		}
		msg := out.String() + errOut.String()
		if !strings.Contains(msg, "timed out after 50ms (--timeout)") && !strings.Contains(msg, "context deadline exceeded") {
			t.Errorf("%q: no timeout error:\n%s", args, msg)
		}
		if args[0] == "resolve" && !strings.Contains(out.String(), "CHOSEN  nothing acceptable") {
			t.Errorf("%q: no report:\n%s", args, out.String())
		}
	}
}

// TestTimeoutIsAFailure: with storage that answers only when the context
// ends (slow, but honouring it), every command stops at --timeout and exits
// 1, a failure — also flink compat, whose unreadable input is a usage error
// (2), and resolve, whose exit comes from resume.Classify.
func TestTimeoutIsAFailure(t *testing.T) {
	dir, _ := paimonDir(t, nil)
	ck := localLayout(t)
	slow := &hooks{wait: noWait, bucket: func(b *blob.Bucket) *blob.Bucket {
		w, _ := blobtest.Wrap(b, &blobtest.Options{Before: func(ctx context.Context, _ blobtest.Call, _ *blob.Bucket) {
			<-ctx.Done()
		}})
		return w
	}}
	chk := ck + "/0123456789abcdef0123456789abcdef/chk-2"
	for _, args := range [][]string{
		{"paimon", "consumers", dir},
		{"paimon", "snapshots", dir},
		{"paimon", "reset-consumer", dir, "--consumer", "job", "--next-snapshot", "8"},
		{"flink", "list", ck},
		{"flink", "inspect", chk},
		{"flink", "sources", chk},
		{"flink", "compat", chk, "--uid", "a"},
		{"resolve", "--flink-checkpoints", ck},
		{"resolve", "--flink-checkpoints", ck, "--format", "k8s"},
		{"resolve", "--paimon-table", dir, "--paimon-consumer", "job"},
	} {
		var out, errOut bytes.Buffer
		code := runHooked(append(args, "--timeout", "50ms"), &out, &errOut, slow)
		// The command's own report names the deadline; on a loaded machine
		// the hard deadline a grace later may come first and say so instead
		// (exit 1 either way).
		msg := out.String() + errOut.String()
		if code != ExitFailed || !strings.Contains(msg, "deadline exceeded") && !strings.Contains(msg, "timed out after 50ms (--timeout)") {
			t.Errorf("%q: exit %d, want 1 with the deadline named\n%s", args, code, msg)
		}
		if slices.Contains(args, "k8s") && out.Len() > 0 {
			t.Errorf("%q printed a patch on a failure:\n%s", args, out.String())
		}
	}
}

// TestKafkaTimeoutEndsASilentBroker: a "broker" that accepts connections and
// never answers; kafka offsets ends at --timeout.
func TestKafkaTimeoutEndsASilentBroker(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var open []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open = append(open, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
	})
	var out, errOut bytes.Buffer
	code := runHooked([]string{"kafka", "offsets", "--brokers", l.Addr().String(), "--topic", "t", "--group", "g", "--timeout", "100ms"}, &out, &errOut, nil)
	if code != ExitFailed || !strings.Contains(out.String()+errOut.String(), "deadline") && !strings.Contains(errOut.String(), "timed out") {
		t.Errorf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
}

// TestStorageNamesArePrintedEscaped: a consumer file named with a terminal
// escape sequence and a bidi override is printed escaped, in text and JSON.
func TestStorageNamesArePrintedEscaped(t *testing.T) {
	dir, _ := paimonDir(t, nil)
	name := "consumer-\x1b[31mred\u202eevil\x07"
	if err := os.WriteFile(filepath.Join(dir, "consumer", name), []byte(`{"nextSnapshot":5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"paimon", "consumers", dir}, {"paimon", "consumers", dir, "--json"}} {
		code, out, errs := runPaimonCLI(args...)
		all := out + errs
		if code != ExitOK || strings.ContainsAny(all, "\x1b\x07\u202e") {
			t.Errorf("%q: exit %d, raw control characters in:\n%q", args, code, all)
		}
		if !strings.Contains(all, `\u202e`) || !(strings.Contains(all, `\x1b[31mred`) || strings.Contains(all, `\u001b[31mred`)) {
			t.Errorf("%q: the name is not shown escaped:\n%s", args, all)
		}
	}
}

// TestSnapshotsEndAtMaxInt64: a table whose LATEST hint and newest snapshot
// file say 9223372036854775807 (where id+1 wraps and the old loop never
// ended): paimon snapshots ends, naming the malformed file.
func TestSnapshotsEndAtMaxInt64(t *testing.T) {
	dir, tb := paimonDir(t, nil)
	huge := fmt.Sprint(int64(math.MaxInt64))
	tb.WriteFile("snapshot/snapshot-"+huge, paimontest.SnapshotJSON(math.MaxInt64, 0, time.Date(2026, 11, 29, 11, 0, 0, 0, time.UTC), "w"))
	tb.SetHint("LATEST", huge)
	for _, args := range [][]string{
		{"paimon", "snapshots", dir},
		{"paimon", "snapshots", dir, "--around", "2026-11-29T10:05:00Z"},
		{"resolve", "--paimon-table", dir, "--paimon-consumer", "job"},
	} {
		code, out, errs := runPaimonCLI(args...)
		if code != ExitFailed || !strings.Contains(out+errs, "snapshot-"+huge+": id "+huge+" is above 2^62: malformed") {
			t.Errorf("%q: exit %d\n%s%s", args, code, out, errs)
		}
		if strings.Contains(out+errs, "recreated") {
			t.Errorf("%q: a false \"table recreated\":\n%s%s", args, out, errs)
		}
	}
}

// TestZeroTimeIsExplicit: 0001-01-01T00:00:00Z (Go's zero time) given as a
// TIME is a time — before 1970, so refused with exit 2 — not "not given".
func TestZeroTimeIsExplicit(t *testing.T) {
	dir, _ := paimonDir(t, nil)
	const zero = "0001-01-01T00:00:00Z"
	for _, args := range [][]string{
		{"resolve", "--paimon-table", dir, "--paimon-consumer", "new", "--paimon-from", zero},
		{"resolve", "--kafka-brokers", "127.0.0.1:1", "--kafka-topic", "t", "--kafka-from", zero},
		{"resolve", "--paimon-table", dir, "--paimon-consumer", "job", "--now", zero},
		{"paimon", "reset-consumer", dir, "--consumer", "x", "--at", zero},
		{"paimon", "snapshots", dir, "--around", zero},
		{"kafka", "offsets", "--brokers", "127.0.0.1:1", "--topic", "t", "--at", zero},
	} {
		code, out, errs := runPaimonCLI(args...)
		if code != ExitUsage || !strings.Contains(errs, "is before 1970-01-01") {
			t.Errorf("%q: exit %d\n%s%s", args, code, out, errs)
		}
	}
}

// TestHostileInputGivesShortErrors: a 1 MiB topic name, consumer id or
// argument gives a short error.
func TestHostileInputGivesShortErrors(t *testing.T) {
	dir, _ := paimonDir(t, nil)
	huge := strings.Repeat("x", 1<<20)
	for _, args := range [][]string{
		{"resolve", "--kafka-brokers", "127.0.0.1:1", "--kafka-topic", huge + "/", "--kafka-group", "g"},
		{"kafka", "offsets", "--brokers", "127.0.0.1:1", "--topic", huge + "/", "--group", "g"},
		{"paimon", "reset-consumer", dir, "--consumer", huge, "--next-snapshot", "8"},
		{"paimon", "snapshots", dir, "--around", huge},
		{"resolve", "--max-age", huge},
		{huge},
	} {
		code, out, errs := runPaimonCLI(args...)
		if code != ExitUsage || len(errs) > 16<<10 || len(out) > 0 {
			t.Errorf("%.40q…: exit %d, %d bytes of stderr, %d of stdout", args, code, len(errs), len(out))
		}
		for _, line := range strings.Split(errs, "\n") {
			if len(line) > maxErrLine+100 {
				t.Errorf("%.40q…: a stderr line of %d bytes", args, len(line))
			}
		}
	}
}

// TestS3RedirectsAreRefused: an S3 endpoint answering 307 with another
// bucket's location: the read does not follow it.
func TestS3RedirectsAreRefused(t *testing.T) {
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_ACCESS_KEY_ID", "resumekit-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "resumekit-test")
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		http.Redirect(w, r, "/other-bucket"+r.URL.Path+"?"+r.URL.RawQuery, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	u := "s3://data/wh/db.db/t?endpoint=" + srv.URL + "&use_path_style=true&disable_https=true&region=us-east-1"
	code, out, errs := runPaimonCLI("paimon", "consumers", u, "--timeout", "30s")
	if code != ExitFailed || !strings.Contains(errs, "refusing to follow a redirect") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range paths {
		if strings.HasPrefix(p, "/other-bucket") {
			t.Errorf("the redirect was followed: %s", p)
		}
	}
	if len(paths) == 0 {
		t.Error("the endpoint was never asked")
	}
}
