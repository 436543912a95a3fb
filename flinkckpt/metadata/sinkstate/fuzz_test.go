package sinkstate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/opstate"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
)

// collectorSeeds are collectors of every serializer version, and one of
// real Flink 1.20.3 bytes (K1 chk-8, subtask 0's element payload).
func collectorSeeds() []struct {
	version int32
	data    []byte
} {
	reqs := []request{{committable: []byte("txn-a")}, {committable: []byte("txn-b"), retries: 1, state: 1}, {committable: []byte("c"), state: 2}, {committable: []byte("d"), state: 3}}
	out := []struct {
		version int32
		data    []byte
	}{
		{2, collectorV2(1, 1)},
		{1, collectorV1()},
		{1, collectorV1([]byte("3"), []byte("four"))},
		// Real: K1 chk-8 committer subtask 0 (Flink 1.20.3: one pending
		// committable of checkpoint 8, a JournalSink transaction of 235
		// records).
		{2, realK1Element()},
	}
	for cv := int32(0); cv <= 1; cv++ {
		for sv := int32(0); sv <= 2; sv++ {
			out = append(out, struct {
				version int32
				data    []byte
			}{2, collectorV2(cv, sv,
				checkpoint{id: 5, writerSubtasks: 2, writers: []writer{{subtask: 0, requests: reqs, committables: 4, drained: 1, failed: 1}, {subtask: 1}}},
				checkpoint{id: sinkstate.EndOfInput, writers: []writer{{requests: reqs[:1], committables: 1}}})})
		}
	}
	return out
}

// realK1Element is the payload of K1 chk-8's committer subtask 0 element,
// read from the frozen real export.
func realK1Element() []byte {
	root := filepath.Join(conformance, "K1", "ck/6829f7f7f0d64f47f1eb61376ce586d8/chk-8")
	data, err := os.ReadFile(filepath.Join(root, "_metadata"))
	if err != nil {
		panic(err)
	}
	cp, err := metadata.Parse(data, nil)
	if err != nil {
		panic(err)
	}
	for _, op := range cp.Operators {
		for _, sub := range op.SubtaskStates {
			if h := sub.ManagedOperator; h != nil && sub.Index == 0 {
				for _, st := range h.States {
					if st.Name != sinkstate.CommitterStateName {
						continue
					}
					stream, err := os.ReadFile(filepath.Join(root, h.Stream.Path))
					if err != nil {
						panic(err)
					}
					el, err := opstate.ReadListElements(stream, st.Name, st.Offsets, 0, 0)
					if err != nil || len(el) != 1 || el[0].Version != 2 {
						panic(fmt.Sprintf("K1 committer element: %v", err))
					}
					return el[0].Data
				}
			}
		}
	}
	panic("K1 chk-8: no committer state of subtask 0")
}

// FuzzCollector: no input panics or allocates beyond its size; what
// decodes has counts its bytes can hold (a request takes at least 20
// bytes, a writer subtask 16, a checkpoint 16).
func FuzzCollector(f *testing.F) {
	for _, s := range collectorSeeds() {
		f.Add(s.version, s.data)
	}
	f.Fuzz(func(t *testing.T, version int32, data []byte) {
		s, err := sinkstate.ParseCollector(version, data)
		if err != nil {
			return
		}
		requests, writers := 0, 0
		for _, cp := range s.Checkpoints {
			if cp.Pending < 0 || cp.Committed < 0 || cp.Failed < 0 || cp.Drained < 0 || cp.WriterSubtasks < 0 || cp.CheckpointID < 0 {
				t.Fatalf("negative count in %+v", cp)
			}
			if cp.Legacy {
				requests += cp.Pending // at least 4 bytes each
				continue
			}
			requests += 5 * (cp.Pending + cp.Committed + cp.Failed)
			writers += cp.Writers
		}
		if 4*requests+16*writers+16*len(s.Checkpoints) > len(data)+16 {
			t.Fatalf("%d requests (x5), %d writers, %d checkpoints from %d bytes", requests, writers, len(s.Checkpoints), len(data))
		}
		c := sinkstate.Committer{Subtasks: []sinkstate.Subtask{s}}
		n := 0
		for _, p := range c.Pending() {
			if p.Committables <= 0 {
				t.Fatalf("pending %+v", p)
			}
			n += p.Committables
		}
		if n != c.PendingCommittables() {
			t.Fatalf("pending %d != %d", n, c.PendingCommittables())
		}
	})
}

// FuzzDecode: a whole _metadata with committer state; Decode never panics.
func FuzzDecode(f *testing.F) {
	for _, s := range collectorSeeds() {
		f.Add(metadataSeed(s.version, s.data))
	}
	for _, s := range paimonSeeds() {
		f.Add(paimonMetadataSeed(s.version, s.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cp, err := metadata.Parse(data, nil)
		if err != nil {
			return
		}
		st, _ := sinkstate.Decode(cp, &sinkstate.Options{MaxStreamSize: 1 << 20})
		for _, c := range st.Committers {
			_ = c.Pending()
		}
	})
}

// metadataSeed is a _metadata holding one committer whose one element is
// the collector.
func metadataSeed(version int32, payload []byte) []byte {
	s := flinkckpttest.Source{UID: "Sink Committer: s", ListStates: []flinkckpttest.ListState{{
		Name: sinkstate.CommitterStateName, Elements: []flinkckpttest.ListElement{{Data: element(version, payload)}}}}}
	md := &metadata.Checkpoint{Version: 4, CheckpointID: 5}
	op, _ := s.Operator(md.Version, nil)
	md.Operators = append(md.Operators, op)
	data, err := flinkckpttest.Encode(md)
	if err != nil {
		panic(err)
	}
	return data
}

var writeSeeds = os.Getenv("SINKSTATE_WRITE_SEEDS") != ""

func fuzzBytes(b []byte) string { return fmt.Sprintf("[]byte(%s)", strconv.Quote(string(b))) }

// TestFuzzSeedCorpus keeps testdata/fuzz/<target>/ in step with the seeds
// above (SINKSTATE_WRITE_SEEDS=1 rewrites them).
func TestFuzzSeedCorpus(t *testing.T) {
	corpus := map[string][]string{}
	for _, s := range collectorSeeds() {
		corpus["FuzzCollector"] = append(corpus["FuzzCollector"], fmt.Sprintf("int32(%d)\n%s", s.version, fuzzBytes(s.data)))
		corpus["FuzzDecode"] = append(corpus["FuzzDecode"], fuzzBytes(metadataSeed(s.version, s.data)))
	}
	paimonCorpus(corpus)
	for target, seeds := range corpus {
		for i, s := range seeds {
			want := "go test fuzz v1\n" + s + "\n"
			path := filepath.Join("testdata", "fuzz", target, fmt.Sprintf("seed-%02d", i))
			if writeSeeds {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("%s is stale (run with SINKSTATE_WRITE_SEEDS=1)", path)
			}
		}
	}
}
