package sinkstate_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/opstate"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
)

// paimonSinkDir holds two checkpoints real Flink 1.20.3 wrote for a Flink
// SQL job (datagen → INSERT INTO a Paimon 1.3.1 primary-key table,
// parallelism 1, hashmap backend, every state inline): chk-1 and chk-2.
// Each holds Paimon's committer ("Global Committer : sink") with the
// ManifestCommittable of its own checkpoint (committed by
// notifyCheckpointComplete after the snapshot) and commit user
// realPaimonUser. The table's snapshots 1 and 2 (identifiers 1 and 2, that
// user) are in paimon/testdata/paimon-sink-table.
const paimonSinkDir = "testdata/paimon-sink"

const realPaimonUser = "19a5cdb2-82ab-404c-b508-0a6406ae6e4b"

func readRealPaimon(t testing.TB, chk string) *metadata.Checkpoint {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(paimonSinkDir, chk, "_metadata"))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := metadata.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// TestGoldenPaimonSink: real Paimon committer state decodes to its commit
// user and the checkpoint's own committable.
func TestGoldenPaimonSink(t *testing.T) {
	for chk, id := range map[string]int64{"chk-1": 1, "chk-2": 2} {
		t.Run(chk, func(t *testing.T) {
			st, err := sinkstate.Decode(readRealPaimon(t, chk), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Committers) != 1 {
				t.Fatalf("committers %+v", st.Committers)
			}
			c := st.Committers[0]
			if c.Format != sinkstate.FormatPaimon || c.Err != nil || c.Elements != 1 || c.Paimon == nil {
				t.Fatalf("committer %+v", c)
			}
			if c.Paimon.CommitUser != realPaimonUser || len(c.Paimon.Committables) != 1 {
				t.Fatalf("paimon %+v", c.Paimon)
			}
			pc := c.Paimon.Committables[0]
			if pc.Identifier != id || pc.Version != 4 || pc.MessageVersion < 1 || pc.Messages < 1 {
				t.Errorf("committable %+v", pc)
			}
			if d := cmp.Diff([]sinkstate.Pending{{CheckpointID: id, Committables: 1}}, c.Pending()); d != "" {
				t.Errorf("pending (-want +got):\n%s", d)
			}
		})
	}
}

// realPaimonSeeds are the real committables' payloads (chk-1, chk-2).
func realPaimonSeeds() []paimonSeed {
	var out []paimonSeed
	for _, chk := range []string{"chk-1", "chk-2"} {
		data, err := os.ReadFile(filepath.Join(paimonSinkDir, chk, "_metadata"))
		if err != nil {
			panic(err)
		}
		cp, err := metadata.Parse(data, nil)
		if err != nil {
			panic(err)
		}
		for _, op := range cp.Operators {
			for _, sub := range op.SubtaskStates {
				h := sub.ManagedOperator
				if h == nil || h.Stream == nil {
					continue
				}
				for _, s := range h.States {
					if s.Name != sinkstate.CommitterStateName {
						continue
					}
					el, err := opstate.ReadListElements(h.Stream.Data, s.Name, s.Offsets, sub.Index, 0)
					if err != nil {
						panic(err)
					}
					for _, e := range el {
						out = append(out, paimonSeed{e.Version, e.Data})
					}
				}
			}
		}
	}
	return out
}
