package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveKafkaPaimonPlan (issue 33 item 4), through the CLI on the
// real trees and compiled plans of conformance KP1 and KP1s (a Kafka→Paimon
// SQL job, Flink 1.20.3, Paimon 1.3.1): the unchanged job's plan chooses
// the job's own checkpoint, without sink.operator-uid.suffix (Paimon's
// Writer and Global Committer unknown: never dropped, which refused it
// with exit 5) and with it (every operator named); with the plan renaming
// the suffix the checkpoint does not restore (Paimon's Writer and Global
// Committer named, as Flink refuses it: "Cannot map checkpoint/savepoint
// state for operator …"), and the salvage left is data-loss (the Paimon
// committer's pending checkpoint): refused by the default policy, exit 4.
// The plans of conformance PS1 and PS1s (a job reading a Paimon table,
// without and with source.operator-uid.suffix, and the suffix renamed)
// choose the job's own checkpoint: Flink restored it with each.
func TestResolveKafkaPaimonPlan(t *testing.T) {
	for _, tc := range []struct {
		scenario, plan string
		code           int
		want           string
	}{
		{"KP1", "plan.json", ExitOK, "chk-6"},
		{"KP1s", "plan.json", ExitOK, "chk-6"},
		{"KP1s", "plan-suffix-v2.json", ExitRefused, "the new job has no operator for the state of f08a6c5a3f250fafc2ad59524abb5d47, a64c856c986c302258f72ab24048632c"},
		// a job reading a Paimon table (conformance PS1, PS1s): the planner's
		// <id>_source names the source whatever source.operator-uid.suffix says
		{"PS1", "plan.json", ExitOK, "chk-40"},
		{"PS1s", "plan.json", ExitOK, "chk-40"},
		{"PS1s", "plan-suffix-v2.json", ExitOK, "chk-40"},
	} {
		dir := filepath.Join(conformanceDir, tc.scenario)
		code, out, errs := runPaimonCLI("resolve", "--flink-checkpoints", filepath.Join(dir, "ck"), "--flink-plan", filepath.Join(dir, tc.plan),
			"--now", "2030-01-01T00:00:00Z")
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("%s %s: exit %d, want %d and %q\n%s%s", tc.scenario, tc.plan, code, tc.code, tc.want, out, errs)
		}
		if code == ExitOK && !strings.Contains(out, "exactly-once") {
			t.Errorf("%s %s: not exactly-once\n%s", tc.scenario, tc.plan, out)
		}
		if tc.scenario == "KP1" && (strings.Contains(out, "or say that the description names every operator") || !strings.Contains(out, "would call their state dropped")) {
			t.Errorf("KP1: the unknown operators' advice suggests --flink-all-uids for a plan that does not name Paimon's operators\n%s", out)
		}
	}
}

// TestResolvePaimonRestoreFailsOnce: KP2's real checkpoint (Flink 1.20.3,
// Paimon 1.3.1) holds a checkpoint's committables the sink table, as the
// crash left it, lacks: the restore stays exactly-once, and says with
// flink.paimon-restore-fails-once that Paimon's committer commits them and
// then fails the new job once on purpose (harness KP2 sets a restart
// strategy for it); a deploy gate can stop on the code. After the restore
// (table-restored) nothing is committed on restore: no warning.
func TestResolvePaimonRestoreFailsOnce(t *testing.T) {
	dir := filepath.Join(conformanceDir, "KP2")
	args := func(table string, more ...string) []string {
		return append([]string{"resolve", "--flink-checkpoints", filepath.Join(dir, "ck"), "--flink-plan", filepath.Join(dir, "plan.json"),
			"--paimon-sink-table", filepath.Join(dir, table), "--now", "2030-01-01T00:00:00Z"}, more...)
	}
	code, out, errs := runPaimonCLI(args("table/sink")...)
	if code != ExitOK || !strings.Contains(out, "exactly-once") || !strings.Contains(out, "flink.paimon-restore-fails-once") || !strings.Contains(out, "restart strategy") {
		t.Errorf("table as the crash left it: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs = runPaimonCLI(args("table/sink", "--fail-on-warning", "flink.paimon-restore-fails-once")...); code != ExitWarningRefused {
		t.Errorf("--fail-on-warning flink.paimon-restore-fails-once: exit %d, want %d\n%s%s", code, ExitWarningRefused, out, errs)
	}
	if code, out, errs = runPaimonCLI(args("table-restored/sink")...); code != ExitOK || strings.Contains(out, "flink.paimon-restore-fails-once") {
		t.Errorf("table after the restore: exit %d\n%s%s", code, out, errs)
	}
}
