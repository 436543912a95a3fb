package sourcestate_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// TestPartitionInTwoReadersKeepsTheLowerOffset: after a rescale two
// readers' state can hold one partition; the lower offset is kept whichever
// reader comes first (starting higher would skip records), and an offset
// beats a marker. Equal offsets stay as they are.
func TestPartitionInTwoReadersKeepsTheLowerOffset(t *testing.T) {
	split := func(sub int32, off int64) sourcestate.KafkaSplit {
		return sourcestate.KafkaSplit{Subtask: sub, Topic: "t", Partition: 0, StartingOffset: off, StoppingOffset: sourcestate.OffsetNone}
	}
	for _, tc := range []struct {
		name   string
		splits []sourcestate.KafkaSplit
		want   sourcestate.KafkaPosition
	}{
		{"LowerFirst", []sourcestate.KafkaSplit{split(0, 10), split(1, 11)}, sourcestate.KafkaPosition{Topic: "t", Offset: 10}},
		{"LowerSecond", []sourcestate.KafkaSplit{split(0, 11), split(1, 10)}, sourcestate.KafkaPosition{Topic: "t", Offset: 10}},
		{"Equal", []sourcestate.KafkaSplit{split(0, 10), split(1, 10)}, sourcestate.KafkaPosition{Topic: "t", Offset: 10}},
		{"MarkerThenOffset", []sourcestate.KafkaSplit{split(0, sourcestate.OffsetLatest), split(1, 12)}, sourcestate.KafkaPosition{Topic: "t", Offset: 12}},
		{"OffsetThenMarker", []sourcestate.KafkaSplit{split(0, 12), split(1, sourcestate.OffsetEarliest)}, sourcestate.KafkaPosition{Topic: "t", Offset: 12}},
	} {
		ps, notes := (&sourcestate.KafkaState{Splits: tc.splits}).Positions()
		if diff := cmp.Diff([]sourcestate.KafkaPosition{tc.want}, ps); diff != "" {
			t.Errorf("%s: positions (-want +got):\n%s", tc.name, diff)
		}
		if len(notes) != 1 || !strings.Contains(notes[0], "in the state of two readers") {
			t.Errorf("%s: notes %q", tc.name, notes)
		}
	}
}

// TestUnassignedPartitionWithMigrationPlaceholderStartsEarliest: Flink's
// enumerator state v0 → v3 migration writes Long.MIN_VALUE (OffsetNone) as
// the starting offset of a partition not yet assigned; a restore starts it
// with the offsets initializer, EARLIEST for partitions found after
// startup. The position is the earliest marker, never offset −2^63; a
// recorded offset or marker is kept.
func TestUnassignedPartitionWithMigrationPlaceholderStartsEarliest(t *testing.T) {
	part := func(p int32, start int64, withSplit bool) sourcestate.KafkaPartition {
		kp := sourcestate.KafkaPartition{Topic: "t", Partition: p, Status: sourcestate.StatusUnassigned, Subtask: -1}
		if withSplit {
			kp.Split = &sourcestate.KafkaSplit{Subtask: -1, Topic: "t", Partition: p, StartingOffset: start, StoppingOffset: sourcestate.OffsetNone}
		}
		return kp
	}
	e := &sourcestate.KafkaEnumerator{Version: 3, Partitions: []sourcestate.KafkaPartition{
		part(0, sourcestate.OffsetNone, true), part(1, 0, true), part(2, 0, false), part(3, sourcestate.OffsetLatest, true), part(4, 1, true)}}
	ps, _ := (&sourcestate.KafkaState{Enumerator: e}).Positions()
	want := []sourcestate.KafkaPosition{
		{Topic: "t", Partition: 0, Offset: sourcestate.OffsetEarliest, Marker: sourcestate.MarkerEarliest},
		{Topic: "t", Partition: 1, Offset: 0},
		{Topic: "t", Partition: 2, Offset: sourcestate.OffsetEarliest, Marker: sourcestate.MarkerEarliest},
		{Topic: "t", Partition: 3, Offset: sourcestate.OffsetLatest, Marker: sourcestate.MarkerLatest},
		{Topic: "t", Partition: 4, Offset: 1},
	}
	if diff := cmp.Diff(want, ps); diff != "" {
		t.Errorf("positions (-want +got):\n%s", diff)
	}
	// The same through the decoder: the v3 enumerator bytes with the
	// placeholder.
	co, err := flinkckpttest.KafkaEnumerator(*e)
	if err != nil {
		t.Fatal(err)
	}
	back, err := sourcestate.ParseKafkaEnumerator(co.Version, co.Data)
	if err != nil {
		t.Fatal(err)
	}
	if ps, _ := (&sourcestate.KafkaState{Enumerator: back}).Positions(); !cmp.Equal(want, ps) {
		t.Errorf("decoded: positions (-want +got):\n%s", cmp.Diff(want, ps))
	}
}

// TestKafkaOffsetsAbove2To62AreMalformed: a split's starting and stopping
// offsets are offsets up to 2^62 or markers; 2^62 decodes, 2^62+1 is
// malformed, naming the field.
func TestKafkaOffsetsAbove2To62AreMalformed(t *testing.T) {
	for _, tc := range []struct {
		start, stop int64
		err         string
	}{
		{1 << 62, sourcestate.OffsetNone, ""},
		{5, 1 << 62, ""},
		{1<<62 + 1, sourcestate.OffsetNone, "starting offset 4611686018427387905 is neither an offset (up to 2^62) nor a marker"},
		{5, 1<<62 + 1, "stopping offset 4611686018427387905 is neither an offset (up to 2^62) nor a marker"},
		{-4, sourcestate.OffsetNone, "starting offset -4 is neither"},
		{sourcestate.OffsetCommitted, -4, "stopping offset -4 is neither"},
	} {
		raw := flinkckpttest.KafkaSplit(sourcestate.KafkaSplit{Topic: "t", Partition: 1, StartingOffset: tc.start, StoppingOffset: tc.stop})
		s, err := sourcestate.ParseKafkaSplit(raw.Version, raw.Data)
		if tc.err == "" {
			if err != nil || s.StartingOffset != tc.start || s.StoppingOffset != tc.stop {
				t.Errorf("%d..%d: %+v %v", tc.start, tc.stop, s, err)
			}
			continue
		}
		if !errors.Is(err, sourcestate.ErrMalformed) || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%d..%d: err %v, want %q", tc.start, tc.stop, err, tc.err)
		}
	}
}

// TestEnumeratorNegativePartitionIsMalformed: enumerator state versions 1
// and 2 list partitions without splits; a negative partition (Kafka has
// none) is malformed there as it is in a split, never a position. Found by
// FuzzCoordinator's property check (seed 6b5c6af4709f6e26).
func TestEnumeratorNegativePartitionIsMalformed(t *testing.T) {
	for _, v := range []int32{1, 2} {
		for _, p := range []int32{0, -1} {
			co, err := flinkckpttest.KafkaEnumerator(sourcestate.KafkaEnumerator{Version: v,
				Partitions: []sourcestate.KafkaPartition{{Topic: "t", Partition: p, Status: sourcestate.StatusAssigned, Subtask: -1}}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = sourcestate.ParseKafkaEnumerator(co.Version, co.Data)
			if p >= 0 && err != nil || p < 0 && (!errors.Is(err, sourcestate.ErrMalformed) || !strings.Contains(err.Error(), "negative partition -1")) {
				t.Errorf("v%d partition %d: err %v", v, p, err)
			}
		}
	}
}

// TestMySQLNoBinlogSplit: without a binlog split the MySQL CDC source has
// no binlog position; the error says it was still in the snapshot phase
// (ErrSnapshotPhase: a restart must snapshot again) exactly when a reader
// held snapshot splits or the enumerator was in the snapshot or hybrid
// phase, and is another error otherwise (nothing at all, or an enumerator
// in the binlog phase: the binlog split is missing, not yet to come).
func TestMySQLNoBinlogSplit(t *testing.T) {
	snapshotSplit := sourcestate.MySQLSplit{ID: "db.t:0", Table: "db.t"}
	for _, tc := range []struct {
		name  string
		state sourcestate.MySQLState
		phase bool
	}{
		{"Nothing", sourcestate.MySQLState{}, false},
		{"OneSnapshotSplit", sourcestate.MySQLState{Splits: []sourcestate.MySQLSplit{snapshotSplit}}, true},
		{"EnumeratorSnapshotPhase", sourcestate.MySQLState{Enumerator: &sourcestate.MySQLEnumerator{Version: 6, Phase: sourcestate.PhaseSnapshot}}, true},
		{"EnumeratorHybridPhase", sourcestate.MySQLState{Enumerator: &sourcestate.MySQLEnumerator{Version: 6, Phase: sourcestate.PhaseHybrid}}, true},
		{"EnumeratorBinlogPhase", sourcestate.MySQLState{Enumerator: &sourcestate.MySQLEnumerator{Version: 6, Phase: sourcestate.PhaseBinlog}}, false},
	} {
		_, _, err := tc.state.Position()
		if err == nil || errors.Is(err, sourcestate.ErrSnapshotPhase) != tc.phase {
			t.Errorf("%s: err %v, want snapshot phase %v", tc.name, err, tc.phase)
		}
	}
}
