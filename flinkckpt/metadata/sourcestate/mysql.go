package sourcestate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// MySQL CDC split kinds (MySqlSplitSerializer).
const (
	mysqlSnapshotSplit = 1
	mysqlBinlogSplit   = 2
)

// Newest MySqlSplitSerializer and PendingSplitsStateSerializer versions known.
const (
	maxMySQLSplitVersion      = 4
	maxMySQLEnumeratorVersion = 6
)

// BinlogOffset kinds (BinlogOffsetKind); an offset written before the kind
// existed gets one as Flink CDC gives it on restore.
const (
	BinlogEarliest    = "EARLIEST"
	BinlogLatest      = "LATEST"
	BinlogTimestamp   = "TIMESTAMP"
	BinlogSpecific    = "SPECIFIC"
	BinlogNonStopping = "NON_STOPPING"
)

// BinlogOffset is a Flink CDC MySQL binlog position (BinlogOffset): the
// Debezium offset map, all values strings.
type BinlogOffset struct {
	// Kind is one of the Binlog… kinds.
	Kind string
	// File and Pos are the binlog file and the position of the transaction
	// start; SkipEvents and SkipRows are the events and rows after it that
	// were already emitted.
	File       string
	Pos        int64
	SkipEvents int64
	SkipRows   int64
	// GTIDs is the executed GTID set ("" without GTIDs).
	GTIDs string
	// TsSec is the binlog event time in seconds (0 when not recorded).
	TsSec    int64
	ServerID int64
	// Map is the offset map as stored.
	Map map[string]string
}

// MySQLSplit is a split of Flink CDC's MySQL source (MySqlSplitSerializer
// versions 1 to 4): a snapshot split (one chunk of a table's initial read)
// or the binlog split.
type MySQLSplit struct {
	// Subtask holding the split in reader state.
	Subtask int32
	// Binlog reports the binlog split; otherwise it is a snapshot split.
	Binlog bool
	ID     string
	// Table is a snapshot split's table id; HighWatermark its binlog
	// position at the end of the chunk's read.
	Table         string
	HighWatermark *BinlogOffset
	// Start is the binlog split's position: where the reader continues
	// (nil when not recorded); End its ending offset.
	Start, End *BinlogOffset
	// FinishedSnapshotSplits is the number of finished snapshot splits the
	// binlog split carries; Tables the number of table schemas.
	FinishedSnapshotSplits int
	Tables                 int
	// TotalFinishedSplitSize (v3+) and Suspended (v4, written by CDC 2.3+).
	TotalFinishedSplitSize int32
	Suspended              bool
}

// parseMySQLSplit decodes a Flink CDC MySQL split of serializer version 1
// to 4.
func parseMySQLSplit(version int32, data []byte) (MySQLSplit, error) {
	c := newVersionedCursor("MySQL CDC split", version, data)
	s := MySQLSplit{Subtask: -1}
	if version < 1 || version > maxMySQLSplitVersion {
		c.Fail("unknown MySqlSplitSerializer version %d (known: 1 to %d)", version, maxMySQLSplitVersion)
		return s, c.Err
	}
	switch kind := c.I32("split kind"); {
	case c.Err != nil:
	case kind == mysqlSnapshotSplit:
		s.Table = c.UTF("table id")
		s.ID = c.UTF("split id")
		c.UTF("split key type")
		c.UTF("split start")
		c.UTF("split end")
		s.HighWatermark = binlogOffset(c, version, "high watermark")
		s.Tables = tableSchemas(c, version)
	case kind == mysqlBinlogSplit:
		s.Binlog = true
		s.ID = c.UTF("split id")
		if c.Err == nil && s.ID == StreamSplitID {
			// flink-cdc-base's stream split (Postgres and the other base
			// connectors) coincides byte for byte with a binlog split
			// without finished snapshot splits: its id tells.
			c.Fail("split id %q is flink-cdc-base's stream split, not MySQL CDC's binlog split", s.ID)
			break
		}
		c.UTF("split key type placeholder")
		s.Start = binlogOffset(c, version, "starting offset")
		if s.Start != nil {
			if _, pg := s.Start.Map["lsn"]; pg {
				c.Fail("starting offset has key lsn: a Postgres offset, not a binlog position")
			}
		}
		s.End = binlogOffset(c, version, "ending offset")
		n := c.Count("finished snapshot split count", 11)
		for i := 0; i < n && c.Err == nil; i++ {
			c.UTF("finished split table id")
			c.UTF("finished split id")
			c.UTF("finished split start")
			c.UTF("finished split end")
			binlogOffset(c, version, "finished split high watermark")
		}
		s.FinishedSnapshotSplits = n
		s.Tables = tableSchemas(c, version)
		s.TotalFinishedSplitSize = int32(n)
		if version >= 3 {
			s.TotalFinishedSplitSize = c.I32("total finished split size")
		}
		if version >= 4 && c.Left() > 0 {
			// Absent when written by Flink CDC 2.2 and older.
			s.Suspended = c.Boolean("suspended")
		}
	default:
		c.Off -= 4
		c.Fail("split kind %d, want 1 (snapshot) or 2 (binlog)", kind)
	}
	c.End()
	return s, c.Err
}

func tableSchemas(c *cursor, version int32) int {
	n := c.Count("table schema count", 3)
	for i := 0; i < n && c.Err == nil; i++ {
		c.UTF("table id")
		if version == 1 {
			c.UTF("table schema")
		} else {
			c.Bytes("table schema")
		}
	}
	return n
}

// binlogOffset reads SerializerUtils.writeBinlogPosition: boolean present,
// then (v1) UTF file + int64 position or (v2+) int32 length + JSON of the
// offset map.
func binlogOffset(c *cursor, version int32, field string) *BinlogOffset {
	if !c.Boolean(field + " present") {
		return nil
	}
	o := &BinlogOffset{}
	if version == 1 {
		o.File = c.UTF(field + " file")
		o.Pos = c.I64(field + " position")
		o.Map = map[string]string{"file": o.File, "pos": strconv.FormatInt(o.Pos, 10)}
		o.Kind = legacyKind(o.File, o.Pos)
		return o
	}
	start := c.Off
	b := c.Bytes(field)
	if c.Err != nil {
		return nil
	}
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil || dec.More() {
		if err == nil {
			err = fmt.Errorf("trailing data")
		}
		c.Off = start
		c.Fail("%s: not a JSON object: %v", field, err)
		return nil
	}
	o.Map = make(map[string]string, len(raw))
	for k, v := range raw {
		switch x := v.(type) {
		case string:
			o.Map[k] = x
		case json.Number:
			o.Map[k] = x.String()
		case nil:
		default:
			c.Off = start
			c.Fail("%s: value of %q is not a string", field, k)
			return nil
		}
	}
	num := func(key string) int64 {
		v, ok := o.Map[key]
		if !ok || c.Err != nil {
			return 0
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			c.Off = start
			c.Fail("%s: %s %q is not a number", field, key, v)
		}
		return n
	}
	o.File = o.Map["file"]
	o.Pos = num("pos")
	o.SkipEvents = num("event")
	o.SkipRows = num("row")
	o.GTIDs = o.Map["gtids"]
	o.TsSec = num("ts_sec")
	o.ServerID = num("server_id")
	o.Kind = o.Map["kind"]
	switch o.Kind {
	case "":
		o.Kind = legacyKind(o.File, o.Pos)
	case BinlogEarliest, BinlogLatest, BinlogTimestamp, BinlogSpecific, BinlogNonStopping:
	default:
		if c.Err == nil {
			c.Off = start
			c.Fail("%s: unknown offset kind %q", field, o.Kind)
		}
	}
	if c.Err != nil {
		return nil
	}
	return o
}

// legacyKind is the kind Flink CDC gives an offset without one
// (SerializerUtils.readBinlogPosition).
func legacyKind(file string, pos int64) string {
	switch {
	case file == "" && pos == math.MinInt64:
		return BinlogNonStopping
	case file == "" && pos == 0:
		return BinlogEarliest
	}
	return BinlogSpecific
}

// Keys returns the offset map's keys in order.
func (o *BinlogOffset) Keys() []string {
	keys := make([]string, 0, len(o.Map))
	for k := range o.Map {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
