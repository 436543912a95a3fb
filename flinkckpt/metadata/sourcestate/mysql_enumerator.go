package sourcestate

import (
	"errors"
	"fmt"
)

// MySQLPhase is the phase Flink CDC's MySQL enumerator was in.
type MySQLPhase int32

// Enumerator phases (PendingSplitsStateSerializer flags).
const (
	PhaseUnknown  MySQLPhase = 0
	PhaseSnapshot MySQLPhase = 1 // reading the tables' initial snapshot
	PhaseBinlog   MySQLPhase = 2 // reading the binlog only
	PhaseHybrid   MySQLPhase = 3 // snapshot of (newly added) tables and binlog
)

// String names the phase.
func (p MySQLPhase) String() string {
	switch p {
	case PhaseSnapshot:
		return "snapshot"
	case PhaseBinlog:
		return "binlog"
	case PhaseHybrid:
		return "hybrid"
	}
	return "unknown"
}

// MySQLAssignerStatus is the snapshot split assigner's status
// (AssignerStatus status codes, PendingSplitsStateSerializer v3 on; v1
// and v2 record only whether the initial assignment finished).
type MySQLAssignerStatus int32

// Assigner statuses.
const (
	AssignerInitialAssigning                    MySQLAssignerStatus = 0
	AssignerInitialAssigningFinished            MySQLAssignerStatus = 1
	AssignerNewlyAddedAssigning                 MySQLAssignerStatus = 2
	AssignerNewlyAddedAssigningSnapshotFinished MySQLAssignerStatus = 3
	AssignerNewlyAddedAssigningFinished         MySQLAssignerStatus = 4
)

// String names the status as Flink CDC does.
func (s MySQLAssignerStatus) String() string {
	switch s {
	case AssignerInitialAssigning:
		return "INITIAL_ASSIGNING"
	case AssignerInitialAssigningFinished:
		return "INITIAL_ASSIGNING_FINISHED"
	case AssignerNewlyAddedAssigning:
		return "NEWLY_ADDED_ASSIGNING"
	case AssignerNewlyAddedAssigningSnapshotFinished:
		return "NEWLY_ADDED_ASSIGNING_SNAPSHOT_FINISHED"
	case AssignerNewlyAddedAssigningFinished:
		return "NEWLY_ADDED_ASSIGNING_FINISHED"
	}
	return fmt.Sprintf("MySQLAssignerStatus(%d)", int32(s))
}

// MySQLEnumerator is Flink CDC's MySQL enumerator checkpoint
// (PendingSplitsStateSerializer versions 1 to 6): the phase, and in the
// snapshot and hybrid phases the snapshot split assigner's progress. It
// holds no binlog position: that is in the reader state.
type MySQLEnumerator struct {
	Version      int32
	SplitVersion int32
	Phase        MySQLPhase
	// BinlogSplitAssigned (binlog and hybrid phases).
	BinlogSplitAssigned bool
	// The snapshot split assigner's state (snapshot and hybrid phases):
	// the tables whose splits were all created, the tables still to split,
	// the snapshot splits not yet assigned, those assigned to readers, and
	// the number of finished splits (their high watermarks recorded).
	AlreadyProcessedTables []string
	RemainingTables        []string
	RemainingSplits        []MySQLSplit
	AssignedSplits         []MySQLSplit
	FinishedSplits         int
	AssignerStatus         MySQLAssignerStatus
	// TableIDCaseSensitive (v3 on).
	TableIDCaseSensitive bool
	// SplittingTable is the table being cut into chunks (v5 on), "" when
	// none; NextChunkID its next chunk's id.
	SplittingTable string
	NextChunkID    int32
	// SnapshotMetaReleased (v6, FLINK-39775: written only when the
	// connector releases snapshot metadata).
	SnapshotMetaReleased bool
}

// parseMySQLEnumerator decodes a Flink CDC MySQL enumerator checkpoint of
// PendingSplitsStateSerializer version 1 to 6, completely: every split it
// lists must decode as a snapshot split of the recorded split serializer
// version, and no byte may be left over, so that another source's
// enumerator state is never taken for a MySQL CDC one.
func parseMySQLEnumerator(version int32, data []byte) (*MySQLEnumerator, error) {
	c := newVersionedCursor("MySQL CDC enumerator state", version, data)
	e := &MySQLEnumerator{Version: version}
	if version < 1 || version > maxMySQLEnumeratorVersion {
		c.Fail("unknown PendingSplitsStateSerializer version %d (known: 1 to %d)", version, maxMySQLEnumeratorVersion)
		return nil, c.Err
	}
	e.SplitVersion = c.I32("split serializer version")
	if c.Err == nil && (e.SplitVersion < 1 || e.SplitVersion > maxMySQLSplitVersion) {
		c.Off -= 4
		c.Fail("split serializer version %d, known 1 to %d", e.SplitVersion, maxMySQLSplitVersion)
	}
	e.Phase = MySQLPhase(c.I32("state flag"))
	switch {
	case c.Err != nil:
	case e.Phase == PhaseBinlog:
		e.BinlogSplitAssigned = c.Boolean("binlog split assigned")
	case e.Phase == PhaseSnapshot || e.Phase == PhaseHybrid:
		mysqlAssigner(c, e)
		if e.Phase == PhaseHybrid {
			e.BinlogSplitAssigned = c.Boolean("binlog split assigned")
		}
	default:
		c.Off -= 4
		c.Fail("state flag %d, want 1, 2 or 3", e.Phase)
	}
	c.End()
	if c.Err != nil {
		return nil, c.Err
	}
	return e, nil
}

// mysqlAssigner reads a SnapshotPendingSplitsState
// (PendingSplitsStateSerializer.serializeSnapshotPendingSplitsState and its
// legacy form for versions 1 and 2).
func mysqlAssigner(c *cursor, e *MySQLEnumerator) {
	e.AlreadyProcessedTables = tableIDs(c, "already processed tables")
	n := c.Count("remaining split count", 4)
	for i := 0; i < n && c.Err == nil; i++ {
		e.RemainingSplits = append(e.RemainingSplits, enumeratorSnapshotSplit(c, e.SplitVersion))
	}
	n = c.Count("assigned split count", 6)
	for i := 0; i < n && c.Err == nil; i++ {
		c.UTF("assigned split id")
		e.AssignedSplits = append(e.AssignedSplits, enumeratorSnapshotSplit(c, e.SplitVersion))
	}
	e.FinishedSplits = c.Count("finished split count", 3)
	for i := 0; i < e.FinishedSplits && c.Err == nil; i++ {
		c.UTF("finished split id")
		binlogOffset(c, e.SplitVersion, "finished split high watermark")
	}
	if e.Version < 3 {
		if c.Boolean("assigner finished") {
			e.AssignerStatus = AssignerInitialAssigningFinished
		}
		return
	}
	start := c.Off
	e.AssignerStatus = MySQLAssignerStatus(c.I32("assigner status"))
	if c.Err == nil && (e.AssignerStatus < AssignerInitialAssigning || e.AssignerStatus > AssignerNewlyAddedAssigningFinished) {
		c.Off = start
		c.Fail("assigner status %d, want 0 to 4", e.AssignerStatus)
	}
	e.RemainingTables = tableIDs(c, "remaining tables")
	e.TableIDCaseSensitive = c.Boolean("table id case sensitive")
	if e.Version >= 4 {
		tableSchemas(c, e.SplitVersion)
	}
	if e.Version >= 5 && c.Boolean("a table is being split") {
		e.SplittingTable = c.UTF("splitting table id")
		c.UTF("next chunk start")
		e.NextChunkID = c.I32("next chunk id")
	}
	if e.Version >= 6 {
		e.SnapshotMetaReleased = c.Boolean("snapshot metadata released")
	}
}

func tableIDs(c *cursor, field string) []string {
	n := c.Count(field+" count", 2)
	out := make([]string, 0, n)
	for i := 0; i < n && c.Err == nil; i++ {
		out = append(out, c.UTF(field))
	}
	return out
}

// enumeratorSnapshotSplit reads int32 length + a snapshot split of the
// split serializer version.
func enumeratorSnapshotSplit(c *cursor, version int32) MySQLSplit {
	start := c.Off
	b := c.Bytes("snapshot split")
	if c.Err != nil {
		return MySQLSplit{}
	}
	s, err := parseMySQLSplit(version, b)
	var fe *FormatError
	switch {
	case errors.As(err, &fe):
		c.Off = start
		c.Fail("snapshot split at byte %d of its %d: %s", fe.Offset, len(b), fe.Msg)
	case err != nil:
		c.Off = start
		c.Fail("snapshot split: %v", err)
	case s.Binlog:
		c.Off = start
		c.Fail("a binlog split among the snapshot splits")
	}
	return s
}
