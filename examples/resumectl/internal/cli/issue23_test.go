package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/examples/internal/scenario"
	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/localblob"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// flinkDemoDir builds the demo's checkpoint root and savepoint dir in a
// temp dir and returns it.
func flinkDemoDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	b, err := localblob.OpenBucket(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	env := &scenario.Env{Bucket: b, Root: "file://" + filepath.ToSlash(dir) + "/", Touch: func(key string, tm time.Time) error {
		return os.Chtimes(filepath.Join(dir, filepath.FromSlash(key)), tm, tm)
	}}
	if _, err := scenario.BuildFlink(env, ""); err != nil {
		t.Fatal(err)
	}
	return dir
}

// recordingHooks counts every storage call of a run through blobtest
// recorders (one per bucket opened).
type recordingHooks struct {
	mu   sync.Mutex
	recs []*blobtest.Recorder
}

func (r *recordingHooks) hooks(h *hooks) *hooks {
	h.bucket = func(b *blob.Bucket) *blob.Bucket {
		w, rec := blobtest.Wrap(b, nil)
		r.mu.Lock()
		r.recs = append(r.recs, rec)
		r.mu.Unlock()
		return w
	}
	return h
}

func (r *recordingHooks) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, rec := range r.recs {
		n += rec.Total()
	}
	return n
}

// TestVerbosePrintsEveryStorageCall: --verbose prints one line per storage
// call, with its duration: as many lines as the calls the buckets saw.
func TestVerbosePrintsEveryStorageCall(t *testing.T) {
	dir := flinkDemoDir(t)
	var rec recordingHooks
	var out, errOut bytes.Buffer
	code := runHooked([]string{"resolve", "--flink-checkpoints", dir + "/checkpoints", "--flink-savepoints", dir + "/savepoints", "--now", "2026-11-29T12:00:00Z", "--verbose"},
		&out, &errOut, rec.hooks(&hooks{}))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	line := regexp.MustCompile(`^resumectl: storage: (list|read|attributes) "[^"]*" [0-9.]+(ns|µs|ms|s)(: .*)?$`)
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(errOut.String()), "\n") {
		if !line.MatchString(l) {
			t.Errorf("not a storage call line: %q", l)
		}
		n++
	}
	if total := rec.total(); n != total || total == 0 {
		t.Errorf("%d lines for %d storage calls", n, total)
	}
	if !strings.Contains(errOut.String(), `resumectl: storage: read "`+dir+`/checkpoints/9f2c6d0b41e8a7355c1d2e3f4a5b6c7d/chk-41/_metadata" `) {
		t.Errorf("the _metadata read of chk-41 is not named as a path:\n%s", errOut.String())
	}
}

// TestProgressLine: on a terminal's stderr (a test hook says so) the live
// line shows what was listed, read, verified and checked and how many
// storage calls were made, and is cleared at the end, before the report's
// last word; on a pipe nothing is printed unless --progress asks.
func TestProgressLine(t *testing.T) {
	dir := flinkDemoDir(t)
	args := []string{"resolve", "--flink-checkpoints", dir + "/checkpoints", "--flink-savepoints", dir + "/savepoints", "--now", "2026-11-29T12:00:00Z"}
	run := func(term bool, extra ...string) (string, string, int, int) {
		var rec recordingHooks
		var out, errOut bytes.Buffer
		h := rec.hooks(&hooks{progressNow: true, terminal: func(w io.Writer) bool { return term && w == io.Writer(&errOut) }})
		code := runHooked(append(append([]string{}, args...), extra...), &out, &errOut, h)
		return out.String(), errOut.String(), code, rec.total()
	}

	out, errOut, code, calls := run(true)
	if code != ExitOK || !strings.HasPrefix(out, "CHOSEN  flink-checkpoints: chk-41") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	draws := strings.Split(errOut, clearLine)
	if !strings.HasSuffix(errOut, clearLine) || len(draws) < 3 {
		t.Fatalf("stderr does not end with a cleared line:\n%q", errOut)
	}
	last := draws[len(draws)-2]
	want := regexp.MustCompile(`^resolving \([0-9.]+m?s\): 2 location\(s\) listed, 3 _metadata read, 2 verified, 1 of 1 sources checked, ([0-9]+) storage calls$`)
	m := want.FindStringSubmatch(last)
	if m == nil {
		t.Fatalf("last progress line %q", last)
	}
	if m[1] != strconv.Itoa(calls) {
		t.Errorf("the line counts %s storage calls, the buckets saw %d", m[1], calls)
	}
	if strings.Contains(errOut, "\n") {
		t.Errorf("the progress line left lines behind: %q", errOut)
	}

	if _, errOut, _, _ := run(false); errOut != "" {
		t.Errorf("not a terminal: stderr %q, want nothing", errOut)
	}
	if _, errOut, _, _ := run(false, "--progress"); !strings.Contains(errOut, "resolving (") || !strings.HasSuffix(errOut, clearLine) {
		t.Errorf("--progress on a pipe: stderr %q", errOut)
	}
}

// TestReportWrapsOnATerminal: on a terminal the report folds reasons longer
// than the line under their label; on a pipe each fact stays on one line
// (for grep); both hold the same words.
func TestReportWrapsOnATerminal(t *testing.T) {
	dir := flinkDemoDir(t)
	args := []string{"resolve", "--flink-checkpoints", dir + "/checkpoints", "--flink-savepoints", dir + "/savepoints", "--now", "2026-11-29T12:00:00Z"}
	var wrapped, flat, errOut bytes.Buffer
	t.Setenv("COLUMNS", "")
	if code := runHooked(args, &wrapped, &errOut, &hooks{terminal: func(w io.Writer) bool { return w == io.Writer(&wrapped) }}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if code := runHooked(args, &flat, &errOut, nil); code != ExitOK {
		t.Fatal(code)
	}
	long := 0
	for _, l := range strings.Split(wrapped.String(), "\n") {
		if len([]rune(l)) > resume.ReportWidth && !strings.HasPrefix(l, "  run:") && strings.Contains(strings.TrimSpace(l), " ") {
			long++
		}
	}
	if long > 1 { // a path longer than the line stays whole
		t.Errorf("%d wrapped lines are longer than %d:\n%s", long, resume.ReportWidth, wrapped.String())
	}
	if !strings.Contains(wrapped.String(), "\n           ") {
		t.Errorf("nothing was wrapped under its label:\n%s", wrapped.String())
	}
	if strings.Join(strings.Fields(wrapped.String()), " ") != strings.Join(strings.Fields(flat.String()), " ") {
		t.Errorf("wrapped and flat reports differ in words:\n%s\n%s", wrapped.String(), flat.String())
	}
	if strings.Contains(flat.String(), "\n           ") {
		t.Errorf("a report on a pipe is wrapped:\n%s", flat.String())
	}
}

// TestTimeoutNamesTheWaitingCall: when --timeout ends a resolve whose
// storage call never returns, stderr names that call.
func TestTimeoutNamesTheWaitingCall(t *testing.T) {
	ck := localLayout(t)
	h := blockingHooks(t)
	h.grace = time.Hour // the chain gives up at the deadline, Main does not abandon it
	var out, errOut bytes.Buffer
	code := runHooked([]string{"resolve", "--flink-checkpoints", ck, "--timeout", "50ms"}, &out, &errOut, h)
	if code != ExitFailed {
		t.Fatalf("exit %d", code)
	}
	if !regexp.MustCompile(`still waiting for the storage call\(s\) list "` + regexp.QuoteMeta(ck) + `(/| \(root\))" \(waiting [0-9.]+m?s\)`).MatchString(errOut.String()) {
		t.Errorf("stderr does not name the waiting call:\n%s", errOut.String())
	}
	// A command Main abandons at its hard deadline names it too.
	errOut.Reset()
	code = runHooked([]string{"flink", "list", ck, "--timeout", "50ms"}, &out, &errOut, blockingHooks(t))
	if code != ExitFailed || !strings.Contains(errOut.String(), "still waiting for the storage call(s) list") {
		t.Errorf("flink list: exit %d, stderr %s", code, errOut.String())
	}
}

// TestChainErrorWrapsSentinels: with real flinkckpt resolvers, the chain's
// error reaches flinkckpt.ErrEmptyLocation for a first deploy (and
// ErrNoPosition), flinkckpt.ErrIncompatible and resume.ErrIncompatible (not
// ErrNoPosition) for a job the snapshot does not fit, without walking
// Decision.Considered.
func TestChainErrorWrapsSentinels(t *testing.T) {
	dir := t.TempDir()
	b, err := localblob.OpenBucket(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	empty, err := flinkckpt.NewResolver(b, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{empty}}).Resolve(context.Background())
	if !errors.Is(err, flinkckpt.ErrEmptyLocation) || !errors.Is(err, resume.ErrNoPosition) || resume.Classify(d, err) != resume.ResultNothingToRestore {
		t.Errorf("empty location: err %v, result %s", err, resume.Classify(d, err))
	}

	sb, err := localblob.OpenBucket(compatDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	job := jobgraph.JobFromUIDs("no-such-operator")
	job.AllUIDs = true // the uids are all of the job's: unmatched state is dropped, not unknown
	sp, err := flinkckpt.NewResolver(sb, "", &flinkckpt.Options{Name: "flink-savepoints", Job: job, FallbackFlinkRoot: "file://" + compatDir + "/"})
	if err != nil {
		t.Fatal(err)
	}
	d, err = (&resume.Chain{Resolvers: []resume.Resolver{sp}}).Resolve(context.Background())
	if !errors.Is(err, flinkckpt.ErrIncompatible) || !errors.Is(err, resume.ErrIncompatible) || errors.Is(err, resume.ErrNoPosition) {
		t.Errorf("incompatible: err %v (ErrNoPosition %v)", err, errors.Is(err, resume.ErrNoPosition))
	}
	if r := resume.Classify(d, err); r != resume.ResultIncompatible || r.ExitCode() != ExitIncompatible {
		t.Errorf("incompatible: result %s", r)
	}
}
