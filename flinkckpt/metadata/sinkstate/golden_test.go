package sinkstate_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/internal/fixtures"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/opstate"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
)

// conformance is the frozen export of real Flink 1.20.3 trees
// (flinkckpt/testdata/conformance): scenario dir, then the Flink root its
// _metadata files name.
const conformance = "../../testdata/conformance"

// decodeDir decodes the _metadata of the snapshot dir dir (under root, the
// scenario's dir on disk whose Flink URI is flinkRoot), reading state
// files from disk.
func decodeDir(t *testing.T, root, flinkRoot, dir string) (*sinkstate.State, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, dir, "_metadata"))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := metadata.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	read := func(h *metadata.StreamHandle) ([]byte, error) {
		if h.Type == metadata.TypeRelativeFile {
			return os.ReadFile(filepath.Join(root, dir, h.Path))
		}
		p := strings.TrimPrefix(strings.Replace(h.Path, "file:///", "file:/", 1), strings.Replace(flinkRoot, "file:///", "file:/", 1))
		if p == h.Path {
			return nil, fmt.Errorf("%s is not under %s", h.Path, flinkRoot)
		}
		return os.ReadFile(filepath.Join(root, p))
	}
	return sinkstate.Decode(cp, &sinkstate.Options{ReadStream: read})
}

// Real Flink 1.20.3 committer state (a two-phase Sink V2 JournalSink,
// parallelism 2, committer uid "Sink Committer: sink"): collector v2,
// checkpoint serializer v1 (with the writer subtask count), subtask
// serializer v1. Each committer subtask holds the one committable its
// writer subtask prepared at the snapshot's own checkpoint, not committed
// yet (a committer commits on notifyCheckpointComplete, after the
// snapshot): what a restore commits and a stateless start loses.
func TestGoldenFlink120(t *testing.T) {
	const committer = "5abb6f104479fbc38acf37f2d04fd907" // OperatorID("Sink Committer: sink")
	for _, tc := range []struct {
		scenario, dir string
		id            int64
	}{
		{"K1", "ck/6829f7f7f0d64f47f1eb61376ce586d8/chk-8", 8},
		{"F1", "ck/ee36559a4d4654a860e7d242ced63e9b/chk-3", 3},
		{"F6", "ck/6cc089580c8ebef0ecb7f005832da5b2/chk-8", 8},
		{"F6", "sp/savepoint-6cc089-8b2a70e8207c", 6},
		{"F6s", "sp/savepoint-3ce641-6f1a07e53b19", 6},
		{"C1", "sp/savepoint-90f2fd-e2f23911bd76", 3},
	} {
		t.Run(tc.scenario+"/"+tc.dir, func(t *testing.T) {
			root := filepath.Join(conformance, tc.scenario)
			st, err := decodeDir(t, root, "file:///work/wt-conf/conformance/harness/target/work/"+tc.scenario+"/", tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Committers) != 1 {
				t.Fatalf("committers %+v", st.Committers)
			}
			c := st.Committers[0]
			if c.OperatorID != committer || c.Format != sinkstate.FormatCollector || c.Elements != 2 || c.Err != nil {
				t.Errorf("committer %+v", c)
			}
			var want []sinkstate.Subtask
			for i := range int32(2) {
				want = append(want, sinkstate.Subtask{Subtask: i, Version: 2, Checkpoints: []sinkstate.Checkpoint{
					{CheckpointID: tc.id, WriterSubtasks: 2, Writers: 1, Pending: 1, Other: 1}}})
			}
			if d := cmp.Diff(want, c.Subtasks); d != "" {
				t.Errorf("subtasks (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]sinkstate.Pending{{CheckpointID: tc.id, Committables: 2, Other: 2}}, c.Pending()); d != "" || c.PendingCommittables() != 2 {
				t.Errorf("pending (-want +got):\n%s", d)
			}
		})
	}
}

// K4's chk-5 as exported: committer subtask 0's collector lists checkpoint
// 5 with no committable (its writer had nothing to commit), subtask 1's
// state file (14935 bytes, over the export's 4 KiB) was zero-filled by the
// export: decoded as far as it goes, the zeros reported as malformed,
// never read as "nothing pending".
func TestGoldenK4ZeroFilled(t *testing.T) {
	root := filepath.Join(conformance, "K4")
	st, err := decodeDir(t, root, "file:///work/wt-conf/conformance/harness/target/work/K4/", "ck/d511dcf32be4a9364d147255ce425704/chk-5")
	if !errors.Is(err, sinkstate.ErrMalformed) || !errors.Is(err, opstate.ErrMalformed) || !strings.Contains(err.Error(), "subtask 1") ||
		!strings.Contains(err.Error(), "proxy version 0") {
		t.Fatalf("err %v", err)
	}
	c := st.Committers[0]
	want := []sinkstate.Subtask{{Subtask: 0, Version: 2, Checkpoints: []sinkstate.Checkpoint{{CheckpointID: 5, WriterSubtasks: 2, Writers: 1}}}}
	if d := cmp.Diff(want, c.Subtasks); d != "" || c.Err == nil || len(c.Pending()) != 0 {
		t.Errorf("subtasks (-want +got):\n%s\nerr %v", d, c.Err)
	}
}

// Flink's own unified-sink migration savepoint (Flink 1.14, Sink V1,
// shared fixtures): two committer operators, each holding one committable
// in the StreamingCommitterState format Flink 1.15+ reads as collector
// version 1, without a checkpoint id.
func TestGoldenFlink114UnifiedSink(t *testing.T) {
	dir := fixtures.Dir(t)
	st, err := decodeDir(t, filepath.Join(dir, "v3-unified-sink"), "", "savepoint-7bd90b-3a2cda6957cb")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range st.Committers {
		got = append(got, fmt.Sprintf("%s %s %d %+v", c.OperatorID, c.Format, c.Elements, c.Pending()))
	}
	want := []string{
		"4823ae75213a57b57c5ccbb78b9cbe49 committable-collector 1 [{CheckpointID:0 Legacy:true Committables:1 Kafka:[] Other:1}]",
		"709a96cf35a587d849796342cfd36979 committable-collector 1 [{CheckpointID:0 Legacy:true Committables:1 Kafka:[] Other:1}]",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// The checkpoint serializer versions 0 and 1 and subtask serializer
// versions 0 to 2 (Flink 1.15–1.19, 1.20, 2.x) decode alike; request
// states are counted by kind.
func TestCollectorVersions(t *testing.T) {
	reqs := []request{{committable: []byte("a")}, {committable: []byte("b"), retries: 2, state: 1}, {committable: []byte("c"), state: 2}, {committable: []byte("d"), state: 3}}
	for cv := int32(0); cv <= 1; cv++ {
		for sv := int32(0); sv <= 2; sv++ {
			t.Run(fmt.Sprintf("checkpoint-v%d/subtask-v%d", cv, sv), func(t *testing.T) {
				data := collectorV2(cv, sv,
					checkpoint{id: 7, writerSubtasks: 3, writers: []writer{{subtask: 1, requests: reqs, committables: 4, drained: 5, failed: 1}, {subtask: 2}}},
					checkpoint{id: sinkstate.EndOfInput, writerSubtasks: 3, writers: []writer{{requests: reqs[:1], committables: 1}}})
				got, err := sinkstate.ParseCollector(2, data)
				if err != nil {
					t.Fatal(err)
				}
				ws, drained := int32(0), 0
				if cv == 1 {
					ws = 3
				}
				if sv < 2 {
					drained = 5
				}
				want := sinkstate.Subtask{Version: 2, Checkpoints: []sinkstate.Checkpoint{
					{CheckpointID: 7, WriterSubtasks: ws, Writers: 2, Pending: 2, Committed: 1, Failed: 1, Drained: drained, Other: 2},
					{CheckpointID: sinkstate.EndOfInput, WriterSubtasks: ws, Writers: 1, Pending: 1, Other: 1}}}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("(-want +got):\n%s", d)
				}
			})
		}
	}
	// An empty collector: nothing pending.
	c := sinkstate.Committer{}
	s, err := sinkstate.ParseCollector(2, collectorV2(1, 1))
	c.Subtasks = append(c.Subtasks, s)
	if err != nil || len(s.Checkpoints) != 0 || len(c.Pending()) != 0 {
		t.Errorf("empty: %+v %v", s, err)
	}
	// Pending sums over subtasks and sorts by checkpoint id.
	a, _ := sinkstate.ParseCollector(2, collectorV2(1, 1, checkpoint{id: 9, writers: []writer{{requests: reqs[:1]}}}, checkpoint{id: 4, writers: []writer{{requests: reqs[:2]}}}))
	b, _ := sinkstate.ParseCollector(2, collectorV2(1, 1, checkpoint{id: 9, writers: []writer{{requests: reqs[:2]}}}))
	c.Subtasks = []sinkstate.Subtask{a, b}
	if d := cmp.Diff([]sinkstate.Pending{{CheckpointID: 4, Committables: 2, Other: 2}, {CheckpointID: 9, Committables: 3, Other: 3}}, c.Pending()); d != "" || c.PendingCommittables() != 5 {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// Real Flink 1.20.3 committer state written with snapshot compression on
// (conformance K5: execution.checkpointing.snapshot-compression, every
// state in a file): the committer's list state is Snappy-framed, and it
// decodes to the same collector as without compression: the committables
// prepared at the snapshot's own checkpoint (one per writer subtask that
// had output), not committed yet.
func TestGoldenFlink120SnappyCompressed(t *testing.T) {
	root := filepath.Join(conformance, "K5")
	facts, err := os.ReadFile(filepath.Join(root, "facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Root   string `json:"root"`
		Result struct {
			Flink struct {
				Offsets struct {
					Dir string `json:"dir"`
				} `json:"source_offsets_from_output"`
			} `json:"flink"`
		} `json:"result"`
	}
	if err := json.Unmarshal(facts, &f); err != nil {
		t.Fatal(err)
	}
	dir := f.Result.Flink.Offsets.Dir
	id, err := strconv.ParseInt(dir[strings.LastIndex(dir, "chk-")+4:], 10, 64)
	if err != nil {
		t.Fatalf("facts.json: newest checkpoint %q: %v", dir, err)
	}
	// The tree really is compressed: Flink's Snappy framing ("sNaPpY")
	// opens the operator state files.
	files, err := os.ReadDir(filepath.Join(root, dir))
	if err != nil {
		t.Fatal(err)
	}
	framed := 0
	for _, e := range files {
		b, err := os.ReadFile(filepath.Join(root, dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "sNaPpY") {
			framed++
		}
	}
	if framed == 0 {
		t.Fatalf("%s: no Snappy-framed state file: not a compressed snapshot", dir)
	}
	st, err := decodeDir(t, root, f.Root, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Committers) != 1 || st.Committers[0].Err != nil || st.Committers[0].Format != sinkstate.FormatCollector {
		t.Fatalf("committers %+v", st.Committers)
	}
	p := st.Committers[0].Pending()
	if len(p) != 1 || p[0].CheckpointID != id || p[0].Committables < 1 || p[0].Committables > 2 {
		t.Errorf("pending %+v, want the committables of checkpoint %d (one per writer subtask with output)", p, id)
	}
}
