package sourcestate_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// decodeSources encodes the sources into a _metadata of version, parses
// it back, and decodes the source state, reading files from the map.
func decodeSources(t *testing.T, version int, sources ...flinkckpttest.Source) *sourcestate.State {
	t.Helper()
	md := &metadata.Checkpoint{Version: version, CheckpointID: 7, Savepoint: version >= 4}
	files := map[string][]byte{}
	for i := range sources {
		op, fs := sources[i].Operator(version, nil)
		md.Operators = append(md.Operators, op)
		for _, f := range fs {
			files[f.Name] = f.Data
		}
	}
	data, err := flinkckpttest.Encode(md)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := metadata.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sourcestate.Decode(parsed, &sourcestate.Options{ReadStream: func(h *metadata.StreamHandle) ([]byte, error) {
		b, ok := files[h.Path]
		if !ok {
			return nil, fmt.Errorf("no file %q", h.Path)
		}
		return b, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// storage is how a source's reader state is written.
var storage = []struct {
	name             string
	compressed, file bool
}{{"inline", false, false}, {"inline-snappy", true, false}, {"file", false, true}, {"file-snappy", true, true}}

func TestKafkaRoundTrip(t *testing.T) {
	splits := []sourcestate.KafkaSplit{
		{Subtask: 0, Topic: "orders", Partition: 0, StartingOffset: 42, StoppingOffset: sourcestate.OffsetNone},
		{Subtask: 1, Topic: "orders", Partition: 1, StartingOffset: sourcestate.OffsetEarliest, StoppingOffset: sourcestate.OffsetNone},
		{Subtask: 1, Topic: "orders", Partition: 2, StartingOffset: sourcestate.OffsetLatest, StoppingOffset: 900},
		{Subtask: 0, Topic: "payments.v2", Partition: 0, StartingOffset: sourcestate.OffsetCommitted, StoppingOffset: sourcestate.OffsetCommitted},
	}
	for v := int32(0); v <= 3; v++ {
		for _, sto := range storage {
			t.Run(fmt.Sprintf("enum-v%d/%s", v, sto.name), func(t *testing.T) {
				src := flinkckpttest.Source{UID: "kafka", Parallelism: 2, Compressed: sto.compressed, InFile: sto.file}
				var parts []sourcestate.KafkaPartition
				for _, s := range splits {
					src.Splits = append(src.Splits, flinkckpttest.KafkaSplit(s))
					initial := s
					initial.Subtask = -1
					p := sourcestate.KafkaPartition{Topic: s.Topic, Partition: s.Partition, Status: sourcestate.StatusAssigned, Subtask: -1}
					switch v {
					case 0:
						p.Subtask, p.Split = s.Subtask, &initial
					case 1:
					case 3:
						p.Split = &initial
					}
					if v == 2 || v == 3 || v == 1 {
						p.Subtask = -1
					}
					parts = append(parts, p)
				}
				// One partition the enumerator has not assigned yet (v2, v3).
				if v >= 2 {
					unassigned := sourcestate.KafkaPartition{Topic: "orders", Partition: 3, Status: sourcestate.StatusUnassigned, Subtask: -1}
					if v == 3 {
						unassigned.Split = &sourcestate.KafkaSplit{Subtask: -1, Topic: "orders", Partition: 3, StartingOffset: 7, StoppingOffset: sourcestate.OffsetNone}
					}
					parts = append(parts, unassigned)
				}
				want := sourcestate.KafkaEnumerator{Version: v, SplitVersion: -1, Partitions: parts, InitialDiscoveryFinished: v >= 2}
				if v == 0 || v == 3 {
					want.SplitVersion = 0
				}
				var err error
				if src.Coordinator, err = flinkckpttest.KafkaEnumerator(want); err != nil {
					t.Fatal(err)
				}
				st := decodeSources(t, 5, src)
				if len(st.Sources) != 1 || st.Sources[0].Kind != sourcestate.KindKafka {
					t.Fatalf("sources %+v", st.Sources)
				}
				got := st.Sources[0]
				if got.UID != "kafka" || got.SplitVersion != 0 {
					t.Errorf("uid %q split version %d", got.UID, got.SplitVersion)
				}
				if diff := cmp.Diff(splitsBySubtask(splits), got.Kafka.Splits); diff != "" {
					t.Errorf("splits (-want +got):\n%s", diff)
				}
				if v == 0 {
					// Version 0 groups splits by subtask, in order met.
					want.Partitions = []sourcestate.KafkaPartition{parts[0], parts[3], parts[1], parts[2]}
				}
				if diff := cmp.Diff(&want, got.Kafka.Enumerator); diff != "" {
					t.Errorf("enumerator (-want +got):\n%s", diff)
				}
				ps, _ := got.Kafka.Positions()
				wantPos := []sourcestate.KafkaPosition{
					{Topic: "orders", Partition: 0, Offset: 42},
					{Topic: "orders", Partition: 1, Offset: -2, Marker: sourcestate.MarkerEarliest},
					{Topic: "orders", Partition: 2, Offset: -1, Marker: sourcestate.MarkerLatest},
					{Topic: "payments.v2", Partition: 0, Offset: -3, Marker: sourcestate.MarkerCommitted},
				}
				switch v {
				case 2:
					wantPos = append(wantPos[:3], append([]sourcestate.KafkaPosition{{Topic: "orders", Partition: 3, Offset: -2, Marker: sourcestate.MarkerEarliest}}, wantPos[3:]...)...)
				case 3:
					wantPos = append(wantPos[:3], append([]sourcestate.KafkaPosition{{Topic: "orders", Partition: 3, Offset: 7}}, wantPos[3:]...)...)
				}
				if diff := cmp.Diff(wantPos, ps); diff != "" {
					t.Errorf("positions (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// splitsBySubtask orders splits as Decode returns them: subtask by subtask.
func splitsBySubtask(splits []sourcestate.KafkaSplit) []sourcestate.KafkaSplit {
	var out []sourcestate.KafkaSplit
	for sub := int32(0); sub < 2; sub++ {
		for _, s := range splits {
			if s.Subtask == sub {
				out = append(out, s)
			}
		}
	}
	return out
}

func TestPaimonRoundTrip(t *testing.T) {
	reader := []sourcestate.PaimonSplit{
		{Subtask: 0, ID: "a", Class: sourcestate.ClassDataSplit, FormatVersion: 9, Snapshot: 12, Bucket: 3, BucketPath: "s3://wh/db.db/orders/dt=2026-11-29/bucket-3", Streaming: true, StreamingKnown: true, RecordsToSkip: 5},
		{Subtask: 1, ID: "b", Class: sourcestate.ClassDataSplit, FormatVersion: 1, Snapshot: 11, Bucket: 0, BucketPath: "file:/wh/db.db/orders/bucket-0", Streaming: true, StreamingKnown: true},
		{Subtask: 1, ID: "c", Class: sourcestate.ClassIncrementalSplit, FormatVersion: 2, Snapshot: 13, Bucket: 1, Streaming: true, StreamingKnown: true, RecordsToSkip: 1},
		{Subtask: 0, ID: "d", Class: sourcestate.ClassChainSplit, FormatVersion: 3, Snapshot: -1, Bucket: -1, RecordsToSkip: 2},
	}
	pending := []sourcestate.PaimonSplit{
		{Subtask: -1, ID: "p", Class: sourcestate.ClassDataSplit, FormatVersion: 9, Snapshot: 14, Bucket: 0, BucketPath: "s3://wh/db.db/orders/bucket-0", Streaming: true, StreamingKnown: true},
	}
	for _, sto := range storage {
		t.Run(sto.name, func(t *testing.T) {
			src := flinkckpttest.Source{UID: "paimon", Parallelism: 2, Compressed: sto.compressed, InFile: sto.file}
			for _, s := range reader {
				raw, err := flinkckpttest.PaimonSplit(s)
				if err != nil {
					t.Fatal(err)
				}
				src.Splits = append(src.Splits, raw)
			}
			enum := sourcestate.PaimonEnumerator{Splits: pending, NextSnapshot: 15}
			var err error
			if src.Coordinator, err = flinkckpttest.PaimonEnumerator(enum); err != nil {
				t.Fatal(err)
			}
			st := decodeSources(t, 4, src)
			if len(st.Sources) != 1 || st.Sources[0].Kind != sourcestate.KindPaimon {
				t.Fatalf("sources %+v", st.Sources)
			}
			got := st.Sources[0].Paimon
			want := []sourcestate.PaimonSplit{reader[0], reader[3], reader[1], reader[2]}
			if diff := cmp.Diff(want, got.Splits); diff != "" {
				t.Errorf("reader splits (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(&enum, got.Enumerator); diff != "" {
				t.Errorf("enumerator (-want +got):\n%s", diff)
			}
			pos, ok, _ := got.Position()
			if want := (sourcestate.PaimonPosition{NextSnapshot: 11, Table: "s3://wh/db.db/orders"}); !ok || pos != want {
				t.Errorf("position %+v, want %+v", pos, want)
			}
		})
	}
}

func TestPaimonFullScanSplit(t *testing.T) {
	raw, err := flinkckpttest.PaimonSplit(sourcestate.PaimonSplit{ID: "full", Class: sourcestate.ClassDataSplit, Snapshot: 4, BucketPath: "/wh/t/bucket-0"})
	if err != nil {
		t.Fatal(err)
	}
	co, _ := flinkckpttest.PaimonEnumerator(sourcestate.PaimonEnumerator{NextSnapshot: 5})
	st := decodeSources(t, 4, flinkckpttest.Source{UID: "p", Splits: []sourcestate.RawSplit{raw}, Coordinator: co})
	pos, ok, _ := st.Sources[0].Paimon.Position()
	if !ok || pos.NextSnapshot != 4 || !pos.Full {
		t.Errorf("position %+v, want snapshot 4 of the initial full read", pos)
	}
}

func TestMonitorSourceRoundTrip(t *testing.T) {
	for _, sto := range storage {
		t.Run(sto.name, func(t *testing.T) {
			src := flinkckpttest.MonitorSource("monitor", 31)
			src.Compressed, src.InFile = sto.compressed, sto.file
			src.Splits = append(src.Splits, flinkckpttest.MonitorSplit(sourcestate.MonitorSplit{ID: "x", Kind: sourcestate.MonitorNextSnapshot, CheckpointID: 6, NextSnapshot: 30}))
			st := decodeSources(t, 4, src)
			s := st.Sources[0]
			want := []sourcestate.MonitorSplit{
				{Subtask: 0, ID: "monitor", Kind: sourcestate.MonitorCheckpoint, NextSnapshot: 31},
				{Subtask: 0, ID: "x", Kind: sourcestate.MonitorNextSnapshot, CheckpointID: 6, NextSnapshot: 30},
			}
			if s.Kind != sourcestate.KindPaimon || s.Paimon == nil {
				t.Fatalf("source %+v", s)
			}
			if diff := cmp.Diff(want, s.Paimon.Monitor); diff != "" {
				t.Errorf("monitor (-want +got):\n%s", diff)
			}
			pos, ok, _ := s.Paimon.Position()
			if !ok || pos.NextSnapshot != 31 || !pos.Exact {
				t.Errorf("position %+v", pos)
			}
		})
	}
}

// Paimon's legacy MonitorFunction (0.9 and older): no reader state, the
// "next-snapshot" list state holds the next snapshot to plan (8 bytes), and
// "next-snapshot-per-checkpoint" (16-byte pending commits) is not read.
// The function writes at most one value; of several (a state written by
// hand, or merged), the smallest is the position, so nothing is skipped.
func TestLegacyMonitorFunctionRoundTrip(t *testing.T) {
	pending := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, 6), 30) // checkpoint 6 → snapshot 30
	for _, sto := range storage {
		for _, tc := range []struct {
			name string
			next []int64
			want int64
		}{{"one", []int64{31}, 31}, {"several", []int64{40, 31, 35}, 31}} {
			t.Run(sto.name+"/"+tc.name, func(t *testing.T) {
				src := flinkckpttest.LegacyMonitorSource("monitor", tc.next...)
				src.Compressed, src.InFile = sto.compressed, sto.file
				src.ListStates[1].Elements = append(src.ListStates[1].Elements, flinkckpttest.ListElement{Data: pending})
				st := decodeSources(t, 4, src)
				if len(st.Sources) != 1 {
					t.Fatalf("sources %+v", st.Sources)
				}
				s := st.Sources[0]
				if s.Kind != sourcestate.KindPaimon || s.Paimon == nil || s.Err != nil || s.Coordinator != nil || len(s.Splits) != 0 {
					t.Fatalf("source %+v", s)
				}
				if diff := cmp.Diff(tc.next, s.Paimon.LegacyNextSnapshots); diff != "" {
					t.Errorf("next snapshots (-want +got):\n%s", diff)
				}
				if !slices.ContainsFunc(s.Notes, func(n string) bool { return strings.Contains(n, "legacy Paimon MonitorFunction") }) {
					t.Errorf("notes %q lack the legacy MonitorFunction", s.Notes)
				}
				pos, ok, why := s.Paimon.Position()
				if !ok || pos.NextSnapshot != tc.want || !pos.Exact || pos.Full {
					t.Errorf("position %+v ok %v (%s), want exact next snapshot %d", pos, ok, why, tc.want)
				}
			})
		}
	}
	t.Run("empty", func(t *testing.T) {
		// Nothing planned yet: a Paimon source without a position.
		s := decodeSources(t, 3, flinkckpttest.LegacyMonitorSource("monitor")).Sources[0]
		if _, ok, why := s.Paimon.Position(); s.Kind != sourcestate.KindPaimon || ok || !strings.Contains(why, "no snapshot id") {
			t.Errorf("kind %s ok %v why %q", s.Kind, ok, why)
		}
	})
}

func TestMySQLRoundTrip(t *testing.T) {
	start := sourcestate.BinlogOffset{Kind: sourcestate.BinlogSpecific, File: "mysql-bin.000042", Pos: 1337, SkipEvents: 2, SkipRows: 1,
		GTIDs: "3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5", TsSec: 1764410000, ServerID: 5400}
	for v := int32(1); v <= 4; v++ {
		for _, sto := range storage {
			t.Run(fmt.Sprintf("split-v%d/%s", v, sto.name), func(t *testing.T) {
				s := sourcestate.MySQLSplit{Binlog: true, ID: "binlog-split", Start: &start, FinishedSnapshotSplits: 2, TotalFinishedSplitSize: 2, Suspended: v == 4}
				raw, err := flinkckpttest.MySQLSplit(v, s)
				if err != nil {
					t.Fatal(err)
				}
				co, _ := flinkckpttest.MySQLEnumerator(sourcestate.MySQLEnumerator{Version: 5, SplitVersion: v, Phase: sourcestate.PhaseBinlog, BinlogSplitAssigned: true})
				st := decodeSources(t, 4, flinkckpttest.Source{UID: "cdc", Splits: []sourcestate.RawSplit{raw}, Coordinator: co, Compressed: sto.compressed, InFile: sto.file})
				got := st.Sources[0]
				if got.Kind != sourcestate.KindMySQLCDC || got.SplitVersion != v {
					t.Fatalf("source %+v", got)
				}
				pos, _, err := got.MySQL.Position()
				if err != nil {
					t.Fatal(err)
				}
				want := sourcestate.MySQLPosition{File: "mysql-bin.000042", Pos: 1337, GTIDs: start.GTIDs, SkipEvents: 2, SkipRows: 1, TsSec: 1764410000}
				if v == 1 {
					// Version 1 records file and position only.
					want = sourcestate.MySQLPosition{File: "mysql-bin.000042", Pos: 1337}
				}
				if diff := cmp.Diff(want, pos); diff != "" {
					t.Errorf("position (-want +got):\n%s", diff)
				}
				sp := got.MySQL.Splits[0]
				if sp.FinishedSnapshotSplits != 2 || sp.Suspended != (v == 4) || got.MySQL.Enumerator.Phase != sourcestate.PhaseBinlog {
					t.Errorf("split %+v enumerator %+v", sp, got.MySQL.Enumerator)
				}
			})
		}
	}
}

// A MySQL CDC source still reading its tables' snapshot has no binlog
// position: Position says so with ErrSnapshotPhase.
func TestMySQLSnapshotPhase(t *testing.T) {
	raw, err := flinkckpttest.MySQLSplit(4, sourcestate.MySQLSplit{ID: `"app"."orders":3`, Table: `"app"."orders"`,
		HighWatermark: &sourcestate.BinlogOffset{File: "mysql-bin.000001", Pos: 4}})
	if err != nil {
		t.Fatal(err)
	}
	co, _ := flinkckpttest.MySQLEnumerator(sourcestate.MySQLEnumerator{Version: 5, Phase: sourcestate.PhaseSnapshot})
	st := decodeSources(t, 4, flinkckpttest.Source{UID: "cdc", Splits: []sourcestate.RawSplit{raw}, Coordinator: co})
	got := st.Sources[0]
	if got.Kind != sourcestate.KindMySQLCDC || got.MySQL.Splits[0].Binlog || got.MySQL.Splits[0].Table != `"app"."orders"` {
		t.Fatalf("source %+v", got)
	}
	if _, _, err := got.MySQL.Position(); err != sourcestate.ErrSnapshotPhase {
		t.Errorf("err %v, want ErrSnapshotPhase", err)
	}
}

// Anything else is an unknown source with its operator id and split
// serializer version, never a guess.
func TestUnknownSource(t *testing.T) {
	// NumberSequenceSource's split (version 1: UTF id, int64 from, int64 to).
	split := sourcestate.RawSplit{Version: 1, Data: append([]byte{0, 1, '0'}, bytes.Repeat([]byte{0}, 16)...)}
	st := decodeSources(t, 5, flinkckpttest.Source{UID: "numbers", Splits: []sourcestate.RawSplit{split},
		Coordinator: &sourcestate.Coordinator{SerdeVersion: 1, Version: 1, Data: []byte{0, 0, 0, 0}}})
	got := st.Sources[0]
	if got.Kind != sourcestate.KindUnknown || got.SplitVersion != 1 || got.OperatorID != flinkckpttestID("numbers") || len(got.Notes) == 0 {
		t.Errorf("source %+v", got)
	}
	if got.Kafka != nil || got.Paimon != nil || got.MySQL != nil {
		t.Errorf("unknown source decoded as a known kind: %+v", got)
	}
}

func flinkckpttestID(uid string) string { s := flinkckpttest.Source{UID: uid}; return s.ID() }

// A reader state in a file is not read without ReadStream: the source
// says so (ErrNotRead) and its kind still comes from the enumerator.
func TestStateInFileNotRead(t *testing.T) {
	src := flinkckpttest.KafkaSource("k", "t", 5, 6)
	src.InFile = true
	md := &metadata.Checkpoint{Version: 4, CheckpointID: 1}
	op, _ := src.Operator(4, nil)
	md.Operators = append(md.Operators, op)
	st, err := sourcestate.Decode(md, nil)
	if err == nil || !errorsIs(err, sourcestate.ErrNotRead) {
		t.Fatalf("err %v, want ErrNotRead", err)
	}
	if len(st.Sources) != 1 || st.Sources[0].Kind != sourcestate.KindKafka || st.Sources[0].Err == nil || len(st.Sources[0].Kafka.Splits) != 0 {
		t.Errorf("source %+v", st.Sources)
	}
}
