package sourcestate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// KindPostgresCDC is Flink CDC's Postgres source (flink-cdc-base's
// IncrementalSource with the Postgres dialect).
const KindPostgresCDC Kind = "postgres-cdc"

// flink-cdc-base split kinds (SourceSplitSerializer) and ids.
const (
	baseSnapshotSplit = 1
	baseStreamSplit   = 2
	// StreamSplitID is flink-cdc-base's stream split id
	// (StreamSplit.STREAM_SPLIT_ID); MySQL CDC's binlog split is
	// "binlog-split".
	StreamSplitID = "stream-split"
)

// Oldest and newest flink-cdc-base SourceSplitSerializer versions that
// write the offset map as JSON (version 1 wrote a file and position, never
// used by Postgres).
const (
	minBaseSplitVersion = 2
	maxBaseSplitVersion = 6
)

// PostgresOffset is a Flink CDC Postgres offset (PostgresOffset): the
// Debezium offset map, all values strings.
type PostgresOffset struct {
	// LSN is the WAL position (lsn, a signed 64-bit decimal in the map);
	// LSNProc the last completely processed LSN (lsn_proc) and LSNCommit
	// the last commit's (lsn_commit), 0 when absent.
	LSN, LSNProc, LSNCommit int64
	// TxID is the transaction id (txId), -1 when absent; TsUsec the commit
	// time in microseconds (ts_usec; Long.MIN_VALUE for offsets taken from
	// the server, not from an event).
	TxID   int64
	TsUsec int64
	// Map is the offset map as stored.
	Map map[string]string
}

// LSNString is the LSN in PostgreSQL's text form, e.g. 0/16B3748.
func (o *PostgresOffset) LSNString() string { return FormatLSN(o.LSN) }

// FormatLSN renders a WAL position as PostgreSQL does: the high and low 32
// bits in hex, X/Y.
func FormatLSN(lsn int64) string {
	u := uint64(lsn)
	return fmt.Sprintf("%X/%X", u>>32, uint32(u))
}

// PostgresSplit is a split of Flink CDC's Postgres source (flink-cdc-base
// SourceSplitSerializer versions 2 to 6): a snapshot split (one chunk of a
// table's initial read) or the stream split.
type PostgresSplit struct {
	// Subtask holding the split in reader state.
	Subtask int32
	// Stream reports the stream split; otherwise it is a snapshot split.
	Stream bool
	ID     string
	// Table is a snapshot split's table id; HighWatermark its offset at
	// the end of the chunk's read (nil until read).
	Table         string
	HighWatermark *PostgresOffset
	// Start is the stream split's starting offset, where the reader
	// continues; End its ending offset.
	Start, End *PostgresOffset
	// FinishedSnapshotSplits and Tables count the stream split's finished
	// snapshot split infos and table schemas.
	FinishedSnapshotSplits int
	Tables                 int
	// TotalFinishedSplitSize (v3+), Suspended (v5+) and SnapshotCompleted
	// (v6+).
	TotalFinishedSplitSize int32
	Suspended              bool
	SnapshotCompleted      bool
}

// PostgresState is the state of a Flink CDC Postgres source.
type PostgresState struct {
	// Splits are the readers' splits: snapshot splits and the stream split.
	Splits []PostgresSplit
	// Enumerator is nil when there is no coordinator state or it could
	// not be decoded.
	Enumerator *PostgresEnumerator
}

// PostgresEnumerator is flink-cdc-base's enumerator state
// (PendingSplitsStateSerializer): its phase. Its bytes do not tell
// Postgres from MySQL CDC (identical for a stream-phase state); only the
// reader's splits do.
type PostgresEnumerator struct {
	// SplitVersion is the split serializer version it records; Flag 2
	// (stream only) or 3 (hybrid: snapshot state, then the stream split
	// flag).
	SplitVersion, Flag int32
	// StreamSplitAssigned: the snapshot phase is over (or there was none).
	StreamSplitAssigned bool
}

// parsePostgresEnumerator decodes flink-cdc-base's pending-splits state:
// its header and the stream-split-assigned flag (the snapshot part of a
// hybrid state, tables and split lists, is not decoded: the flag is its
// last byte).
func parsePostgresEnumerator(version int32, data []byte) (*PostgresEnumerator, error) {
	c := newVersionedCursor("flink-cdc-base enumerator state", version, data)
	e := &PostgresEnumerator{SplitVersion: c.I32("split serializer version"), Flag: c.I32("state flag")}
	switch {
	case c.Err != nil:
	case e.SplitVersion < minBaseSplitVersion || e.SplitVersion > maxBaseSplitVersion:
		c.Fail("split serializer version %d (known: %d to %d)", e.SplitVersion, minBaseSplitVersion, maxBaseSplitVersion)
	case e.Flag == 2:
		e.StreamSplitAssigned = c.Boolean("stream split assigned")
		c.End()
	case e.Flag == 3:
		if c.Left() < 1 {
			c.Fail("hybrid state without its stream split flag")
			break
		}
		b := data[len(data)-1]
		if b > 1 {
			c.Fail("hybrid state's last byte %d is no boolean", b)
		}
		e.StreamSplitAssigned = b == 1
	default:
		c.Fail("state flag %d, want 2 (stream) or 3 (hybrid)", e.Flag)
	}
	if c.Err != nil {
		return nil, c.Err
	}
	return e, nil
}

// parsePostgresSplit decodes a flink-cdc-base split of serializer version 2
// to 6 whose offsets are Postgres's (lsn, txId, ts_usec). It refuses a
// split it cannot tell is Postgres's: a stream split whose id is not
// "stream-split" (MySQL CDC's binlog split coincides byte for byte without
// finished splits) or whose offset keys are another database's, and a
// snapshot split without a high watermark (nothing in it names the
// database).
func parsePostgresSplit(version int32, data []byte) (PostgresSplit, error) {
	c := newVersionedCursor("flink-cdc-base split", version, data)
	s := PostgresSplit{Subtask: -1}
	if version < minBaseSplitVersion || version > maxBaseSplitVersion {
		c.Fail("unknown SourceSplitSerializer version %d (known: %d to %d)", version, minBaseSplitVersion, maxBaseSplitVersion)
		return s, c.Err
	}
	switch kind := c.I32("split kind"); {
	case c.Err != nil:
	case kind == baseSnapshotSplit:
		if version >= 4 {
			c.Boolean("use catalog before schema")
		}
		s.Table = c.UTF("table id")
		s.ID = c.UTF("split id")
		c.UTF("split key type")
		c.UTF("split start")
		c.UTF("split end")
		s.HighWatermark = postgresOffset(c, "high watermark")
		s.Tables = baseTableSchemas(c, version)
		if c.Err == nil && s.HighWatermark == nil {
			c.Fail("snapshot split %q has no high watermark: nothing in it says which database it reads (refusing to guess)", s.ID)
		}
	case kind == baseStreamSplit:
		s.Stream = true
		s.ID = c.UTF("split id")
		if c.Err == nil && s.ID != StreamSplitID {
			c.Fail("stream split id %q, want %q (MySQL CDC's binlog split is \"binlog-split\")", s.ID, StreamSplitID)
			break
		}
		c.UTF("split key type placeholder")
		s.Start = postgresOffset(c, "starting offset")
		s.End = postgresOffset(c, "ending offset")
		n := c.Count("finished snapshot split count", 11)
		for i := 0; i < n && c.Err == nil; i++ {
			c.UTF("finished split table id")
			c.UTF("finished split id")
			c.UTF("finished split start")
			c.UTF("finished split end")
			c.UTF("finished split offset factory")
			postgresOffset(c, "finished split high watermark")
			if version >= 4 {
				c.Boolean("finished split use catalog before schema")
			}
		}
		s.FinishedSnapshotSplits = n
		s.Tables = baseTableSchemas(c, version)
		s.TotalFinishedSplitSize = int32(n)
		if version >= 3 {
			s.TotalFinishedSplitSize = c.I32("total finished split size")
		}
		if version >= 5 {
			s.Suspended = c.Boolean("suspended")
		}
		if version >= 6 {
			s.SnapshotCompleted = c.Boolean("snapshot completed")
		}
		if c.Err == nil && s.Start == nil {
			c.Fail("stream split without a starting offset")
		}
	default:
		c.Off -= 4
		c.Fail("split kind %d, want 1 (snapshot) or 2 (stream)", kind)
	}
	c.End()
	return s, c.Err
}

func baseTableSchemas(c *cursor, version int32) int {
	n := c.Count("table schema count", 7)
	for i := 0; i < n && c.Err == nil; i++ {
		if version >= 4 {
			c.Boolean("table schema use catalog before schema")
		}
		c.UTF("table id")
		c.Bytes("table schema")
	}
	return n
}

// postgresOffset reads OffsetDeserializerSerializer.writeOffsetPosition:
// boolean present, int32 length, JSON of the offset map. An offset without
// lsn, or with MySQL's keys, is not Postgres's.
func postgresOffset(c *cursor, field string) *PostgresOffset {
	if !c.Boolean(field + " present") {
		return nil
	}
	start := c.Off
	b := c.Bytes(field)
	if c.Err != nil {
		return nil
	}
	var raw map[string]*string
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&raw); err != nil || dec.More() || raw == nil {
		if err == nil {
			err = errors.New("trailing data or null")
		}
		c.Off = start
		c.Fail("%s: not a JSON object of strings: %v", field, err)
		return nil
	}
	o := &PostgresOffset{TxID: -1, Map: make(map[string]string, len(raw))}
	for k, v := range raw {
		if v != nil {
			o.Map[k] = *v
		}
	}
	if _, ok := raw["lsn"]; !ok {
		c.Off = start
		keys := "none"
		for _, k := range []string{"file", "pos", "gtids", "scn", "commit_lsn", "resume_token"} {
			if _, ok := raw[k]; ok {
				keys = k
				break
			}
		}
		c.Fail("%s: no lsn key (another database's offset? key %s): not a Postgres offset", field, keys)
		return nil
	}
	num := func(key string, into *int64) {
		v, ok := o.Map[key]
		if !ok || c.Err != nil {
			return
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			c.Off = start
			c.Fail("%s: %s %q is not a number", field, key, v)
			return
		}
		*into = n
	}
	num("lsn", &o.LSN)
	num("lsn_proc", &o.LSNProc)
	num("lsn_commit", &o.LSNCommit)
	num("txId", &o.TxID)
	num("ts_usec", &o.TsUsec)
	if c.Err != nil {
		return nil
	}
	return o
}

// PostgresPosition is where a Flink CDC Postgres source continues: the
// stream split's starting offset.
type PostgresPosition struct {
	// Slot is the replication slot when known (the state does not record
	// it: slot.name is a table option).
	Slot string `json:"slot,omitempty"`
	// LSN is the WAL position in PostgreSQL's text form (X/Y).
	LSN string `json:"lsn"`
	// TxID (txId) and TsUsec (ts_usec) when the offset records them.
	TxID   *int64 `json:"tx_id,omitempty"`
	TsUsec *int64 `json:"ts_usec,omitempty"`
}

// LSNValue is the LSN as a number (0 when LSN does not parse).
func (p PostgresPosition) LSNValue() int64 {
	v, _ := ParseLSN(p.LSN)
	return v
}

// ParseLSN reads PostgreSQL's text form of a WAL position, X/Y.
func ParseLSN(s string) (int64, error) {
	hi, lo, ok := strings.Cut(s, "/")
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if !ok || err1 != nil || err2 != nil {
		return 0, fmt.Errorf("sourcestate: LSN %q is not X/Y in hex", s)
	}
	return int64(h<<32 | l), nil
}

// ErrPostgresSnapshotPhase is the reason a Postgres CDC source has no WAL
// position: it was still reading the tables' initial snapshot. Check with
// errors.Is.
var ErrPostgresSnapshotPhase = errors.New("sourcestate: Postgres CDC source still in the snapshot phase: no WAL position (a restart without state must snapshot again: scan.startup.mode=initial)")

// Position returns the stream split's starting offset: where the reader
// continues. It fails with ErrPostgresSnapshotPhase when there is no stream
// split and the source was reading snapshot splits (or its enumerator had
// not assigned the stream split), and with another error otherwise.
func (p *PostgresState) Position() (PostgresPosition, []string, error) {
	var stream []PostgresSplit
	snapshot := 0
	for _, s := range p.Splits {
		if s.Stream {
			stream = append(stream, s)
		} else {
			snapshot++
		}
	}
	switch {
	case len(stream) == 0 && (snapshot > 0 || p.Enumerator != nil && !p.Enumerator.StreamSplitAssigned):
		return PostgresPosition{}, nil, ErrPostgresSnapshotPhase
	case len(stream) == 0:
		return PostgresPosition{}, nil, errors.New("sourcestate: no stream split in the Postgres CDC reader state")
	case len(stream) > 1:
		return PostgresPosition{}, nil, fmt.Errorf("sourcestate: %d stream splits in the Postgres CDC reader state, want one", len(stream))
	}
	var notes []string
	if snapshot > 0 {
		notes = append(notes, fmt.Sprintf("%d snapshot splits beside the stream split (newly added tables were being snapshotted): their tables need a snapshot again", snapshot))
	}
	o := stream[0].Start
	pos := PostgresPosition{LSN: o.LSNString()}
	if o.TxID >= 0 {
		v := o.TxID
		pos.TxID = &v
	}
	if _, ok := o.Map["ts_usec"]; ok {
		v := o.TsUsec
		pos.TsUsec = &v
	}
	return pos, notes, nil
}
