package sourcestate_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// The properties the fuzz targets check on whatever decodes: enumerator
// states survive a round trip through flinkckpttest's writers (the decoded
// meaning, not the bytes: a writer may normalise), and the positions
// derived from a state are the ones a restore could start from.

const maxID = 1 << 62

// checkKafkaEnumerator: offsets in range, partitions not negative, and a
// round trip through flinkckpttest.KafkaEnumerator decodes to the same
// state (version 0 groups splits by subtask, so only its partitions are
// compared as a set).
func checkKafkaEnumerator(t *testing.T, e *sourcestate.KafkaEnumerator) {
	t.Helper()
	for _, p := range e.Partitions {
		if p.Partition < 0 || p.Status != sourcestate.StatusAssigned && p.Status != sourcestate.StatusUnassigned && p.Status != sourcestate.StatusUnknown {
			t.Fatalf("decoded partition %+v", p)
		}
		if p.Split != nil {
			checkOffset(t, p.Split.StartingOffset, true)
		}
	}
	co, err := flinkckpttest.KafkaEnumerator(*e)
	if err != nil {
		t.Fatalf("a decoded Kafka enumerator cannot be written: %v", err)
	}
	back, err := sourcestate.ParseKafkaEnumerator(co.Version, co.Data)
	if err != nil {
		t.Fatalf("re-encoded Kafka enumerator does not decode: %v", err)
	}
	if e.Version != 0 && !cmp.Equal(e, back) {
		t.Fatalf("Kafka enumerator round trip:\n%s", cmp.Diff(e, back))
	}
	if len(back.Partitions) != len(e.Partitions) {
		t.Fatalf("Kafka enumerator round trip: %d partitions, then %d", len(e.Partitions), len(back.Partitions))
	}
}

// checkOffset: an offset is 0..2^62 or one of the markers (-1, -2, -3, and
// for a stopping offset or an unset split, OffsetNone).
func checkOffset(t *testing.T, o int64, noneOK bool) {
	t.Helper()
	switch {
	case o >= 0 && o <= maxID:
	case o == sourcestate.OffsetEarliest || o == sourcestate.OffsetLatest || o == sourcestate.OffsetCommitted:
	case o == sourcestate.OffsetNone && noneOK:
	default:
		t.Fatalf("decoded offset %d is neither 0..2^62 nor a marker", o)
	}
}

// checkPaimonEnumerator: a round trip through flinkckpttest.PaimonEnumerator
// keeps the next snapshot and every split's id and snapshot.
func checkPaimonEnumerator(t *testing.T, e *sourcestate.PaimonEnumerator) {
	t.Helper()
	if e.NextSnapshot < -1 || e.NextSnapshot > maxID {
		t.Fatalf("decoded next snapshot %d", e.NextSnapshot)
	}
	co, err := flinkckpttest.PaimonEnumerator(*e)
	if err != nil {
		return // e.g. an id too long for writeUTF after decoding
	}
	back, err := sourcestate.ParsePaimonEnumerator(co.Version, co.Data)
	if err != nil {
		t.Fatalf("re-encoded Paimon enumerator does not decode: %v", err)
	}
	if back.NextSnapshot != e.NextSnapshot || len(back.Splits) != len(e.Splits) {
		t.Fatalf("Paimon enumerator round trip: %+v then %+v", e, back)
	}
	for i := range e.Splits {
		if back.Splits[i].ID != e.Splits[i].ID || back.Splits[i].Snapshot != e.Splits[i].Snapshot {
			t.Fatalf("Paimon enumerator split %d round trip: %+v then %+v", i, e.Splits[i], back.Splits[i])
		}
	}
}

// checkMySQLEnumerator: a round trip through flinkckpttest.MySQLEnumerator
// keeps the version, phase, flags, tables and split counts.
func checkMySQLEnumerator(t *testing.T, e *sourcestate.MySQLEnumerator) {
	t.Helper()
	co, err := flinkckpttest.MySQLEnumerator(*e)
	if err != nil {
		return // e.g. a split the writer cannot represent
	}
	back, err := sourcestate.ParseMySQLEnumerator(co.Version, co.Data)
	if err != nil {
		t.Fatalf("re-encoded MySQL enumerator does not decode: %v", err)
	}
	if back.Version != e.Version || back.Phase != e.Phase || back.BinlogSplitAssigned != e.BinlogSplitAssigned ||
		len(back.RemainingSplits) != len(e.RemainingSplits) || len(back.AssignedSplits) != len(e.AssignedSplits) ||
		!slices.Equal(back.AlreadyProcessedTables, e.AlreadyProcessedTables) || !slices.Equal(back.RemainingTables, e.RemainingTables) {
		t.Fatalf("MySQL enumerator round trip:\n%s", cmp.Diff(e, back))
	}
}

// checkKafkaPositions: one position per partition, sorted by topic and
// partition, each an offset in range or a marker that matches it, and never
// above the lowest offset any reader's split recorded for that partition
// (a partition in two readers' state keeps the lower).
func checkKafkaPositions(t *testing.T, k *sourcestate.KafkaState) {
	t.Helper()
	ps, _ := k.Positions()
	type tp struct {
		t string
		p int32
	}
	lowest := map[tp]int64{}
	for _, s := range k.Splits {
		if s.Marker() != sourcestate.MarkerNone {
			continue
		}
		key := tp{s.Topic, s.Partition}
		if o, ok := lowest[key]; !ok || s.StartingOffset < o {
			lowest[key] = s.StartingOffset
		}
	}
	for i, p := range ps {
		if i > 0 && (ps[i-1].Topic > p.Topic || ps[i-1].Topic == p.Topic && ps[i-1].Partition >= p.Partition) {
			t.Fatalf("positions not sorted or not unique: %+v", ps)
		}
		if p.Marker != sourcestate.MarkerOf(p.Offset) {
			t.Fatalf("position %+v: marker %q, its offset says %q", p, p.Marker, sourcestate.MarkerOf(p.Offset))
		}
		checkOffset(t, p.Offset, false)
		if o, ok := lowest[tp{p.Topic, p.Partition}]; ok && (p.Marker != sourcestate.MarkerNone || p.Offset != o) {
			t.Fatalf("position %+v, but a reader's split starts at %d", p, o)
		}
	}
}

// checkPaimonPosition: the next snapshot is not above the enumerator's or
// any unfinished split's.
func checkPaimonPosition(t *testing.T, p *sourcestate.PaimonState) {
	t.Helper()
	pos, ok, why := p.Position()
	if !ok {
		if why == "" {
			t.Fatal("no Paimon position and no reason")
		}
		return
	}
	if pos.NextSnapshot < 0 || pos.NextSnapshot > maxID {
		t.Fatalf("Paimon next snapshot %d", pos.NextSnapshot)
	}
	for _, s := range p.Splits {
		if s.Snapshot >= 0 && s.Snapshot < pos.NextSnapshot {
			t.Fatalf("Paimon position %d is above the unfinished split %+v", pos.NextSnapshot, s)
		}
	}
	if e := p.Enumerator; e != nil && e.NextSnapshot >= 0 && e.NextSnapshot < pos.NextSnapshot {
		t.Fatalf("Paimon position %d is above the enumerator's next snapshot %d", pos.NextSnapshot, e.NextSnapshot)
	}
	if pos.Exact && len(p.Splits) > 0 {
		t.Fatalf("Paimon position exact with %d unfinished reader splits", len(p.Splits))
	}
}
