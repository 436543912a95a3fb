package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/examples/internal/scenario"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume/localblob"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
	"github.com/resumekit/resumekit/resume/resumetest/s3test"
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
// waiting on the call or on Bucket.Close behind it — demo, the salvage
// paths (--flink-sources, and the new job given with a Flink location),
// --flink-anchor and --flink-extra-root included. resolve still prints its
// report when the blocked call is inside the chain: the chain gives up on
// the stuck source at the deadline. A --plan - whose input never comes ends
// the same way.
func TestTimeoutEndsABlockedCall(t *testing.T) {
	dir, _ := paimonDir(t, nil)
	ck := localLayout(t)
	chk := ck + "/0123456789abcdef0123456789abcdef/chk-2"
	for _, c := range []struct {
		args   []string
		report bool // the chain ran: its report is printed
	}{
		{[]string{"paimon", "consumers", dir}, false},
		{[]string{"paimon", "snapshots", dir}, false},
		{[]string{"paimon", "reset-consumer", dir, "--consumer", "job", "--next-snapshot", "8"}, false},
		{[]string{"flink", "list", ck}, false},
		{[]string{"flink", "list", ck, "--flink-extra-root", "s3a://other/=" + ck}, false},
		{[]string{"flink", "inspect", chk}, false},
		{[]string{"flink", "sources", chk}, false},
		{[]string{"flink", "compat", chk, "--uid", "a"}, false},
		{[]string{"resolve", "--flink-checkpoints", ck}, true},
		{[]string{"resolve", "--flink-checkpoints", ck, "--flink-sources"}, true},
		{[]string{"resolve", "--flink-checkpoints", ck, "--flink-uid", "uid-1"}, true}, // salvage offered automatically
		{[]string{"resolve", "--flink-checkpoints", ck, "--flink-extra-root", "s3a://other/=" + ck}, true},
		{[]string{"resolve", "--flink-checkpoints", ck, "--flink-anchor", chk}, false}, // the anchor is read before the chain
		{[]string{"resolve", "--paimon-table", dir, "--paimon-consumer", "job"}, true},
		{[]string{"resolve", "--flink-checkpoints", ck, "--flink-sources", "--paimon-table", dir}, true},
		{[]string{"demo"}, false},
	} {
		h := blockingHooks(t)
		if c.report {
			// The chain itself gives up on the stuck source at the
			// deadline; Main's hard deadline must not race it.
			h.grace = time.Minute
		}
		var out, errOut bytes.Buffer
		code := runHooked(append(c.args, "--timeout", "50ms"), &out, &errOut, h)
		if code != ExitFailed {
			t.Errorf("%q: exit %d, want 1\n%s%s", c.args, code, out.String(), errOut.String())
		}
		msg := out.String() + errOut.String()
		if !strings.Contains(msg, "timed out after 50ms (--timeout)") && !strings.Contains(msg, "context deadline exceeded") {
			t.Errorf("%q: no timeout error:\n%s", c.args, msg)
		}
		if c.report && !strings.Contains(out.String(), "CHOSEN  nothing acceptable") {
			t.Errorf("%q: no report:\n%s", c.args, out.String())
		}
	}
	// Standard input that never ends (a terminal nobody types into).
	never, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	for _, args := range [][]string{
		{"flink", "compat", chk, "--plan", "-"},
		{"resolve", "--flink-checkpoints", ck, "--flink-plan", "-"},
	} {
		var out, errOut bytes.Buffer
		code := runHooked(append(args, "--timeout", "50ms"), &out, &errOut, &hooks{wait: noWait, stdin: never})
		if code != ExitFailed || !strings.Contains(errOut.String(), "timed out after 50ms (--timeout)") {
			t.Errorf("%q with stdin that never ends: exit %d\n%s%s", args, code, out.String(), errOut.String())
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
	// A long grace: every command must end through its context, whatever
	// the machine's load.
	slow := &hooks{wait: noWait, grace: time.Minute, bucket: func(b *blob.Bucket) *blob.Bucket {
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
		// The command's own report names the deadline: with the long grace,
		// Main's hard deadline (which would say "timed out" and exit 1
		// whatever the command did) never comes first, however loaded the
		// machine.
		msg := out.String() + errOut.String()
		if code != ExitFailed || !strings.Contains(msg, "deadline exceeded") {
			t.Errorf("%q: exit %d, want 1 with the deadline named\n%s", args, code, msg)
		}
		if slices.Contains(args, "k8s") && out.Len() > 0 {
			t.Errorf("%q printed a patch on a failure:\n%s", args, out.String())
		}
	}
}

// TestKafkaTimeoutEndsASilentBroker: a "broker" that accepts connections and
// never answers; kafka offsets, resolve, and resolve checking salvaged
// offsets against it end at --timeout.
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
	broker := l.Addr().String()
	sp := sourcesDir(t)
	for _, args := range [][]string{
		{"kafka", "offsets", "--brokers", broker, "--topic", "t", "--group", "g"},
		{"resolve", "--kafka-brokers", broker, "--kafka-topic", "t", "--kafka-group", "g"},
		{"resolve", "--flink-savepoints", sp, "--flink-sources", "--kafka-brokers", broker}, // salvaged offsets checked live
	} {
		var out, errOut bytes.Buffer
		code := runHooked(append(args, "--timeout", "100ms"), &out, &errOut, nil)
		if code != ExitFailed || !strings.Contains(out.String()+errOut.String(), "deadline") && !strings.Contains(errOut.String(), "timed out") {
			t.Errorf("%q: exit %d\n%s%s", args, code, out.String(), errOut.String())
		}
	}
}

// hostileName has a terminal escape sequence, a bell, a bidi override, a
// Hangul filler and a tag character (beyond U+FFFF).
const hostileName = "\x1b[31mred\u202eevil\x07\u3164\U000e0041"

// checkEscaped fails unless out shows hostileName escaped: no raw control
// or invisible character, and in JSON the name decodes back exactly.
func checkEscaped(t *testing.T, args []string, code int, out, errs string) {
	t.Helper()
	all := out + errs
	if strings.ContainsAny(all, "\x1b\x07\u202e\u3164\U000e0041") {
		t.Errorf("%q: exit %d, raw control or invisible characters in:\n%q", args, code, all)
	}
	if !strings.Contains(all, `\u202e`) || !strings.Contains(all, `\u3164`) || !strings.Contains(all, `\udb40\udc41`) ||
		!(strings.Contains(all, `\x1b[31mred`) || strings.Contains(all, `\u001b[31mred`)) {
		t.Errorf("%q: the name is not shown escaped:\n%s", args, all)
	}
	if slices.Contains(args, "--json") {
		var doc any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Errorf("%q: the JSON does not parse: %v\n%s", args, err, out)
		} else if !strings.Contains(fmt.Sprint(doc), hostileName) {
			t.Errorf("%q: the JSON does not hold the name as it is:\n%s", args, out)
		}
	}
}

// TestStorageNamesArePrintedEscaped: names from storage — a consumer file
// name, an operator's name and uid in _metadata, a source's uid — with
// terminal escapes, bidi overrides and invisible characters are printed
// escaped by every command that shows them, in text and JSON (where the
// escapes decode back to the name: a character beyond U+FFFF as a
// surrogate pair).
func TestStorageNamesArePrintedEscaped(t *testing.T) {
	dir, _ := paimonDir(t, nil)
	if err := os.WriteFile(filepath.Join(dir, "consumer", "consumer-"+hostileName), []byte(`{"nextSnapshot":5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"paimon", "consumers", dir}, {"paimon", "consumers", dir, "--json"}} {
		code, out, errs := runPaimonCLI(args...)
		if code != ExitOK {
			t.Errorf("%q: exit %d\n%s%s", args, code, out, errs)
		}
		checkEscaped(t, args, code, out, errs)
	}

	root := t.TempDir()
	b, err := localblob.OpenBucket(root, &localblob.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	l := &flinkckpttest.Layout{Bucket: b, Root: "file://" + filepath.ToSlash(root) + "/"}
	src := flinkckpttest.KafkaSource(hostileName, "orders", 5)
	src.Name = hostileName
	w, err := l.Savepoint(context.Background(), "savepoint-0a0b0c-000000000001", 7, &flinkckpttest.Checkpoint{Version: 5, Sources: []flinkckpttest.Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	sp := filepath.Join(root, filepath.FromSlash(w.Dir))
	for _, args := range [][]string{
		{"flink", "inspect", sp},
		{"flink", "inspect", sp, "--json"},
		{"flink", "compat", sp, "--uid", "other"},
		{"flink", "compat", sp, "--uid", "other", "--json"},
		{"flink", "sources", sp},
		{"flink", "sources", sp, "--json"},
	} {
		code, out, errs := runPaimonCLI(args...)
		checkEscaped(t, args, code, out, errs)
	}
}

// TestSnapshotsEndAtMaxInt64: a table whose LATEST hint and newest snapshot
// file say 9223372036854775807 (where id+1 wraps and the old loop never
// ended): paimon snapshots ends, naming the malformed file; the same id as
// --next-snapshot or --expect-previous is a usage error.
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
	// Ids above 2^62 given on the command line: usage errors, before any
	// read.
	for _, args := range [][]string{
		{"paimon", "reset-consumer", dir, "--consumer", "job", "--next-snapshot", huge},
		{"paimon", "reset-consumer", dir, "--consumer", "job", "--next-snapshot", "8", "--execute", "--expect-previous", huge},
	} {
		code, out, errs := runPaimonCLI(args...)
		if code != ExitUsage || !strings.Contains(errs, "1 to 2^62") {
			t.Errorf("%q: exit %d\n%s%s", args, code, out, errs)
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

// TestHostileInputGivesShortErrors: a 1 MiB topic name, consumer id,
// argument or flag value gives a short error.
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
		{"resolve", "--flink-checkpoints", dir, "--flink-plan", huge},
		{"resolve", "--flink-checkpoints", dir, "--flink-plan-config", huge},
		{"resolve", "--flink-checkpoints", dir, "--flink-uid-hash", huge},
		{"resolve", "--flink-checkpoints", dir, "--flink-extra-root", huge},
		{"resolve", "--flink-checkpoints", dir, "--flink-anchor", huge},
		{"resolve", "--flink-checkpoints", dir, "--flink-max-metadata-size", huge},
		{"resolve", "--paimon-table", dir, "--paimon-consumer", "job", "--paimon-option", huge},
		{"resolve", "--paimon-table", dir, "--paimon-consumer", "job", "--paimon-version", huge},
		{"resolve", "--kafka-brokers", huge, "--kafka-topic", "t", "--kafka-group", "g"},
		{"flink", "compat", dir, "--plan", huge},
		{"paimon", "consumers", dir, "--branch", huge},
		{"demo", "--keep", huge},
	} {
		code, out, errs := runPaimonCLI(args...)
		if code == ExitOK || len(errs) > 16<<10 || len(out) > 16<<10 {
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
	srv := s3test.NewServer(t)
	srv.CreateBucket(t, "data")
	other := srv.Bucket(t, "other")
	if err := other.WriteAll(context.Background(), "wh/db.db/t/consumer/consumer-job", []byte(`{"nextSnapshot":666}`), nil); err != nil {
		t.Fatal(err)
	}
	srv.Redirect("data", "other")
	u := strings.Replace(srv.BucketURL("data"), "s3://data?", "s3://data/wh/db.db/t?", 1)
	before := len(srv.Requests())
	code, out, errs := runPaimonCLI("paimon", "consumers", u, "--timeout", "30s")
	if code != ExitFailed || !strings.Contains(errs, "refusing to follow a redirect") || strings.Contains(out, "666") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	paths := srv.Requests()[before:]
	for _, p := range paths {
		if strings.HasPrefix(p, "/other/") {
			t.Errorf("the redirect was followed: %s", p)
		}
	}
	if !slices.ContainsFunc(paths, func(p string) bool { return p == "/data" || strings.HasPrefix(p, "/data/") }) {
		t.Errorf("bucket data was never asked: %q", paths)
	}
}

// sourcesDir builds scenario.BuildSources (a savepoint holding KafkaSource
// offsets and a Paimon MonitorSource's next snapshot) in a temporary
// directory and returns its savepoint directory.
func sourcesDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	b, err := localblob.OpenBucket(dir, &localblob.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	env := &scenario.Env{Bucket: b, Root: "file://" + filepath.ToSlash(dir) + "/", Touch: func(key string, tm time.Time) error {
		return os.Chtimes(filepath.Join(dir, filepath.FromSlash(key)), tm, tm)
	}}
	s, err := scenario.BuildSources(env, "")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, filepath.FromSlash(s.Savepoints))
}

// TestKafkaSeedsWithCredentialsAreRefused: a seed broker written with user
// information (user:password@host:port) or as a URL is a usage error that
// does not print it; it used to be dialled as a host name and quoted whole
// in the dial error.
func TestKafkaSeedsWithCredentialsAreRefused(t *testing.T) {
	seed := "admin:" + plantedSecret + "@127.0.0.1:1"
	for _, args := range [][]string{
		{"kafka", "offsets", "--brokers", "127.0.0.1:2," + seed, "--topic", "t", "--group", "g"},
		{"kafka", "offsets", "--brokers", "kafka://127.0.0.1:1", "--topic", "t", "--group", "g"},
		{"resolve", "--kafka-brokers", seed, "--kafka-topic", "t", "--kafka-group", "g"},
	} {
		code, out, errs := runPaimonCLI(args...)
		if code != ExitUsage || !strings.Contains(errs, "a seed broker is HOST:PORT") || strings.Contains(out+errs, secretParts[0]) {
			t.Errorf("%q: exit %d\n%s%s", args, code, out, errs)
		}
	}
}

// TestZonelessTimeIsUsageError (issue 33 item 8): --paimon-from without a
// zone was read as UTC while Paimon's scan.timestamp reads local time; it
// is a usage error naming both readings, in every command taking a TIME.
// A start after --now is said (paimon.start-in-future).
func TestZonelessTimeIsUsageError(t *testing.T) {
	dir, _ := paimonDir(t, nil)
	const zoneless = "2026-11-29T19:40:00"
	for _, args := range [][]string{
		{"resolve", "--paimon-table", dir, "--paimon-consumer", "new", "--paimon-from", zoneless},
		{"resolve", "--kafka-brokers", "127.0.0.1:1", "--kafka-topic", "t", "--kafka-from", zoneless},
		{"paimon", "snapshots", dir, "--around", zoneless},
		{"kafka", "offsets", "--brokers", "127.0.0.1:1", "--topic", "t", "--at", zoneless},
	} {
		code, out, errs := runPaimonCLI(args...)
		if code != ExitUsage || !strings.Contains(errs, "has no zone or offset") || !strings.Contains(errs, "as UTC (kafka-consumer-groups --to-datetime) it is 2026-11-29T19:40:00Z") ||
			!strings.Contains(errs, "as local time (Paimon's scan.timestamp reads the job's time zone") {
			t.Errorf("%q: exit %d\n%s%s", args, code, out, errs)
		}
	}
	code, out, errs := runPaimonCLI("resolve", "--paimon-table", dir, "--paimon-consumer", "new", "--paimon-from", "2026-11-29T19:40:00+08:00", "--now", "2026-11-29T11:00:00Z", "--min-guarantee", "replay")
	if !strings.Contains(out, "paimon.start-in-future") || !strings.Contains(out, "the start time 2026-11-29T11:40:00") {
		t.Errorf("a start 40 minutes after --now: exit %d\n%s%s", code, out, errs)
	}
}
