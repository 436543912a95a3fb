package sourcestate_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// Every PendingSplitsStateSerializer version and phase, written by
// flinkckpttest and decoded completely: the assigner's tables, splits and
// status come back.
func TestMySQLEnumeratorRoundTrip(t *testing.T) {
	hw := &sourcestate.BinlogOffset{Kind: sourcestate.BinlogSpecific, File: "mysql-bin.000002", Pos: 99}
	for v := int32(1); v <= 6; v++ {
		for _, phase := range []sourcestate.MySQLPhase{sourcestate.PhaseSnapshot, sourcestate.PhaseBinlog, sourcestate.PhaseHybrid} {
			for _, sv := range []int32{1, 4} {
				t.Run(fmt.Sprintf("v%d/%s/split-v%d", v, phase, sv), func(t *testing.T) {
					in := sourcestate.MySQLEnumerator{Version: v, SplitVersion: sv, Phase: phase, BinlogSplitAssigned: phase != sourcestate.PhaseSnapshot}
					if phase != sourcestate.PhaseBinlog {
						in.AlreadyProcessedTables = []string{`"app"."customers"`}
						in.RemainingSplits = []sourcestate.MySQLSplit{{ID: `"app"."orders":2`, Table: `"app"."orders"`}}
						in.AssignedSplits = []sourcestate.MySQLSplit{{ID: `"app"."orders":0`, Table: `"app"."orders"`, HighWatermark: hw}, {ID: `"app"."orders":1`, Table: `"app"."orders"`}}
						in.FinishedSplits = 1
						in.AssignerStatus = sourcestate.AssignerInitialAssigningFinished
						if v >= 3 {
							in.AssignerStatus = sourcestate.AssignerNewlyAddedAssigning
							in.RemainingTables = []string{`"app"."items"`}
							in.TableIDCaseSensitive = true
						}
						if v >= 5 {
							in.SplittingTable, in.NextChunkID = `"app"."orders"`, 3
						}
						in.SnapshotMetaReleased = v >= 6
					}
					co, err := flinkckpttest.MySQLEnumerator(in)
					if err != nil {
						t.Fatal(err)
					}
					got, err := sourcestate.ParseMySQLEnumerator(co.Version, co.Data)
					if err != nil {
						t.Fatal(err)
					}
					ignore := cmpopts.IgnoreFields(sourcestate.MySQLSplit{}, "HighWatermark", "Subtask")
					if diff := cmp.Diff(&in, got, cmpopts.EquateEmpty(), ignore); diff != "" {
						t.Errorf("enumerator (-written +decoded):\n%s", diff)
					}
					if len(got.AssignedSplits) == 2 && (got.AssignedSplits[0].HighWatermark == nil || got.AssignedSplits[0].HighWatermark.Pos != 99) {
						t.Errorf("assigned split's high watermark %+v, want position 99", got.AssignedSplits[0].HighWatermark)
					}
					// Every byte counts: one more or one less is refused.
					if _, err := sourcestate.ParseMySQLEnumerator(co.Version, append(co.Data, 0)); err == nil {
						t.Error("trailing byte accepted")
					}
					if _, err := sourcestate.ParseMySQLEnumerator(co.Version, co.Data[:len(co.Data)-1]); err == nil {
						t.Error("truncated state accepted")
					}
				})
			}
		}
	}
}

// An enumerator state that only begins like a MySQL CDC one — Flink's
// FileSource writes int32 split serializer version 1, then int32 split
// count, which for one or three pending splits reads as the snapshot or
// hybrid flag — is not taken for a MySQL CDC source: with no reader splits
// the source is unknown, never a MySQL CDC source "still in its snapshot
// phase".
func TestFileSourceEnumeratorIsNotMySQL(t *testing.T) {
	for _, splits := range []int32{1, 3} {
		var data []byte
		data = binary.BigEndian.AppendUint32(data, 1)              // FileSourceSplitSerializer version
		data = binary.BigEndian.AppendUint32(data, uint32(splits)) // pending splits
		data = binary.BigEndian.AppendUint32(data, 1)              // already processed paths
		for i := int32(0); i < splits; i++ {
			split := []byte{0, 1, '0', 0, 20}
			split = append(split, "file:/data/part-0.csv"[:20]...)
			split = append(split, make([]byte, 16)...)
			data = binary.BigEndian.AppendUint32(data, uint32(len(split)))
			data = append(data, split...)
		}
		data = binary.BigEndian.AppendUint32(data, 14)
		data = append(data, []byte("file:/data/a.c")...)
		if _, err := sourcestate.ParseMySQLEnumerator(1, data); err == nil {
			t.Errorf("%d splits: a FileSource enumerator state decodes as a MySQL CDC one", splits)
		}
		st := decodeSources(t, 4, flinkckpttest.Source{UID: "files", Splits: nil,
			Coordinator: &sourcestate.Coordinator{SerdeVersion: 1, Version: 1, Data: data}})
		if len(st.Sources) == 1 && (st.Sources[0].Kind == sourcestate.KindMySQLCDC || st.Sources[0].MySQL != nil) {
			t.Errorf("%d splits: source %+v taken for MySQL CDC", splits, st.Sources[0])
		}
	}
}
