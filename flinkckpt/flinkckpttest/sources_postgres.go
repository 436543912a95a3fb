package flinkckpttest

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// postgresOffsetFactoryHex is the hex of the Java-serialized
// org.apache.flink.cdc…PostgresOffsetFactory a finished snapshot split
// info carries (SOURCE-STATE.md §8.2.6): only its framing matters here.
const postgresOffsetFactoryHex = "aced0005737200"

// PostgresSplit returns a flink-cdc-base split of Flink CDC's Postgres
// source as SourceSplitSerializer of version (2 to 6) writes it: the
// stream split (s.Stream, id "stream-split" unless s.ID says otherwise)
// with its starting and ending offsets, s.FinishedSnapshotSplits finished
// snapshot split infos and no table schemas; or a snapshot split of
// s.Table with its high watermark. Offsets are written from their Map when
// set, else from LSN, TxID (when ≥ 0) and TsUsec.
func PostgresSplit(version int32, s sourcestate.PostgresSplit) (sourcestate.RawSplit, error) {
	if version < 2 || version > 6 {
		return sourcestate.RawSplit{}, fmt.Errorf("flinkckpttest: SourceSplitSerializer version %d is not one with JSON offsets (2 to 6)", version)
	}
	e := &encoder{}
	table := s.Table
	if table == "" {
		table = `"public"."orders"`
	}
	if s.Stream {
		e.i32(2)
		id := s.ID
		if id == "" {
			id = sourcestate.StreamSplitID
		}
		e.utf(id)
		e.utf("")
		postgresOffsetBytes(e, s.Start)
		postgresOffsetBytes(e, s.End)
		e.i32(int32(s.FinishedSnapshotSplits))
		for i := 0; i < s.FinishedSnapshotSplits; i++ {
			e.utf("public.orders")
			e.utf(fmt.Sprintf("public.orders:%d", i))
			e.utf("aced000570")
			e.utf("aced000570")
			e.utf(postgresOffsetFactoryHex)
			postgresOffsetBytes(e, s.Start)
			if version >= 4 {
				e.boolean(false)
			}
		}
		e.i32(0) // table schemas
		if version >= 3 {
			e.i32(s.TotalFinishedSplitSize)
		}
		if version >= 5 {
			e.boolean(s.Suspended)
		}
		if version >= 6 {
			e.boolean(s.SnapshotCompleted)
		}
	} else {
		e.i32(1)
		if version >= 4 {
			e.boolean(false)
		}
		e.utf(table)
		e.utf(s.ID)
		e.utf("ROW<`id` INT NOT NULL>")
		e.utf("aced000570")
		e.utf("aced000570")
		postgresOffsetBytes(e, s.HighWatermark)
		e.i32(0) // table schemas
	}
	if e.err != nil {
		return sourcestate.RawSplit{}, e.err
	}
	return sourcestate.RawSplit{Subtask: s.Subtask, Version: version, Data: e.b}, nil
}

// postgresOffsetBytes writes OffsetDeserializerSerializer.writeOffsetPosition:
// boolean present, int32 length, the offset map as JSON of strings.
func postgresOffsetBytes(e *encoder, o *sourcestate.PostgresOffset) {
	if o == nil {
		e.boolean(false)
		return
	}
	e.boolean(true)
	m := o.Map
	if m == nil {
		m = map[string]string{"lsn": strconv.FormatInt(o.LSN, 10), "ts_usec": strconv.FormatInt(o.TsUsec, 10)}
		if o.TxID >= 0 {
			m["txId"] = strconv.FormatInt(o.TxID, 10)
		}
		if o.LSNProc != 0 {
			m["lsn_proc"] = strconv.FormatInt(o.LSNProc, 10)
		}
	}
	b, err := json.Marshal(m)
	if err != nil && e.err == nil {
		e.err = err
	}
	e.bytes(b)
}

// PostgresEnumerator returns flink-cdc-base's pending-splits state of a
// stream-only job (flag 2) as PendingSplitsStateSerializer of version 5
// writes it, recording split serializer version splitVersion.
func PostgresEnumerator(splitVersion int32, streamSplitAssigned bool) *sourcestate.Coordinator {
	e := &encoder{}
	e.i32(splitVersion)
	e.i32(2)
	e.boolean(streamSplitAssigned)
	return &sourcestate.Coordinator{SerdeVersion: 1, Version: 5, Data: e.b}
}

// PostgresSource returns a Flink CDC Postgres source of parallelism 1 in
// the stream phase whose reader continues at WAL position lsn, transaction
// txID, commit time tsUsec (split serializer version 6, CDC 3.4+).
func PostgresSource(uid string, lsn, txID, tsUsec int64) Source {
	raw, _ := PostgresSplit(6, sourcestate.PostgresSplit{Stream: true,
		Start: &sourcestate.PostgresOffset{LSN: lsn, LSNProc: lsn, TxID: txID, TsUsec: tsUsec},
		End:   &sourcestate.PostgresOffset{Map: map[string]string{"lsn": "-1", "ts_usec": "-9223372036853775810"}}})
	return Source{UID: uid, Splits: []sourcestate.RawSplit{raw}, Coordinator: PostgresEnumerator(6, true)}
}
