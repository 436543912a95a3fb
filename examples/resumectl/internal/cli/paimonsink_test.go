package cli

import (
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
