package flinkckpttest

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// MySQLSplit returns a Flink CDC MySQL split as MySqlSplitSerializer of
// version (1 to 4) writes it: a binlog split (s.Binlog) with its starting
// and ending offsets, or a snapshot split of s.Table with its high
// watermark; no table schemas, and s.FinishedSnapshotSplits finished
// snapshot split infos of table s.Table. Version 4 writes the suspended
// flag (as Flink CDC 2.3 and later do).
func MySQLSplit(version int32, s sourcestate.MySQLSplit) (sourcestate.RawSplit, error) {
	if version < 1 || version > 4 {
		return sourcestate.RawSplit{}, fmt.Errorf("flinkckpttest: MySqlSplitSerializer version %d does not exist (1 to 4)", version)
	}
	e := &encoder{}
	table := s.Table
	if table == "" {
		table = `"app"."orders"`
	}
	if s.Binlog {
		e.i32(2)
		id := s.ID
		if id == "" {
			id = "binlog-split"
		}
		e.utf(id)
		e.utf("")
		binlogOffsetBytes(e, version, s.Start)
		binlogOffsetBytes(e, version, s.End)
		e.i32(int32(s.FinishedSnapshotSplits))
		for i := 0; i < s.FinishedSnapshotSplits; i++ {
			e.utf(table)
			e.utf(fmt.Sprintf("%s:%d", table, i))
			e.utf("[" + strconv.Itoa(i*100) + "]")
			e.utf("[" + strconv.Itoa((i+1)*100) + "]")
			binlogOffsetBytes(e, version, s.Start)
		}
		e.i32(0) // table schemas
		if version >= 3 {
			e.i32(s.TotalFinishedSplitSize)
		}
		if version >= 4 {
			e.boolean(s.Suspended)
		}
	} else {
		e.i32(1)
		e.utf(table)
		e.utf(s.ID)
		e.utf("ROW<`id` BIGINT NOT NULL>")
		e.utf("[0]")
		e.utf("[100]")
		binlogOffsetBytes(e, version, s.HighWatermark)
		e.i32(0) // table schemas
	}
	if e.err != nil {
		return sourcestate.RawSplit{}, e.err
	}
	return sourcestate.RawSplit{Subtask: s.Subtask, Version: version, Data: e.b}, nil
}

// binlogOffsetBytes writes SerializerUtils.writeBinlogPosition: boolean
// present, then UTF file + int64 position (version 1) or the offset map as
// JSON (keys sorted; o.Map when set, else built from the fields).
func binlogOffsetBytes(e *encoder, version int32, o *sourcestate.BinlogOffset) {
	if o == nil {
		e.boolean(false)
		return
	}
	e.boolean(true)
	if version == 1 {
		e.utf(o.File)
		e.i64(o.Pos)
		return
	}
	m := o.Map
	if m == nil {
		m = map[string]string{"file": o.File, "pos": strconv.FormatInt(o.Pos, 10),
			"event": strconv.FormatInt(o.SkipEvents, 10), "row": strconv.FormatInt(o.SkipRows, 10)}
		if o.GTIDs != "" {
			m["gtids"] = o.GTIDs
		}
		if o.TsSec != 0 {
			m["ts_sec"] = strconv.FormatInt(o.TsSec, 10)
		}
		if o.ServerID != 0 {
			m["server_id"] = strconv.FormatInt(o.ServerID, 10)
		}
		if o.Kind != "" {
			m["kind"] = o.Kind
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		kk, _ := json.Marshal(k)
		vv, _ := json.Marshal(m[k])
		b = append(append(append(b, kk...), ':'), vv...)
	}
	b = append(b, '}')
	e.bytes(b)
}

// MySQLEnumerator returns the head of a Flink CDC MySQL enumerator state
// (PendingSplitsStateSerializer of m.Version, 1 to 5) in SourceCoordinator
// framing: the split serializer version and the phase flag, and in the
// binlog phase whether the binlog split was assigned. For the snapshot and
// hybrid phases only that head is written (the table and split lists that
// follow in Flink CDC's state are what resumekit does not read).
func MySQLEnumerator(m sourcestate.MySQLEnumerator) (*sourcestate.Coordinator, error) {
	if m.Version < 1 || m.Version > 5 {
		return nil, fmt.Errorf("flinkckpttest: PendingSplitsStateSerializer version %d does not exist (1 to 5)", m.Version)
	}
	e := &encoder{}
	sv := m.SplitVersion
	if sv == 0 {
		sv = 4
	}
	e.i32(sv)
	e.i32(int32(m.Phase))
	if m.Phase == sourcestate.PhaseBinlog {
		e.boolean(m.BinlogSplitAssigned)
	}
	return &sourcestate.Coordinator{SerdeVersion: 1, Version: m.Version, Data: e.b}, nil
}

// MySQLSource returns a Flink CDC MySQL source of parallelism 1 in the
// binlog phase whose reader continues at start (split serializer version
// 4, enumerator state version 5).
func MySQLSource(uid string, start sourcestate.BinlogOffset) Source {
	if start.Kind == "" {
		start.Kind = sourcestate.BinlogSpecific
	}
	raw, _ := MySQLSplit(4, sourcestate.MySQLSplit{Binlog: true, Start: &start,
		End: &sourcestate.BinlogOffset{Kind: sourcestate.BinlogNonStopping, Pos: -9223372036854775808}})
	co, _ := MySQLEnumerator(sourcestate.MySQLEnumerator{Version: 5, SplitVersion: 4, Phase: sourcestate.PhaseBinlog, BinlogSplitAssigned: true})
	return Source{UID: uid, Splits: []sourcestate.RawSplit{raw}, Coordinator: co}
}
