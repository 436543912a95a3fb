package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// conformanceDir is the frozen export of real Flink 1.20.3 trees.
var conformanceDir = filepath.Join("..", "..", "..", "..", "flinkckpt", "testdata", "conformance")

// exportTrees returns every checkpoint root and savepoint dir of the
// frozen export (<scenario>/ck, <scenario>/sp).
func exportTrees(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, kind := range []string{"ck", "sp"} {
		m, err := filepath.Glob(filepath.Join(conformanceDir, "*", kind))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < 10 {
		t.Fatalf("%d trees in the frozen export %s, want at least 10", len(out), conformanceDir)
	}
	return out
}

type listedSnap struct {
	Key    string `json:"key"`
	State  string `json:"state"`
	Reason string `json:"reason"`
}

type decisionDoc struct {
	Chosen *struct {
		Position struct {
			Key        string   `json:"key"`
			Verified   bool     `json:"verified"`
			ExtraRoots []string `json:"extra_roots"`
			Considered []struct {
				Key     string `json:"key"`
				Outcome string `json:"outcome"`
			} `json:"considered"`
		} `json:"position"`
		Warnings []struct {
			Code string `json:"code"`
		} `json:"warnings"`
	} `json:"chosen"`
}

func (d decisionDoc) hasWarning(code string) bool {
	if d.Chosen == nil {
		return false
	}
	for _, w := range d.Chosen.Warnings {
		if w.Code == code {
			return true
		}
	}
	return false
}

// listTree runs flink list --json over dir.
func listTree(t *testing.T, dir string, extra ...string) []listedSnap {
	t.Helper()
	out, errOut, code := run(t, append([]string{"flink", "list", "--json", dir}, extra...)...)
	if code != ExitOK {
		t.Fatalf("flink list %s: exit %d: %s", dir, code, errOut)
	}
	var snaps []listedSnap
	if err := json.Unmarshal([]byte(out), &snaps); err != nil {
		t.Fatalf("flink list %s: %v\n%s", dir, err, out)
	}
	return snaps
}

// resolveTree runs resolve --json over dir as a checkpoint root or a
// savepoint dir.
func resolveTree(t *testing.T, dir string, extra ...string) (decisionDoc, int, string) {
	t.Helper()
	flag := "--flink-checkpoints"
	if filepath.Base(dir) == "sp" {
		flag = "--flink-savepoints"
	}
	out, errOut, code := run(t, append([]string{"resolve", flag, dir, "--json", "--now", "2026-12-02T08:00:00Z"}, extra...)...)
	var d decisionDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("resolve %s: exit %d, %v\n%s\n%s", dir, code, err, out, errOut)
	}
	return d, code, errOut
}

// TestOneVerdictOverTheFrozenExport: flink list, flink inspect and resolve
// give every snapshot of every tree real Flink wrote the same verdict
// (issue 30 item 1, issue 33 item 3): inspect's state is list's; each
// snapshot resolve chose or considered has the outcome list's state
// implies; when resolve chose nothing, its exit status is what the states
// imply (4 when the only snapshots with _metadata are broken, 1 when
// unverified ones were refused); --flink-allow-unverified chooses an
// unverified one with its warning.
func TestOneVerdictOverTheFrozenExport(t *testing.T) {
	for _, dir := range exportTrees(t) {
		name, _ := filepath.Rel(conformanceDir, dir)
		t.Run(strings.ReplaceAll(name, string(filepath.Separator), "_"), func(t *testing.T) {
			snaps := listTree(t, dir)
			state := map[string]string{}
			count := map[string]int{}
			for _, s := range snaps {
				state[s.Key] = s.State
				count[s.State]++
				if s.State == "incomplete" {
					continue
				}
				out, errOut, code := run(t, "flink", "inspect", "--json", filepath.Join(dir, filepath.FromSlash(s.Key)))
				var doc struct {
					State string `json:"state"`
				}
				if err := json.Unmarshal([]byte(out), &doc); err != nil {
					t.Fatalf("inspect %s: exit %d %v: %s", s.Key, code, err, errOut)
				}
				if doc.State != s.State {
					t.Errorf("%s: list says %s, inspect says %s", s.Key, s.State, doc.State)
				}
				if wantCode := map[bool]int{true: ExitFailed, false: ExitOK}[s.State == "broken"]; code != wantCode {
					t.Errorf("%s (%s): inspect exit %d, want %d: %s", s.Key, s.State, code, wantCode, errOut)
				}
			}
			d, code, errOut := resolveTree(t, dir)
			switch {
			case d.Chosen != nil:
				if st := state[d.Chosen.Position.Key]; st != "complete" {
					t.Errorf("resolve chose %s, which list calls %s", d.Chosen.Position.Key, st)
				}
				for _, c := range d.Chosen.Position.Considered {
					want := map[string]string{"incomplete": "incomplete", "broken": "broken", "unverified": "unverified"}[c.Outcome]
					if want == "" {
						want = "complete" // ranked below, refused for the intent, incompatible
					}
					if st := state[c.Key]; st != want {
						t.Errorf("resolve: %s %s, list: %s", c.Key, c.Outcome, st)
					}
				}
			case count["complete"] > 0:
				t.Errorf("resolve chose nothing (exit %d: %s) though list calls %d complete", code, errOut, count["complete"])
			case count["unverified"] > 0:
				if code != ExitFailed {
					t.Errorf("unverified only: resolve exit %d, want %d: %s", code, ExitFailed, errOut)
				}
				d, code, errOut := resolveTree(t, dir, "--flink-allow-unverified")
				if code != ExitOK || d.Chosen == nil || state[d.Chosen.Position.Key] != "unverified" ||
					d.Chosen.Position.Verified || !d.hasWarning("flink.unverified-references") {
					t.Errorf("--flink-allow-unverified: exit %d, %+v: %s", code, d.Chosen, errOut)
				}
			case count["broken"] > 0:
				if code != ExitRefused {
					t.Errorf("broken only: resolve exit %d, want %d: %s", code, ExitRefused, errOut)
				}
			}
		})
	}
}

// TestCopiedTreeOutsideItsRoot: real Flink trees copied from where Flink
// wrote them (the export's F2: its incremental checkpoints reference
// shared/ files at the harness's work dir) are unverified in every
// command, never broken; refused by default (exit 1), chosen with
// --flink-allow-unverified and its warning. With --flink-extra-root
// OLD=NEW mapping the old place to the copy every reference is checked:
// chk-4, whose shared file the scenario deleted (Flink's own HA recovery
// failed on it), is broken, chk-3 complete and chosen, and the decision
// records the extra root.
func TestCopiedTreeOutsideItsRoot(t *testing.T) {
	dir := filepath.Join(conformanceDir, "F2", "ck")
	snaps := listTree(t, dir)
	if len(snaps) != 3 {
		t.Fatalf("list: %+v", snaps)
	}
	for _, s := range snaps {
		if s.State != "unverified" || !strings.Contains(s.Reason, "contradicts its references") {
			t.Errorf("list: %+v", s)
		}
	}
	if _, code, _ := resolveTree(t, dir); code != ExitFailed {
		t.Errorf("resolve: exit %d, want %d", code, ExitFailed)
	}
	d, code, errOut := resolveTree(t, dir, "--flink-allow-unverified")
	if code != ExitOK || d.Chosen == nil || !d.hasWarning("flink.unverified-references") {
		t.Fatalf("--flink-allow-unverified: exit %d: %s", code, errOut)
	}
	// Where Flink wrote it: the root its references name.
	old := "file:///work/wt-ha/conformance/harness/target/work/F2/ck/"
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	mapped := "--flink-extra-root=" + old + "=" + abs
	want := map[string]string{"chk-4": "broken", "chk-3": "complete", "chk-2": "complete"}
	for _, s := range listTree(t, dir, mapped) {
		if w := want[strings.TrimSuffix(s.Key[strings.Index(s.Key, "/")+1:], "/")]; s.State != w {
			t.Errorf("list with the extra root: %s %s, want %s (%s)", s.Key, s.State, w, s.Reason)
		}
	}
	d, code, errOut = resolveTree(t, dir, mapped)
	if code != ExitOK || d.Chosen == nil || !strings.HasSuffix(d.Chosen.Position.Key, "/chk-3/") || !d.Chosen.Position.Verified ||
		d.hasWarning("flink.unverified-references") || len(d.Chosen.Position.ExtraRoots) != 1 || d.Chosen.Position.ExtraRoots[0] != old {
		t.Fatalf("resolve with the extra root: exit %d, %+v: %s", code, d.Chosen, errOut)
	}
}

// TestRootOneLevelTooHigh: the export's F1 given instead of its checkpoint
// root F1/ck — nothing at that level, Flink's layout below it — is no
// first deploy (exit 3): resolve and flink list say where, exit 1.
func TestRootOneLevelTooHigh(t *testing.T) {
	dir := filepath.Join(conformanceDir, "F1")
	if _, err := os.Stat(filepath.Join(dir, "ck")); err != nil {
		t.Fatal(err)
	}
	_, code, errOut := resolveTree(t, dir)
	if code != ExitFailed || !strings.Contains(errOut, "one level below it") || !strings.Contains(errOut, filepath.Join("F1", "ck")) {
		t.Errorf("resolve: exit %d, want %d naming F1/ck: %s", code, ExitFailed, errOut)
	}
	_, errOut, listCode := run(t, "flink", "list", dir)
	if listCode != ExitFailed || !strings.Contains(errOut, "one level below it") {
		t.Errorf("flink list: exit %d: %s", listCode, errOut)
	}
	// A dir with neither snapshots nor Flink's layout below stays
	// "nothing to restore".
	empty := t.TempDir()
	if err := os.MkdirAll(filepath.Join(empty, "other", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(empty, "other", "dir", "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, code, errOut := resolveTree(t, empty); code != ExitNothing {
		t.Errorf("no layout below: exit %d, want %d: %s", code, ExitNothing, errOut)
	}
}
