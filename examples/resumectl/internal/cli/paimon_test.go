package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/resumekit/resumekit/paimon/paimontest"
)

// paimonDir builds a local table with snapshots 3..10 (one a minute from
// 10:00 UTC) and consumer "job" at 6, and returns its directory.
func paimonDir(t *testing.T, opts map[string]string) (string, *paimontest.Table) {
	t.Helper()
	root, b := tempBucket(t)
	tb := paimontest.New(t, b, "wh/default.db/t")
	if opts != nil {
		tb.Schema(opts)
	}
	tb.CommitEvery(10, time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), time.Minute).ExpireBefore(3).Consumer("job", 6)
	return filepath.Join(root, "wh", "default.db", "t"), tb
}

// runPaimonCLI runs resumectl in-process; the Paimon tables' pauses (the
// reset's observation, retries) do not wait.
func runPaimonCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runHooked(args, &out, &errb, &hooks{wait: noWait})
	return code, out.String(), errb.String()
}

func noWait(ctx context.Context, _ time.Duration) error { return ctx.Err() }

func TestPaimonConsumers(t *testing.T) {
	dir, tb := paimonDir(t, nil)
	tb.ConsumerPython("other", 9)
	code, out, errs := runPaimonCLI("paimon", "consumers", dir)
	if code != 0 || !strings.Contains(out, "job") || !strings.Contains(out, "other") || !strings.Contains(out, "default.t") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = runPaimonCLI("paimon", "consumers", "file://"+dir, "--json")
	var doc struct {
		Consumers []struct {
			ConsumerID     string `json:"consumer_id"`
			NextSnapshotID int64  `json:"next_snapshot_id"`
			ModTime        string `json:"mod_time"`
		} `json:"consumers"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	if len(doc.Consumers) != 2 || doc.Consumers[0].ConsumerID != "job" || doc.Consumers[0].NextSnapshotID != 6 || doc.Consumers[1].NextSnapshotID != 9 || doc.Consumers[0].ModTime == "" {
		t.Errorf("consumers %+v", doc.Consumers)
	}
	// A broken consumer file: listed with its error, exit 1.
	tb.WriteFile("consumer/consumer-bad", []byte(`{"nextSnapshot": -1}`))
	code, out, _ = runPaimonCLI("paimon", "consumers", dir)
	if code != ExitFailed || !strings.Contains(out, "consumer-bad") {
		t.Errorf("broken consumer: exit %d\n%s", code, out)
	}
}

func TestPaimonSnapshots(t *testing.T) {
	dir, _ := paimonDir(t, nil)
	code, out, errs := runPaimonCLI("paimon", "snapshots", dir)
	if code != 0 || !strings.Contains(out, "snapshots 3..10") || strings.Count(out, "APPEND") != 8 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = runPaimonCLI("paimon", "snapshots", dir, "--around", "2026-11-29 10:05:30Z", "--limit", "3")
	if code != 0 || !strings.Contains(out, "starts at snapshot 7") || !strings.Contains(out, "<- start") || !strings.Contains(out, "earlier-or-equal 6, later-or-equal 7") || strings.Count(out, "APPEND") != 3 {
		t.Fatalf("--around: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = runPaimonCLI("paimon", "snapshots", dir, "--around", "2026-11-29T09:00:00Z", "--json")
	var doc snapshotsJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	if doc.Earliest != 3 || doc.Latest != 10 || doc.StreamingStart != 3 || doc.EarlierOrEqual != nil || doc.LaterOrEqual == nil || *doc.LaterOrEqual != 3 {
		t.Errorf("json %+v", doc)
	}
}

func TestPaimonResetConsumer(t *testing.T) {
	dir, _ := paimonDir(t, nil)
	key := filepath.Join(dir, "consumer", "consumer-new")

	// Dry run: nothing written.
	code, out, errs := runPaimonCLI("paimon", "reset-consumer", dir, "--consumer", "new", "--next-snapshot", "8")
	if code != 0 || !strings.Contains(out, "dry run") || !strings.Contains(out, "CALL sys.reset_consumer('default.t', 'new', 8)") || !strings.Contains(out, "warning: consumer.expiration-time is not set in the options of table default.t") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(key); !os.IsNotExist(err) {
		t.Fatalf("dry run wrote %s: %v", key, err)
	}
	// --execute writes Jackson's JSON.
	code, out, errs = runPaimonCLI("paimon", "reset-consumer", dir, "--consumer", "new", "--next-snapshot", "8", "--execute")
	if code != 0 || !strings.Contains(out, "wrote") {
		t.Fatalf("execute: exit %d\n%s\n%s", code, out, errs)
	}
	if data, err := os.ReadFile(key); err != nil || string(data) != "{\n  \"nextSnapshot\" : 8\n}" {
		t.Errorf("file %q, %v", data, err)
	}
	// A consumer file written just now belongs to a running job: refused
	// without --force, nothing written.
	code, _, errs = runPaimonCLI("paimon", "reset-consumer", dir, "--consumer", "job", "--at", "2026-11-29T10:05:30Z", "--execute")
	if code != ExitFailed || !strings.Contains(errs, "within the quiet period") || !strings.Contains(errs, "consumer in use") {
		t.Fatalf("recently modified consumer: exit %d\n%s", code, errs)
	}
	// --expect-previous from the dry run, wrong: refused.
	code, _, errs = runPaimonCLI("paimon", "reset-consumer", dir, "--consumer", "job", "--next-snapshot", "7", "--execute", "--force", "--expect-previous", "5")
	if code != ExitFailed || !strings.Contains(errs, "expected nextSnapshot 5, found nextSnapshot 6") {
		t.Fatalf("--expect-previous 5: exit %d\n%s", code, errs)
	}
	// --at: the streaming start for the time; JSON output.
	code, out, _ = runPaimonCLI("paimon", "reset-consumer", dir, "--consumer", "job", "--at", "2026-11-29T10:05:30Z", "--execute", "--force", "--expect-previous", "6", "--json")
	var plan struct {
		NextSnapshot int64  `json:"next_snapshot"`
		Previous     *int64 `json:"previous"`
		DryRun       bool   `json:"dry_run"`
		Written      bool   `json:"written"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil || code != 0 || plan.NextSnapshot != 7 || plan.Previous == nil || *plan.Previous != 6 || plan.DryRun || !plan.Written {
		t.Fatalf("--at: exit %d %v %+v\n%s", code, err, plan, out)
	}
	// Snapshots that do not exist are refused (exit 1) and nothing is written.
	code, _, errs = runPaimonCLI("paimon", "reset-consumer", dir, "--consumer", "job", "--next-snapshot", "2", "--execute", "--force")
	if code != ExitFailed || !strings.Contains(errs, "snapshot-2 does not exist") {
		t.Errorf("expired snapshot: exit %d %s", code, errs)
	}
	for _, args := range [][]string{
		{"paimon"},
		{"paimon", "nosuch"},
		{"paimon", "consumers"},
		{"paimon", "consumers", dir, "extra"},
		{"paimon", "reset-consumer", dir, "--next-snapshot", "8"},
		{"paimon", "reset-consumer", dir, "--consumer", "x"},
		{"paimon", "reset-consumer", dir, "--consumer", "x", "--next-snapshot", "8", "--at", "-1h"},
		{"paimon", "reset-consumer", dir, "--consumer", "x", "--next-snapshot", "0"},
		{"paimon", "reset-consumer", dir, "--consumer", "../escape", "--next-snapshot", "8", "--execute"},
		{"paimon", "reset-consumer", dir, "--consumer", "x", "--at", "yesterday"},
		{"paimon", "snapshots", dir, "--limit", "0"},
		{"paimon", "reset-consumer", dir, "--consumer", "x", "--next-snapshot", "8", "--force"},
		{"paimon", "reset-consumer", dir, "--consumer", "x", "--next-snapshot", "8", "--execute", "--expect-previous", "0"},
		{"paimon", "snapshots", dir, "--branch", "a/b"},
	} {
		if code, _, _ := runPaimonCLI(args...); code != ExitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, ExitUsage)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "escape")); !os.IsNotExist(err) {
		t.Error("hostile id wrote a file")
	}
}

// TestResolvePaimonTableFlags: --paimon-option, --paimon-version and
// --paimon-written-mode reach the resolver and change the grade: changelogs
// 1..5 are kept in changelog/, the consumer is at 3 (below the earliest
// snapshot, 6; behind the latest, 10, so a start there is replay in either
// written mode, which the position records).
func TestResolvePaimonTableFlags(t *testing.T) {
	root, b := tempBucket(t)
	tb := paimontest.New(t, b, "wh/default.db/t")
	tb.CommitEvery(10, time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), time.Minute).Consumer("job", 3).ExpireKeepChangelog(6)
	dir := filepath.Join(root, "wh", "default.db", "t")
	// The job wrote its consumer file after it read snapshot 2, whatever
	// this machine's clock says (a file older than snapshot 2 reads as a
	// rollback).
	written := time.Date(2026, 11, 29, 10, 30, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "consumer", "consumer-job"), written, written); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		flags []string
		want  string // guarantee
		next  int64
		codes []string
	}{
		{"OptionsSayNotDecoupled", nil, "data-loss", 6, []string{"paimon.changelog-ignored"}},
		{"OptionOverrideDecouples", []string{"--paimon-option", "changelog.time-retained=7 d"}, "replay", 3, []string{"paimon.version-assumed", "paimon.consumer-lags-output"}},
		{"Paimon08ProducerNone", []string{"--paimon-option", "changelog.time-retained=7 d", "--paimon-version", "0.8"}, "data-loss", 6, []string{"paimon.changelog-ignored"}},
		{"Paimon08ProducerInput", []string{"--paimon-option", "changelog.time-retained=7 d", "--paimon-option", "changelog-producer=input", "--paimon-version", "0.8.2", "--paimon-written-mode", "at-least-once"}, "replay", 3, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"resolve", "--paimon-table", dir, "--paimon-consumer", "job", "--min-guarantee", "data-loss", "--json"}, tc.flags...)
			code, out, errs := runPaimonCLI(args...)
			if code != ExitOK {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			var doc struct {
				Chosen struct {
					Guarantee string `json:"guarantee"`
					Position  struct {
						NextSnapshot int64 `json:"next_snapshot"`
					} `json:"position"`
					Warnings []struct {
						Code string `json:"code"`
					} `json:"warnings"`
				} `json:"chosen"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Chosen.Guarantee != tc.want || doc.Chosen.Position.NextSnapshot != tc.next {
				t.Fatalf("got %s at %d, want %s at %d\n%s", doc.Chosen.Guarantee, doc.Chosen.Position.NextSnapshot, tc.want, tc.next, out)
			}
			if tc.want != "data-loss" {
				written := "exactly-once"
				if strings.Contains(strings.Join(tc.flags, " "), "--paimon-written-mode at-least-once") {
					written = "at-least-once"
				}
				if !strings.Contains(out, `"written_mode": "`+written+`"`) {
					t.Errorf("written mode is not %s:\n%s", written, out)
				}
			}
			for _, code := range tc.codes {
				if !strings.Contains(out, `"code": "`+code+`"`) {
					t.Errorf("no %s warning:\n%s", code, out)
				}
			}
		})
	}
}

// TestResetConsumerWithTMPDIROnAnotherFileSystem: reset-consumer --execute
// on a table on another file system than TMPDIR (a tmpfs) writes the
// consumer file (before: "invalid cross-device link", while the dry run
// passed), and leaves nothing in TMPDIR nor beside the file.
func TestResetConsumerWithTMPDIROnAnotherFileSystem(t *testing.T) {
	dir, _ := paimonDir(t, nil)
	shm, err := os.MkdirTemp("/dev/shm", "resumectl-tmpdir-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	var a, b syscall.Stat_t
	if syscall.Stat(dir, &a) != nil || syscall.Stat(shm, &b) != nil || a.Dev == b.Dev {
		t.Skip("/dev/shm is on the same file system as the table")
	}
	t.Setenv("TMPDIR", shm)
	code, out, errs := runPaimonCLI("paimon", "reset-consumer", dir, "--consumer", "new", "--next-snapshot", "8", "--execute", "--expect-previous", "none")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	got, err := os.ReadFile(filepath.Join(dir, "consumer", "consumer-new"))
	if err != nil || !strings.Contains(string(got), `"nextSnapshot" : 8`) {
		t.Errorf("consumer-new: %q, %v", got, err)
	}
	for _, d := range []string{shm, filepath.Join(dir, "consumer")} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if d == shm || !strings.HasPrefix(e.Name(), "consumer-") {
				t.Errorf("left in %s: %s", d, e.Name())
			}
		}
	}
}
