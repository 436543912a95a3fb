package sourcestate_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

func pgOffset(lsn, tx, ts int64) *sourcestate.PostgresOffset {
	return &sourcestate.PostgresOffset{LSN: lsn, LSNProc: lsn, TxID: tx, TsUsec: ts}
}

var pgEnd = &sourcestate.PostgresOffset{Map: map[string]string{"lsn": "-1", "ts_usec": "-9223372036853775810"}}

// postgresSeeds are the encoder's splits: stream splits of every version
// with and without finished snapshot split infos, and a read snapshot
// split, plus enumerator states.
func postgresSeeds() []sourcestate.RawSplit {
	var out []sourcestate.RawSplit
	for v := int32(2); v <= 6; v++ {
		for _, finished := range []int{0, 2} {
			raw, err := flinkckpttest.PostgresSplit(v, sourcestate.PostgresSplit{Stream: true, Start: pgOffset(23803720, 767, 1764583200123456), End: pgEnd,
				FinishedSnapshotSplits: finished, TotalFinishedSplitSize: int32(finished)})
			if err != nil {
				panic(err)
			}
			out = append(out, raw)
		}
		raw, _ := flinkckpttest.PostgresSplit(v, sourcestate.PostgresSplit{ID: "public.orders:0", HighWatermark: pgOffset(23800000, 700, -9223372036854775808)})
		out = append(out, raw)
	}
	co := flinkckpttest.PostgresEnumerator(6, true)
	out = append(out, sourcestate.RawSplit{Version: co.Version, Data: co.Data})
	return out
}

// Every version's stream split decodes to its starting offset, lsn in
// PostgreSQL's text form, tx id and commit time; the finished snapshot
// split infos and the version-dependent flags are read.
func TestPostgresSplitVersions(t *testing.T) {
	for v := int32(2); v <= 6; v++ {
		raw, err := flinkckpttest.PostgresSplit(v, sourcestate.PostgresSplit{Stream: true, Start: pgOffset(23803720, 767, 1764583200123456), End: pgEnd,
			FinishedSnapshotSplits: 3, TotalFinishedSplitSize: 3, Suspended: v >= 5, SnapshotCompleted: v >= 6})
		if err != nil {
			t.Fatal(err)
		}
		s, err := sourcestate.ParsePostgresSplit(v, raw.Data)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		if !s.Stream || s.ID != "stream-split" || s.Start.LSN != 23803720 || s.Start.LSNString() != "0/16B3748" || s.Start.TxID != 767 || s.Start.TsUsec != 1764583200123456 ||
			s.FinishedSnapshotSplits != 3 || s.Suspended != (v >= 5) || s.SnapshotCompleted != (v >= 6) || s.End.LSN != -1 {
			t.Errorf("v%d: %+v", v, s)
		}
		// MySQL CDC's decoder refuses the same bytes.
		if v <= 4 {
			if _, err := sourcestate.ParseMySQLSplit(v, raw.Data); err == nil {
				t.Errorf("v%d: a Postgres stream split decodes as a MySQL binlog split", v)
			}
		}
	}
}

// The case where the bytes coincide: a base v5 stream split without
// finished splits or schemas has the layout of a MySQL v4 binlog split.
// The split id and the offset keys tell them apart; each decoder refuses
// the other's split.
func TestPostgresVersusMySQL(t *testing.T) {
	pg, _ := flinkckpttest.PostgresSplit(4, sourcestate.PostgresSplit{Stream: true, Start: pgOffset(100, 1, 2), End: pgEnd})
	my, _ := flinkckpttest.MySQLSplit(4, sourcestate.MySQLSplit{Binlog: true, Start: &sourcestate.BinlogOffset{Kind: sourcestate.BinlogSpecific, File: "mysql-bin.000003", Pos: 154}, End: &sourcestate.BinlogOffset{Kind: sourcestate.BinlogNonStopping}})
	if _, err := sourcestate.ParseMySQLSplit(4, pg.Data); err == nil || !strings.Contains(err.Error(), "stream split") {
		t.Errorf("MySQL decoder on a Postgres split: %v", err)
	}
	if _, err := sourcestate.ParsePostgresSplit(4, my.Data); err == nil || !strings.Contains(err.Error(), "binlog-split") {
		t.Errorf("Postgres decoder on a MySQL split: %v", err)
	}
	// A stream split whose id is flink-cdc-base's but whose offsets are
	// MySQL's keys: neither (another base connector would look alike).
	other, _ := flinkckpttest.PostgresSplit(4, sourcestate.PostgresSplit{Stream: true, Start: &sourcestate.PostgresOffset{Map: map[string]string{"scn": "42"}}, End: pgEnd})
	if _, err := sourcestate.ParsePostgresSplit(4, other.Data); err == nil || !strings.Contains(err.Error(), "no lsn key") {
		t.Errorf("offset without lsn: %v", err)
	}
	// A snapshot split that was not read yet names no database: refused.
	unread, _ := flinkckpttest.PostgresSplit(5, sourcestate.PostgresSplit{ID: "public.orders:3"})
	if _, err := sourcestate.ParsePostgresSplit(5, unread.Data); err == nil || !strings.Contains(err.Error(), "refusing to guess") {
		t.Errorf("unread snapshot split: %v", err)
	}
}

// Through _metadata: a Postgres CDC source is recognised by its reader
// state, decoded with its enumerator, and summarised as postgres-cdc with
// {lsn, tx_id, ts_usec}; a source still in its snapshot phase has no
// position.
func TestPostgresDecode(t *testing.T) {
	for _, st := range storage {
		t.Run(st.name, func(t *testing.T) {
			src := flinkckpttest.PostgresSource("pg-source", 23803720, 767, 1764583200123456)
			src.Compressed, src.InFile = st.compressed, st.file
			s := decodeSources(t, 5, src).Sources[0]
			if s.Kind != sourcestate.KindPostgresCDC || s.Postgres == nil || s.Postgres.Enumerator == nil || !s.Postgres.Enumerator.StreamSplitAssigned {
				t.Fatalf("%+v", s)
			}
			sum := s.Summary()
			tx, ts := int64(767), int64(1764583200123456)
			if diff := cmp.Diff([]any{sourcestate.PostgresPosition{LSN: "0/16B3748", TxID: &tx, TsUsec: &ts}}, sum.Positions); diff != "" {
				t.Errorf("positions (-want +got):\n%s", diff)
			}
		})
	}
	raw, _ := flinkckpttest.PostgresSplit(6, sourcestate.PostgresSplit{ID: "public.orders:0", HighWatermark: pgOffset(5, 1, 1)})
	s := decodeSources(t, 5, flinkckpttest.Source{UID: "pg", Splits: []sourcestate.RawSplit{raw}, Coordinator: flinkckpttest.PostgresEnumerator(6, false)}).Sources[0]
	if s.Kind != sourcestate.KindPostgresCDC {
		t.Fatalf("%+v", s)
	}
	if _, _, err := s.Postgres.Position(); !errors.Is(err, sourcestate.ErrPostgresSnapshotPhase) {
		t.Errorf("snapshot phase: %v", err)
	}
}

func TestParseLSN(t *testing.T) {
	for _, lsn := range []int64{0, 23803720, 1<<32 + 5, -1} {
		s := sourcestate.FormatLSN(lsn)
		back, err := sourcestate.ParseLSN(s)
		if err != nil || back != lsn {
			t.Errorf("%d → %s → %d, %v", lsn, s, back, err)
		}
	}
	if _, err := sourcestate.ParseLSN("16B3748"); err == nil {
		t.Error("no slash accepted")
	}
}

// FuzzPostgres: flink-cdc-base splits and enumerator states; what decodes
// as a stream split survives a round trip through flinkckpttest's encoder.
func FuzzPostgres(f *testing.F) {
	for _, s := range postgresSeeds() {
		f.Add(s.Version, s.Data)
	}
	f.Fuzz(func(t *testing.T, version int32, data []byte) {
		sourcestate.ParsePostgresEnumerator(version, data)
		s, err := sourcestate.ParsePostgresSplit(version, data)
		if err != nil || !s.Stream {
			return
		}
		raw, err := flinkckpttest.PostgresSplit(version, sourcestate.PostgresSplit{Stream: true, Start: s.Start, End: s.End,
			TotalFinishedSplitSize: s.TotalFinishedSplitSize, Suspended: s.Suspended, SnapshotCompleted: s.SnapshotCompleted})
		if err != nil {
			return
		}
		back, err := sourcestate.ParsePostgresSplit(version, raw.Data)
		if err != nil {
			t.Fatalf("re-encoded split does not decode: %v", err)
		}
		if back.Start.LSN != s.Start.LSN || back.Start.TxID != s.Start.TxID || back.Start.TsUsec != s.Start.TsUsec {
			t.Fatalf("round trip: %+v vs %+v", s.Start, back.Start)
		}
	})
}
