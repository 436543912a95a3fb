package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/paimon/paimontest"
)

// TestResolvePaimonSinkTableFlag: --paimon-sink-table needs a Flink
// snapshot source (the committer state is in the snapshots), and a table
// that cannot be opened is an error naming it, never silently unchecked;
// with a table and a snapshot the resolve runs.
func TestResolvePaimonSinkTableFlag(t *testing.T) {
	_, errOut, code := runFlinkCLI(t, "resolve", "--kafka-brokers", "127.0.0.1:1", "--kafka-topic", "t", "--kafka-group", "g", "--paimon-sink-table", "/nowhere")
	if code != ExitUsage || !strings.Contains(errOut, "--paimon-sink-table needs --flink-checkpoints or --flink-savepoints") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	dir, b := tempBucket(t)
	tb := paimontest.New(t, b, "wh/db.db/sink")
	tb.SinkCommit("u", 7, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	b.Close()
	ck := t.TempDir()
	_, errOut, code = runFlinkCLI(t, "resolve", "--flink-checkpoints", ck, "--paimon-sink-table", filepath.Join(dir, "wh/db.db/sink"))
	if code != ExitNothing {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, errOut, code = runFlinkCLI(t, "resolve", "--flink-checkpoints", ck, "--paimon-sink-table", "/nowhere/at/all")
	if code == ExitOK || code == ExitNothing || !strings.Contains(errOut, "nowhere") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// TestResolvePaimonSinkTableOnRestore: --paimon-sink-table is asked on the
// restore path too. Real Flink's chk-2 (its Paimon committer holding
// checkpoint 2's committable) restored beside the real sink table: with
// the table as Paimon left it (identifier 2) the chosen restore's
// position.sinks say committed; with snapshot 2 gone, not-committed.
func TestResolvePaimonSinkTableOnRestore(t *testing.T) {
	const real = "../../../../paimon/testdata/paimon-sink-table/db.db/sink/"
	for _, tc := range []struct {
		snapshots []string
		verdict   string
	}{{[]string{"1", "2"}, "committed"}, {[]string{"1"}, "not-committed"}} {
		dir, b := tempBucket(t)
		put := func(key, file string) {
			data, err := os.ReadFile(filepath.FromSlash(file))
			if err != nil {
				t.Fatal(err)
			}
			if err := b.WriteAll(context.Background(), key, data, nil); err != nil {
				t.Fatal(err)
			}
		}
		put("ck/"+flinkTestJob+"/chk-2/_metadata", "../../../../flinkckpt/metadata/sinkstate/testdata/paimon-sink/chk-2/_metadata")
		put("wh/db.db/sink/schema/schema-0", real+"schema/schema-0")
		for _, s := range tc.snapshots {
			put("wh/db.db/sink/snapshot/snapshot-"+s, real+"snapshot/snapshot-"+s)
		}
		b.Close()
		out, errOut, code := runFlinkCLI(t, "resolve", "--flink-checkpoints", filepath.Join(dir, "ck"), "--paimon-sink-table", filepath.Join(dir, "wh/db.db/sink"), "--json")
		var d struct {
			Chosen *struct {
				Guarantee string `json:"guarantee"`
				Position  struct {
					Sinks []struct {
						Type        string `json:"type"`
						Verdict     string `json:"verdict"`
						PaimonTable *struct {
							Commit struct {
								Identifier int64 `json:"commit_identifier"`
							} `json:"commit"`
						} `json:"paimon_table"`
					} `json:"sinks"`
				} `json:"position"`
			} `json:"chosen"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil || code != ExitOK || d.Chosen == nil {
			t.Fatalf("%v: exit %d: %s\n%s", tc.snapshots, code, errOut, out)
		}
		s := d.Chosen.Position.Sinks
		if d.Chosen.Guarantee != "exactly-once" || len(s) != 1 || s[0].Type != "paimon" || s[0].Verdict != tc.verdict || s[0].PaimonTable == nil ||
			s[0].PaimonTable.Commit.Identifier != int64(len(tc.snapshots)) {
			t.Errorf("%v: %s", tc.snapshots, out)
		}
	}
}
