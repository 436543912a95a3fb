package paimon_test

import (
	"errors"
	"testing"
	"time"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
)

// TestFixtureTables reads the real tables Paimon wrote: earliest, latest,
// every snapshot, and the time search around every commit time, checked
// against a linear scan.
func TestFixtureTables(t *testing.T) {
	b := extractFixture(t)
	for _, tc := range []struct {
		table            string
		earliest, latest int64
	}{
		{"test_pk_vector_golden", 1, 2},
		{"test_pk_global_index_golden", 1, 6},
		{"test_pk_full_text_golden", 1, 8},
	} {
		t.Run(tc.table, func(t *testing.T) {
			tbl := openTable(t, b, "default.db/"+tc.table, nil)
			if tbl.Name() != "default."+tc.table {
				t.Errorf("Name() = %q", tbl.Name())
			}
			e, err := tbl.EarliestSnapshot(bg)
			if err != nil || e.ID != tc.earliest {
				t.Fatalf("EarliestSnapshot = %v, %v; want %d", e, err, tc.earliest)
			}
			l, err := tbl.LatestSnapshot(bg)
			if err != nil || l.ID != tc.latest {
				t.Fatalf("LatestSnapshot = %v, %v; want %d", l, err, tc.latest)
			}
			ids, err := tbl.SnapshotIDs(bg)
			if err != nil || len(ids) != int(tc.latest-tc.earliest+1) {
				t.Fatalf("SnapshotIDs = %v, %v", ids, err)
			}
			var snaps []*paimon.Snapshot
			for id := tc.earliest; id <= tc.latest; id++ {
				s, err := tbl.Snapshot(bg, id)
				if err != nil {
					t.Fatal(err)
				}
				if s.Version != 3 || s.SchemaID != 0 || s.CommitKind == "" || s.TimeMillis < 1700000000000 {
					t.Errorf("snapshot-%d: %+v", id, s)
				}
				snaps = append(snaps, s)
			}
			// Probe every commit time and the milliseconds around it.
			for _, s := range snaps {
				for _, d := range []time.Duration{-time.Millisecond, 0, time.Millisecond} {
					at := s.Time.Add(d)
					checkSearch(t, tbl, snaps, at)
				}
			}
			checkSearch(t, tbl, snaps, snaps[0].Time.Add(-time.Hour))
			checkSearch(t, tbl, snaps, snaps[len(snaps)-1].Time.Add(time.Hour))

			schema, err := tbl.LatestSchema(bg)
			if err != nil || schema.ID != 0 || schema.Options["bucket"] != "1" {
				t.Errorf("LatestSchema = %+v, %v", schema, err)
			}
			// The table has no consumer yet: by time it starts at snapshot 2.
			r, err := paimon.NewResolver(tbl, "job", &paimon.Options{StartTime: snaps[1].Time})
			if err != nil {
				t.Fatal(err)
			}
			c, err := r.Resolve(bg)
			if err != nil {
				t.Fatal(err)
			}
			p, _ := paimon.PositionOf(c.Position)
			if p.NextSnapshot != 2 || c.Guarantee != resume.Replay || !c.At.Equal(snaps[0].Time) {
				t.Errorf("by time: next %d guarantee %v at %v", p.NextSnapshot, c.Guarantee, c.At)
			}
		})
	}
}

// checkSearch compares the binary searches with a linear scan at at.
func checkSearch(t *testing.T, tbl *paimon.Table, snaps []*paimon.Snapshot, at time.Time) {
	t.Helper()
	ms := at.UnixMilli()
	var wantLE, wantGE *paimon.Snapshot
	wantStart := snaps[len(snaps)-1].ID + 1
	for _, s := range snaps {
		if s.TimeMillis <= ms {
			wantLE = s
		}
		if s.TimeMillis >= ms && wantGE == nil {
			wantGE = s
		}
	}
	for i := len(snaps) - 1; i >= 0; i-- {
		if snaps[i].TimeMillis >= ms {
			wantStart = snaps[i].ID
		}
	}
	le, err := tbl.EarlierOrEqual(bg, at)
	if wantLE == nil {
		if !errors.Is(err, paimon.ErrSnapshotNotFound) {
			t.Errorf("EarlierOrEqual(%d) = %v, %v; want ErrSnapshotNotFound", ms, le, err)
		}
	} else if err != nil || le.ID != wantLE.ID {
		t.Errorf("EarlierOrEqual(%d) = %v, %v; want snapshot-%d", ms, le, err, wantLE.ID)
	}
	ge, err := tbl.LaterOrEqual(bg, at)
	if wantGE == nil {
		if !errors.Is(err, paimon.ErrSnapshotNotFound) {
			t.Errorf("LaterOrEqual(%d) = %v, %v; want ErrSnapshotNotFound", ms, ge, err)
		}
	} else if err != nil || ge.ID != wantGE.ID {
		t.Errorf("LaterOrEqual(%d) = %v, %v; want snapshot-%d", ms, ge, err, wantGE.ID)
	}
	st, err := tbl.StreamingStartAt(bg, at)
	if err != nil || st.Next != wantStart {
		t.Errorf("StreamingStartAt(%d) = %+v, %v; want next %d", ms, st, err, wantStart)
	}
}
