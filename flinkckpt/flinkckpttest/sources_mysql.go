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

// MySQLEnumerator returns a Flink CDC MySQL enumerator state
// (PendingSplitsStateSerializer of m.Version, 1 to 6) in SourceCoordinator
// framing, byte-exact to the layout: the split serializer version (4 when
// 0) and the phase flag, then in the binlog phase whether the binlog split
// was assigned, and in the snapshot and hybrid phases the assigner's state
// — m's table lists, its remaining and assigned snapshot splits (written
// with MySQLSplit), m.FinishedSplits finished split ids with a high
// watermark, the assigner status (v3 on; v1 and v2 record whether it
// finished), m.TableIDCaseSensitive, no table schemas (v4 on), the
// splitting table (v5 on), the released flag (v6) — and, in the hybrid
// phase, whether the binlog split was assigned.
func MySQLEnumerator(m sourcestate.MySQLEnumerator) (*sourcestate.Coordinator, error) {
	if m.Version < 1 || m.Version > 6 {
		return nil, fmt.Errorf("flinkckpttest: PendingSplitsStateSerializer version %d does not exist (1 to 6)", m.Version)
	}
	e := &encoder{}
	sv := m.SplitVersion
	if sv == 0 {
		sv = 4
	}
	e.i32(sv)
	e.i32(int32(m.Phase))
	switch m.Phase {
	case sourcestate.PhaseBinlog:
		e.boolean(m.BinlogSplitAssigned)
	case sourcestate.PhaseSnapshot, sourcestate.PhaseHybrid:
		if err := mysqlAssigner(e, sv, m); err != nil {
			return nil, err
		}
		if m.Phase == sourcestate.PhaseHybrid {
			e.boolean(m.BinlogSplitAssigned)
		}
	default:
		return nil, fmt.Errorf("flinkckpttest: MySQL CDC enumerator phase %d does not exist (1 to 3)", m.Phase)
	}
	if e.err != nil {
		return nil, e.err
	}
	return &sourcestate.Coordinator{SerdeVersion: 1, Version: m.Version, Data: e.b}, nil
}

// mysqlAssigner writes a SnapshotPendingSplitsState as
// PendingSplitsStateSerializer.serializeSnapshotPendingSplitsState does.
func mysqlAssigner(e *encoder, sv int32, m sourcestate.MySQLEnumerator) error {
	tables := func(ts []string) {
		e.i32(int32(len(ts)))
		for _, t := range ts {
			e.utf(t)
		}
	}
	split := func(s sourcestate.MySQLSplit) error {
		s.Binlog = false
		raw, err := MySQLSplit(sv, s)
		if err != nil {
			return err
		}
		e.bytes(raw.Data)
		return nil
	}
	tables(m.AlreadyProcessedTables)
	e.i32(int32(len(m.RemainingSplits)))
	for _, s := range m.RemainingSplits {
		if err := split(s); err != nil {
			return err
		}
	}
	e.i32(int32(len(m.AssignedSplits)))
	for _, s := range m.AssignedSplits {
		e.utf(s.ID)
		if err := split(s); err != nil {
			return err
		}
	}
	e.i32(int32(m.FinishedSplits))
	for i := 0; i < m.FinishedSplits; i++ {
		e.utf(fmt.Sprintf("finished:%d", i))
		binlogOffsetBytes(e, sv, &sourcestate.BinlogOffset{Kind: sourcestate.BinlogSpecific, File: "mysql-bin.000001", Pos: int64(4 + i)})
	}
	if m.Version < 3 {
		e.boolean(m.AssignerStatus != sourcestate.AssignerInitialAssigning)
		return nil
	}
	e.i32(int32(m.AssignerStatus))
	tables(m.RemainingTables)
	e.boolean(m.TableIDCaseSensitive)
	if m.Version >= 4 {
		e.i32(0) // table schemas
	}
	if m.Version >= 5 {
		e.boolean(m.SplittingTable != "")
		if m.SplittingTable != "" {
			e.utf(m.SplittingTable)
			e.utf("[1000]")
			e.i32(m.NextChunkID)
		}
	}
	if m.Version >= 6 {
		e.boolean(m.SnapshotMetaReleased)
	}
	return nil
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
