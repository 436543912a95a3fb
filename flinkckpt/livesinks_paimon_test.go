package flinkckpt_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// kp2 is conformance KP2's export (testdata/<line>/KP2): real Flink
// 1.20.3 (line conformance, Paimon 1.3.1) or 2.2.0 (conformance-2.x,
// paimon-flink-2.1 1.3.0) ran a Kafka→Paimon SQL job from its compiled
// plan and crashed it between the KafkaSource's notification of checkpoint
// N (the group's offsets committed) and its Paimon committer's (the crash
// point halted the JVM as Paimon was about to write N's snapshot file).
// table/ is the sink table's schema and snapshots as the crash left them
// (the commit user's latest commitIdentifier below N); table-restored/ the
// same table after Flink restored chk-N (Paimon re-committed N).
func kp2(t *testing.T, line string) (dir string, root string) {
	t.Helper()
	dir = filepath.Join("testdata", line, "KP2")
	raw, err := os.ReadFile(filepath.Join(dir, "facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Root string `json:"root"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return dir, strings.TrimSuffix(f.Root, "/")
}

// TestRestorePaimonSinkAskedOfTheTable: the restore of KP2's checkpoint
// holds Paimon committables of checkpoint N. A restore re-commits what the
// table lacks, so the candidate stays exactly-once either way; what the
// table says decides the chain (a start elsewhere at or above the
// snapshot's source positions, e.g. the group's offsets, loses N's rows
// unless the table has them). The table as the crash left it: not
// committed, pending. The table after the restore: committed, nothing
// pending. No table: pending. Asserted
// (SinkCommitted): nothing pending.
func TestRestorePaimonSinkAskedOfTheTable(t *testing.T) {
	// the commit user of each line's run (its snapshots name it)
	for line, user := range map[string]string{"conformance": "27c616b8-a891-43f6-9c6e-309fcc358e89", "conformance-2.x": "d816c23e-df4a-487b-a38c-b85d064850bb"} {
		t.Run(line, func(t *testing.T) { restorePaimonSinkAskedOfTheTable(t, line, user) })
	}
}

func restorePaimonSinkAskedOfTheTable(t *testing.T, line, user string) {
	dir, root := kp2(t, line)
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	for _, tc := range []struct {
		name, table string
		asserted    bool
		verdict     string
		pending     string // in SinkPending; "" for none
		code        string
	}{
		{"crash left it", "table/sink", false, "not-committed", "(not-committed)", flinkckpt.WarnPaimonRestoreFailsOnce},
		{"after the restore", "table-restored/sink", false, "committed", "", ""},
		{"no table", "", false, "", "paimon sink committer", ""},
		{"asserted", "table/sink", true, "", "", flinkckpt.WarnSinkCommittedAsserted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live := &livecheck.Checkers{}
			var rec *blobtest.Recorder
			if tc.table != "" {
				wb, r := blobtest.Wrap(b, nil)
				rec = r
				tbl, err := paimon.NewTable(wb, tc.table, nil)
				if err != nil {
					t.Fatal(err)
				}
				live.PaimonSink = tbl
			}
			r, err := flinkckpt.NewResolver(b, "ck/", &flinkckpt.Options{FlinkRoot: root + "/ck", Live: live, SinkCommitted: tc.asserted})
			if err != nil {
				t.Fatal(err)
			}
			c, err := r.Resolve(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if c.Guarantee != resume.ExactlyOnce {
				t.Errorf("guarantee %s: a restore commits what the table lacks", c.Guarantee)
			}
			sinks := sinksOf(t, c)
			if len(sinks) != 1 || sinks[0].Type != flinkckpt.SinkTypePaimon || len(sinks[0].Pending) == 0 {
				t.Fatalf("sinks %+v", sinks)
			}
			s := sinks[0]
			if s.Verdict != tc.verdict || s.Checked != (tc.verdict != "") || s.CommittedAsserted != tc.asserted {
				t.Errorf("verdict %q checked %v asserted %v, want %q", s.Verdict, s.Checked, s.CommittedAsserted, tc.verdict)
			}
			if tc.verdict != "" && (s.PaimonTable == nil || s.PaimonTable.Commit.CommitUser != user) {
				t.Errorf("paimon table %+v", s.PaimonTable)
			}
			p, err := flinkckpt.PositionOf(c.Position)
			if err != nil {
				t.Fatal(err)
			}
			got := p.SinkPending()
			if (tc.pending == "") != (got == "") || !strings.Contains(strings.ToLower(got), strings.ToLower(tc.pending)) {
				t.Errorf("SinkPending %q, want %q", got, tc.pending)
			}
			if tc.code != "" && !hasWarning(c.Warnings, tc.code, "") {
				t.Errorf("no %s warning: %v", tc.code, c.Warnings)
			}
			// only a restore that commits fails the new job once (Paimon's
			// RestoreAndFailCommittableStateManager): said with its restart need
			if fails := hasWarning(c.Warnings, flinkckpt.WarnPaimonRestoreFailsOnce, "needs a restart strategy"); fails != (tc.verdict == "not-committed") {
				t.Errorf("%s warning %v, want it iff the table lacks the checkpoint: %v", flinkckpt.WarnPaimonRestoreFailsOnce, fails, c.Warnings)
			}
			if rec != nil && !tc.asserted && rec.Count(blobtest.OpList) != 1 {
				t.Errorf("the table cost %s, want one listing", rec)
			}
		})
	}
}
