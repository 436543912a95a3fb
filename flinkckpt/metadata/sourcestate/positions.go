package sourcestate

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// KafkaPosition is where a partition continues: the next offset to read,
// or a marker the reader had not resolved.
type KafkaPosition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// Offset is the next offset to read; for a marker, the marker's value
	// (-2 earliest, -1 latest, -3 committed).
	Offset int64 `json:"offset"`
	// Marker is set when Offset is a marker.
	Marker Marker `json:"marker,omitempty"`
}

// Positions returns one position per partition, ordered by topic and
// partition: every reader split's next offset (or marker), and for
// partitions the enumerator had not assigned yet, the offset it created
// their split with (v3) or the earliest marker (v2: a restored KafkaSource
// starts them with its offsets initializer, EARLIEST for partitions found
// after startup). A partition in two readers' state keeps the lower
// offset. Notes say what was left out.
func (k *KafkaState) Positions() (ps []KafkaPosition, notes []string) {
	type tp struct {
		t string
		p int32
	}
	seen := map[tp]int{}
	for _, s := range k.Splits {
		key := tp{s.Topic, s.Partition}
		pos := KafkaPosition{Topic: s.Topic, Partition: s.Partition, Offset: s.StartingOffset, Marker: s.Marker()}
		if i, ok := seen[key]; ok {
			notes = append(notes, fmt.Sprintf("%s/%d is in the state of two readers (subtask %d at %d): the lower offset is kept", s.Topic, s.Partition, s.Subtask, s.StartingOffset))
			if pos.Marker == MarkerNone && (ps[i].Marker != MarkerNone || pos.Offset < ps[i].Offset) {
				ps[i] = pos
			}
			continue
		}
		seen[key] = len(ps)
		ps = append(ps, pos)
	}
	var missing []string
	if e := k.Enumerator; e != nil {
		for _, p := range e.Partitions {
			key := tp{p.Topic, p.Partition}
			if _, ok := seen[key]; ok {
				continue
			}
			if p.Status != StatusUnassigned {
				missing = append(missing, fmt.Sprintf("%s/%d", p.Topic, p.Partition))
				continue
			}
			pos := KafkaPosition{Topic: p.Topic, Partition: p.Partition, Offset: OffsetEarliest, Marker: MarkerEarliest}
			if p.Split != nil && p.Split.StartingOffset != OffsetNone {
				pos.Offset, pos.Marker = p.Split.StartingOffset, p.Split.Marker()
			}
			notes = append(notes, fmt.Sprintf("%s/%d was not assigned to a reader yet: it starts where the enumerator would start it (%s)", p.Topic, p.Partition, describe(pos)))
			seen[key] = len(ps)
			ps = append(ps, pos)
		}
	}
	if len(missing) > 0 {
		notes = append(notes, fmt.Sprintf("assigned by the enumerator but in no reader's state (finished bounded splits): %v", missing))
	}
	slices.SortFunc(ps, func(a, b KafkaPosition) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	return ps, notes
}

func describe(p KafkaPosition) string {
	if p.Marker != MarkerNone {
		return string(p.Marker)
	}
	return fmt.Sprintf("offset %d", p.Offset)
}

// PaimonPosition is the snapshot a Paimon source continues from.
type PaimonPosition struct {
	// NextSnapshot is the first snapshot id to read.
	NextSnapshot int64 `json:"next_snapshot"`
	// Table is the table's directory when a split's bucket path names it.
	Table string `json:"table,omitempty"`
	// Full is set when the resume point is a split of the initial full
	// read (scan.mode from-snapshot-full then, not from-snapshot).
	Full bool `json:"full,omitempty"`
	// Exact is set when the position is the next snapshot to plan and no
	// split was unfinished (MonitorSource, the legacy MonitorFunction, or an
	// enumerator without pending or reader splits): every earlier snapshot
	// was read. Otherwise NextSnapshot is the snapshot of an unfinished
	// split, and its records already emitted are read again.
	Exact bool `json:"exact,omitempty"`
}

// Position returns where the Paimon source continues: for
// ContinuousFileStoreSource the smallest of the enumerator's next snapshot
// and the snapshot ids of every unfinished split (pending in the enumerator
// or in a reader); for MonitorSource its next snapshot to plan; for the
// legacy MonitorFunction the smallest "next-snapshot" value. ok is false
// when the state holds no snapshot id (nothing planned yet); why says why.
func (p *PaimonState) Position() (pos PaimonPosition, ok bool, why string) {
	best := int64(-1)
	full := false
	consider := func(id int64, isFull bool) {
		if id < 0 {
			return
		}
		if best < 0 || id < best || id == best && isFull {
			best, full = id, isFull
		}
	}
	table := ""
	for _, list := range [][]PaimonSplit{p.Splits, p.enumSplits()} {
		for _, s := range list {
			consider(s.Snapshot, s.StreamingKnown && !s.Streaming)
			if table == "" {
				table = s.Table()
			}
		}
	}
	if p.Enumerator != nil {
		consider(p.Enumerator.NextSnapshot, false)
	}
	for _, m := range p.Monitor {
		if m.Kind == MonitorCheckpoint {
			consider(m.NextSnapshot, false)
		}
	}
	for _, n := range p.LegacyNextSnapshots {
		consider(n, false)
	}
	if best < 0 {
		switch {
		case len(p.Monitor) > 0:
			return pos, false, "MonitorSource state has no next snapshot (\"CS\" value): the source had not planned a snapshot yet"
		default:
			return pos, false, "no snapshot id in the state: the source had not planned a snapshot yet"
		}
	}
	exact := len(p.Splits) == 0 && len(p.enumSplits()) == 0
	return PaimonPosition{NextSnapshot: best, Table: table, Full: full, Exact: exact}, true, ""
}

func (p *PaimonState) enumSplits() []PaimonSplit {
	if p.Enumerator == nil {
		return nil
	}
	return p.Enumerator.Splits
}

// MySQLPosition is the binlog position a MySQL CDC source continues from.
type MySQLPosition struct {
	File       string `json:"file"`
	Pos        int64  `json:"pos"`
	GTIDs      string `json:"gtids"`
	SkipEvents int64  `json:"skip_events"`
	SkipRows   int64  `json:"skip_rows"`
	TsSec      int64  `json:"ts_sec"`
	// Kind is the offset's kind when it is not SPECIFIC (an EARLIEST,
	// LATEST or TIMESTAMP start the reader had not resolved yet).
	Kind string `json:"kind,omitempty"`
}

// ErrSnapshotPhase is the reason a MySQL CDC source has no binlog position:
// it was still reading the tables' initial snapshot. Check with errors.Is.
var ErrSnapshotPhase = errors.New("sourcestate: MySQL CDC source still in the snapshot phase: no binlog position (a restart without state must snapshot again: scan.startup.mode=initial)")

// Position returns the binlog split's starting offset from the reader
// state: where the reader continues. It fails with ErrSnapshotPhase when
// there is no binlog split and the source was reading snapshot splits (or
// its enumerator was in the snapshot phase), and with another error when
// the state holds no binlog position for another reason.
func (m *MySQLState) Position() (MySQLPosition, []string, error) {
	var binlog []MySQLSplit
	snapshot := 0
	for _, s := range m.Splits {
		if s.Binlog {
			binlog = append(binlog, s)
		} else {
			snapshot++
		}
	}
	var notes []string
	switch {
	case len(binlog) == 0 && (snapshot > 0 || m.Enumerator != nil && (m.Enumerator.Phase == PhaseSnapshot || m.Enumerator.Phase == PhaseHybrid)):
		return MySQLPosition{}, nil, ErrSnapshotPhase
	case len(binlog) == 0:
		return MySQLPosition{}, nil, fmt.Errorf("sourcestate: no binlog split in the MySQL CDC reader state")
	case len(binlog) > 1:
		return MySQLPosition{}, nil, fmt.Errorf("sourcestate: %d binlog splits in the MySQL CDC reader state, want one", len(binlog))
	}
	b := binlog[0]
	if b.Start == nil {
		return MySQLPosition{}, nil, fmt.Errorf("sourcestate: the MySQL CDC binlog split %q records no starting offset", b.ID)
	}
	if snapshot > 0 {
		notes = append(notes, fmt.Sprintf("%d snapshot splits beside the binlog split (newly added tables were being snapshotted): their tables need a snapshot again", snapshot))
	}
	o := b.Start
	p := MySQLPosition{File: o.File, Pos: o.Pos, GTIDs: o.GTIDs, SkipEvents: o.SkipEvents, SkipRows: o.SkipRows, TsSec: o.TsSec}
	if o.Kind != BinlogSpecific {
		p.Kind = o.Kind
	}
	return p, notes, nil
}
