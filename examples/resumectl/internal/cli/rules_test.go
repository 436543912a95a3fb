package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/examples/internal/scenario"
)

// TestK8sPrintsNothingWhenAnotherSourceFailed: the checkpoint is chosen
// (a failed Paimon source could have offered exact-input at best, so it
// blocks nothing), but a source failed. That is exit 0 with the coded
// warning chain.source-failed (issue 23's exit codes: 1 means nothing was
// chosen), so the patch carries the warning in its annotations; a gate that
// must not deploy past any failure says --fail-on-warning
// chain.source-failed, exits 7, and --format k8s prints no patch, since
// scripts apply whatever stdout holds.
func TestK8sPrintsNothingWhenAnotherSourceFailed(t *testing.T) {
	dir, b := tempBucket(t)
	env := &scenario.Env{Bucket: b, Root: "file://" + filepath.ToSlash(dir) + "/", Touch: func(key string, at time.Time) error {
		return os.Chtimes(filepath.Join(dir, filepath.FromSlash(key)), at, at)
	}}
	if _, err := scenario.BuildFlink(env, ""); err != nil {
		t.Fatal(err)
	}
	table, _ := paimonDir(t, nil)
	if err := os.WriteFile(filepath.Join(table, "consumer", "consumer-job"), []byte("{\"nextSnapshot\": "), 0o644); err != nil {
		t.Fatal(err)
	}
	ck := filepath.Join(dir, "checkpoints")
	now := "--now=2026-11-29T12:00:00Z"

	code, out, errs := runPaimonCLI("resolve", "--flink-checkpoints", ck, now, "--format", "k8s")
	if code != ExitOK || !strings.Contains(out, "savepointRedeployNonce") || strings.Contains(out, "chain.source-failed") {
		t.Fatalf("checkpoint alone: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}

	code, out, errs = runPaimonCLI("resolve", "--flink-checkpoints", ck, "--paimon-table", table, "--paimon-consumer", "job", now)
	if code != ExitOK || !strings.Contains(out, "CHOSEN  flink-checkpoints") || !strings.Contains(out, "[chain.source-failed]") {
		t.Fatalf("text report: exit %d, want %d with the checkpoint chosen and the failure warned of\nstdout %s\nstderr %s", code, ExitOK, out, errs)
	}
	code, out, errs = runPaimonCLI("resolve", "--flink-checkpoints", ck, "--paimon-table", table, "--paimon-consumer", "job", now, "--format", "k8s")
	if code != ExitOK || !strings.Contains(out, "savepointRedeployNonce") || !strings.Contains(out, "chain.source-failed") || !strings.Contains(errs, "consumer-job") {
		t.Errorf("k8s with a failed source: exit %d, want %d with the warning annotated\nstdout %s\nstderr %s", code, ExitOK, out, errs)
	}
	code, out, errs = runPaimonCLI("resolve", "--flink-checkpoints", ck, "--paimon-table", table, "--paimon-consumer", "job", now, "--format", "k8s", "--fail-on-warning", "chain.source-failed")
	if code != ExitWarningRefused || out != "" || !strings.Contains(errs, "consumer-job") {
		t.Errorf("k8s with a failed source and --fail-on-warning: exit %d, want %d, stdout %q (want empty), stderr %s", code, ExitWarningRefused, out, errs)
	}
}

// TestExpectPreviousNoneNeverOverwrites: --expect-previous none says the
// dry run found no consumer file; when one exists at --execute time (another
// job bound the id meanwhile) nothing is written, exit 1; for an id without
// a file the write goes through.
func TestExpectPreviousNoneNeverOverwrites(t *testing.T) {
	dir, _ := paimonDir(t, nil)
	key := filepath.Join(dir, "consumer", "consumer-job")
	before, err := os.ReadFile(key)
	if err != nil {
		t.Fatal(err)
	}
	for _, force := range []bool{false, true} {
		args := []string{"paimon", "reset-consumer", dir, "--consumer", "job", "--next-snapshot", "8", "--execute", "--expect-previous", "none"}
		if force {
			args = append(args, "--force")
		} else {
			// Outside the quiet period, so only the expectation can refuse.
			old := time.Now().Add(-time.Hour)
			if err := os.Chtimes(key, old, old); err != nil {
				t.Fatal(err)
			}
		}
		code, out, errs := runPaimonCLI(args...)
		if code != ExitFailed || !strings.Contains(errs, "expected no consumer file, found nextSnapshot 6") {
			t.Errorf("force %v: exit %d\nstdout %s\nstderr %s", force, code, out, errs)
		}
		if after, err := os.ReadFile(key); err != nil || string(after) != string(before) {
			t.Errorf("force %v: consumer file %q, want %q unchanged (%v)", force, after, before, err)
		}
	}
	code, _, errs := runPaimonCLI("paimon", "reset-consumer", dir, "--consumer", "fresh", "--next-snapshot", "8", "--execute", "--expect-previous", "none")
	if data, err := os.ReadFile(filepath.Join(dir, "consumer", "consumer-fresh")); code != 0 || err != nil || !strings.Contains(string(data), "8") {
		t.Errorf("absent consumer: exit %d, file %q %v\n%s", code, data, err, errs)
	}
}
