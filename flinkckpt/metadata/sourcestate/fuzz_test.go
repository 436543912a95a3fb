package sourcestate_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// Every decoder is fuzzed: no input panics, allocations are bounded by the
// input, what decodes survives a round trip through flinkckpttest's
// encoder, and the positions derived from it hold their invariants
// (fuzzprops_test.go). Seeds come from the encoder (seeds below) and the corpus in
// testdata/fuzz (kept in step by TestFuzzSeedCorpus).

// FuzzReadSplits: a state stream (plain or snappy-framed) and one offset.
func FuzzReadSplits(f *testing.F) {
	for _, s := range streamSeeds() {
		f.Add(s.stream, s.offset)
	}
	f.Fuzz(func(t *testing.T, stream []byte, offset int64) {
		splits, err := sourcestate.ReadSplits(stream, []int64{offset}, 0, 1<<20)
		if err != nil {
			return
		}
		h, _ := sourcestate.ParseStreamHeader(stream)
		again, offs := flinkckpttest.ReaderStateStream(splits, h.Compressed)
		back, err := sourcestate.ReadSplits(again, offs, 0, 1<<20)
		if err != nil || !cmp.Equal(splits, back) {
			t.Fatalf("round trip: %v\n%s", err, cmp.Diff(splits, back))
		}
	})
}

// FuzzCoordinator: the coordinator framing, then every enumerator decoder
// on its payload.
func FuzzCoordinator(f *testing.F) {
	for _, c := range coordinatorSeeds() {
		f.Add(flinkckpttest.EncodeCoordinator(*c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := sourcestate.ParseCoordinator(data)
		if err != nil {
			return
		}
		if c.SerdeVersion == 1 {
			if again := flinkckpttest.EncodeCoordinator(*c); string(again) != string(data) {
				t.Fatalf("re-encoded coordinator differs")
			}
		}
		if e, err := sourcestate.ParseKafkaEnumerator(c.Version, c.Data); err == nil {
			checkKafkaEnumerator(t, e)
		}
		if e, err := sourcestate.ParsePaimonEnumerator(c.Version, c.Data); err == nil {
			checkPaimonEnumerator(t, e)
		}
		if e, err := sourcestate.ParseMySQLEnumerator(c.Version, c.Data); err == nil {
			checkMySQLEnumerator(t, e)
		}
	})
}

// FuzzKafka: KafkaSource splits and enumerator states of any version.
func FuzzKafka(f *testing.F) {
	for _, c := range coordinatorSeeds() {
		f.Add(c.Version, c.Data)
	}
	f.Add(int32(0), flinkckpttest.KafkaSplit(sourcestate.KafkaSplit{Topic: "t", Partition: 1, StartingOffset: 10, StoppingOffset: sourcestate.OffsetNone}).Data)
	f.Fuzz(func(t *testing.T, version int32, data []byte) {
		if s, err := sourcestate.ParseKafkaSplit(version, data); err == nil {
			if again := flinkckpttest.KafkaSplit(s).Data; string(again) != string(data) {
				t.Fatalf("re-encoded split differs")
			}
		}
		e, err := sourcestate.ParseKafkaEnumerator(version, data)
		if err != nil {
			return
		}
		co, err := flinkckpttest.KafkaEnumerator(*e)
		if err != nil {
			t.Fatal(err)
		}
		back, err := sourcestate.ParseKafkaEnumerator(co.Version, co.Data)
		if err != nil {
			t.Fatalf("re-encoded enumerator does not decode: %v", err)
		}
		if e.Version != 0 && !cmp.Equal(e, back) {
			t.Fatalf("round trip:\n%s", cmp.Diff(e, back))
		}
	})
}

// FuzzPaimon: Paimon splits, Java-serialized splits, the enumerator and
// MonitorSource splits.
func FuzzPaimon(f *testing.F) {
	for _, s := range paimonSeeds() {
		f.Add(s.Version, s.Data)
	}
	f.Fuzz(func(t *testing.T, version int32, data []byte) {
		if s, err := sourcestate.ParsePaimonJavaSplit(data); err == nil && (s.Snapshot < -1 || s.Snapshot > maxID) {
			t.Fatalf("Java split snapshot %d", s.Snapshot)
		}
		if e, err := sourcestate.ParsePaimonEnumerator(version, data); err == nil {
			checkPaimonEnumerator(t, e)
		}
		if m, err := sourcestate.ParseMonitorSplit(version, data); err == nil {
			back, err := sourcestate.ParseMonitorSplit(0, flinkckpttest.MonitorSplit(m).Data)
			if err != nil || back.NextSnapshot != m.NextSnapshot || back.Kind != m.Kind {
				t.Fatalf("monitor split round trip: %v %+v %+v", err, m, back)
			}
		}
		s, err := sourcestate.ParsePaimonSplit(version, data)
		if err != nil {
			return
		}
		raw, err := flinkckpttest.PaimonSplit(s)
		if err != nil {
			return // e.g. an id too long for writeUTF after decoding
		}
		back, err := sourcestate.ParsePaimonSplit(raw.Version, raw.Data)
		if err != nil || back.Snapshot != s.Snapshot || back.ID != s.ID || back.RecordsToSkip != s.RecordsToSkip {
			t.Fatalf("split round trip: %v\n%+v\n%+v", err, s, back)
		}
	})
}

// FuzzMySQL: MySQL CDC splits and enumerator states.
func FuzzMySQL(f *testing.F) {
	for _, s := range mysqlSeeds() {
		f.Add(s.Version, s.Data)
	}
	f.Fuzz(func(t *testing.T, version int32, data []byte) {
		if e, err := sourcestate.ParseMySQLEnumerator(version, data); err == nil {
			checkMySQLEnumerator(t, e)
		}
		s, err := sourcestate.ParseMySQLSplit(version, data)
		if err != nil || !s.Binlog {
			return
		}
		s.Start = canonical(s.Start)
		s.End = canonical(s.End)
		raw, err := flinkckpttest.MySQLSplit(version, s)
		if err != nil {
			return
		}
		back, err := sourcestate.ParseMySQLSplit(version, raw.Data)
		if err != nil {
			t.Fatalf("re-encoded split does not decode: %v", err)
		}
		if (back.Start == nil) != (s.Start == nil) || back.Start != nil && (back.Start.File != s.Start.File || back.Start.Pos != s.Start.Pos) {
			t.Fatalf("round trip: %+v vs %+v", s.Start, back.Start)
		}
	})
}

// canonical keeps what survives version 1's file + position encoding.
func canonical(o *sourcestate.BinlogOffset) *sourcestate.BinlogOffset {
	if o == nil {
		return nil
	}
	c := *o
	return &c
}

// FuzzDecode: whole _metadata files with source operators; the positions
// derived from what decodes are valid (see fuzzprops_test.go).
func FuzzDecode(f *testing.F) {
	for _, md := range metadataSeeds() {
		data, err := flinkckpttest.Encode(md)
		if err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		md, err := metadata.Parse(data, &metadata.ReadOptions{MaxSize: 1 << 20})
		if err != nil {
			return
		}
		st, err := sourcestate.Decode(md, &sourcestate.Options{MaxStreamSize: 1 << 20})
		if err != nil && st == nil {
			return
		}
		for _, s := range st.Sources {
			if s.Kafka != nil {
				checkKafkaPositions(t, s.Kafka)
				if s.Kafka.Enumerator != nil {
					checkKafkaEnumerator(t, s.Kafka.Enumerator)
				}
			}
			if s.Paimon != nil {
				checkPaimonPosition(t, s.Paimon)
			}
			if s.MySQL != nil {
				if p, _, err := s.MySQL.Position(); err == nil && (p.Pos < 0 || p.SkipEvents < 0 || p.SkipRows < 0) {
					t.Fatalf("MySQL position %+v", p)
				}
			}
		}
	})
}

type streamSeed struct {
	stream []byte
	offset int64
}

func streamSeeds() []streamSeed {
	var out []streamSeed
	for _, compressed := range []bool{false, true} {
		for _, src := range sourceSeeds() {
			stream, offs := flinkckpttest.ReaderStateStream(src.Splits, compressed)
			for _, o := range offs[:min(1, len(offs))] {
				out = append(out, streamSeed{stream, o})
			}
		}
	}
	return out
}

func sourceSeeds() []flinkckpttest.Source {
	monitor := flinkckpttest.MonitorSource("m", 4)
	return []flinkckpttest.Source{
		flinkckpttest.KafkaSource("k", "orders", 10, -2),
		flinkckpttest.PaimonSource("p", "s3://wh/db.db/t", 9, 7),
		monitor,
		flinkckpttest.MySQLSource("c", sourcestate.BinlogOffset{File: "mysql-bin.000003", Pos: 154, GTIDs: "a:1-3"}),
	}
}

func coordinatorSeeds() []*sourcestate.Coordinator {
	var out []*sourcestate.Coordinator
	for _, s := range sourceSeeds() {
		out = append(out, s.Coordinator)
	}
	parts := []sourcestate.KafkaPartition{{Topic: "t", Partition: 0, Status: sourcestate.StatusUnassigned, Subtask: 2}}
	for v := int32(0); v <= 3; v++ {
		c, _ := flinkckpttest.KafkaEnumerator(sourcestate.KafkaEnumerator{Version: v, Partitions: parts})
		out = append(out, c)
	}
	c, _ := flinkckpttest.MySQLEnumerator(sourcestate.MySQLEnumerator{Version: 3, Phase: sourcestate.PhaseSnapshot})
	hybrid, _ := flinkckpttest.MySQLEnumerator(sourcestate.MySQLEnumerator{Version: 6, Phase: sourcestate.PhaseHybrid,
		AlreadyProcessedTables: []string{"a.b"}, RemainingSplits: []sourcestate.MySQLSplit{{ID: "a.c:0", Table: "a.c"}},
		AssignedSplits: []sourcestate.MySQLSplit{{ID: "a.c:1", Table: "a.c"}}, FinishedSplits: 1,
		AssignerStatus: sourcestate.AssignerNewlyAddedAssigning, SplittingTable: "a.c", NextChunkID: 2, BinlogSplitAssigned: true})
	return append(out, c, hybrid)
}

func paimonSeeds() []sourcestate.RawSplit {
	out := flinkckpttest.PaimonSource("p", "/wh/t", 3, 2).Splits
	for _, class := range []string{sourcestate.ClassIncrementalSplit, sourcestate.ClassChainSplit} {
		raw, _ := flinkckpttest.PaimonSplit(sourcestate.PaimonSplit{ID: "x", Class: class, Snapshot: 5})
		out = append(out, raw)
	}
	co, _ := flinkckpttest.PaimonEnumerator(sourcestate.PaimonEnumerator{Splits: []sourcestate.PaimonSplit{{ID: "y", Snapshot: 8}}, NextSnapshot: 9})
	out = append(out, sourcestate.RawSplit{Version: co.Version, Data: co.Data})
	// Issue 31: a Java-serialized split with empty blocks before its data.
	if java, err := flinkckpttest.PaimonJavaSplit(sourcestate.PaimonSplit{Snapshot: 6, Bucket: 1}); err == nil {
		i := bytes.Index(java, []byte{0x78, 0x70}) + 2
		empty := append(bytes.Clone(java[:i]), bytes.Repeat([]byte{0x77, 0}, 100)...)
		out = append(out, sourcestate.RawSplit{Data: java}, sourcestate.RawSplit{Data: append(empty, java[i:]...)})
	}
	return append(out, flinkckpttest.MonitorSplit(sourcestate.MonitorSplit{Kind: sourcestate.MonitorNextSnapshot, CheckpointID: 3, NextSnapshot: 4}))
}

func mysqlSeeds() []sourcestate.RawSplit {
	var out []sourcestate.RawSplit
	start := &sourcestate.BinlogOffset{File: "mysql-bin.000003", Pos: 154, SkipEvents: 1, GTIDs: "a:1-3", TsSec: 100}
	for v := int32(1); v <= 4; v++ {
		raw, _ := flinkckpttest.MySQLSplit(v, sourcestate.MySQLSplit{Binlog: true, Start: start, FinishedSnapshotSplits: 1})
		out = append(out, raw)
	}
	raw, _ := flinkckpttest.MySQLSplit(2, sourcestate.MySQLSplit{ID: "s", HighWatermark: start})
	out = append(out, raw)
	c, _ := flinkckpttest.MySQLEnumerator(sourcestate.MySQLEnumerator{Version: 5, Phase: sourcestate.PhaseBinlog, BinlogSplitAssigned: true})
	return append(out, sourcestate.RawSplit{Version: c.Version, Data: c.Data})
}

func metadataSeeds() []*metadata.Checkpoint {
	var out []*metadata.Checkpoint
	for i, compressed := range []bool{false, true} {
		md := &metadata.Checkpoint{Version: 4 + i, CheckpointID: 3}
		for _, s := range sourceSeeds() {
			s.Compressed = compressed
			op, _ := s.Operator(md.Version, nil)
			md.Operators = append(md.Operators, op)
		}
		out = append(out, md)
	}
	// Paimon's legacy MonitorFunction: list states, no reader state, no
	// coordinator (a checkpoint of _metadata version 3).
	legacy := flinkckpttest.LegacyMonitorSource("lm", 8)
	legacy.ListStates[1].Elements = append(legacy.ListStates[1].Elements, flinkckpttest.ListElement{Data: make([]byte, 16)})
	op, _ := legacy.Operator(3, nil)
	return append(out, &metadata.Checkpoint{Version: 3, CheckpointID: 4, Operators: []metadata.Operator{op}})
}
