package kafkaoffset_test

import (
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume"
)

var update = flag.Bool("update", false, "rewrite golden files")

func i64(v int64) *int64 { return &v }

func goldenPosition() *kafkaoffset.Position {
	return &kafkaoffset.Position{
		Topics: []string{"orders"}, Group: "orders-job", TimestampMillis: 1795946400000, IsolationLevel: kafkaoffset.ReadCommitted, Mode: kafkaoffset.ModeSpecificOffsets,
		Partitions: []kafkaoffset.Partition{
			{Topic: "orders", Partition: 0, Start: 0, End: 50, LastStable: i64(45), Committed: i64(42), ByTime: i64(40), Offset: 42, From: kafkaoffset.FromCommit, Reason: "committed 42 (log 0..50, 8 records after it)"},
			{Topic: "orders", Partition: 1, Start: 310, End: 400, Committed: i64(300), ByTime: i64(310), Offset: 310, From: kafkaoffset.FromCommit, Reason: "committed 300 is below the log start 310: 10 records were deleted before they were read; starts at the log start"},
			{Topic: "orders", Partition: 2, Start: 0, End: 7, Offset: 7, From: kafkaoffset.FromEnd, Reason: "no record at or after 2026-11-29T10:00:00Z: starts at the end offset 7"},
		},
	}
}

func TestPositionGolden(t *testing.T) {
	got, err := json.MarshalIndent(goldenPosition(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "position.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("position JSON (-golden +got):\n%s", diff)
	}
	// A value marshals the same as a pointer (value receiver).
	v, _ := json.MarshalIndent(*goldenPosition(), "", "  ")
	if string(v)+"\n" != string(got) {
		t.Error("value and pointer marshal differently")
	}
}

func TestPositionEmptyArrays(t *testing.T) {
	got, err := json.Marshal(kafkaoffset.Position{Mode: "timestamp"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"topics":[],"mode":"timestamp","partitions":[]}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestPositionRoundTrip reads a position back from a decision document with
// PositionOf.
func TestPositionRoundTrip(t *testing.T) {
	pos := goldenPosition()
	c := resume.Candidate{Resolver: "kafka-offsets", Position: pos, Guarantee: resume.DataLoss, At: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), Reasons: []string{"r"}, Warnings: []resume.Warning{}}
	d := resume.Decision{Chosen: &c, Considered: []resume.Outcome{{Resolver: "kafka-offsets", Candidate: &c, Verdict: resume.VerdictChosen}}}
	doc, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back resume.Decision
	if err := json.Unmarshal(doc, &back); err != nil {
		t.Fatal(err)
	}
	got, err := kafkaoffset.PositionOf(back.Chosen.Position)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pos, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(pos.Launch().Options, back.Chosen.Position.Launch().Options); diff != "" {
		t.Errorf("launch (-want +got):\n%s", diff)
	}
	again, _ := json.Marshal(back)
	if string(again) != string(doc) {
		t.Errorf("document changed on the round trip:\n%s\n%s", doc, again)
	}
}

func TestPositionOfRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    resume.Position
	}{
		{"Nil", nil},
		{"OtherKind", &resume.RawPosition{PositionKind: "paimon-snapshot", JSON: []byte(`{}`)}},
		{"BadJSON", &resume.RawPosition{PositionKind: "kafka-offsets", JSON: []byte(`{"partitions":`)}},
		{"NoPartitions", &resume.RawPosition{PositionKind: "kafka-offsets", JSON: []byte(`{"topics":["t"]}`)}},
		{"OtherType", &resume.Positions{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := kafkaoffset.PositionOf(tc.p); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestParseSpecificOffsets(t *testing.T) {
	got, err := kafkaoffset.ParseSpecificOffsets("partition:0,offset:42;partition:1,offset:300;")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[int32]int64{0: 42, 1: 300}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", ";", "partition:0", "partition:-1,offset:0", "partition:0,offset:-5", "partition:0,offset:1;partition:0,offset:2", "p:0,o:1", "partition:99999999999,offset:0"} {
		if _, err := kafkaoffset.ParseSpecificOffsets(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// FuzzSpecificOffsets: whatever parses renders back to a value that parses to
// the same offsets, and rendering is canonical (a second round is identical).
func FuzzSpecificOffsets(f *testing.F) {
	f.Add("partition:0,offset:42;partition:1,offset:300")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := kafkaoffset.ParseSpecificOffsets(s)
		if err != nil {
			return
		}
		var ps []kafkaoffset.Partition
		for _, p := range slices.Sorted(maps.Keys(m)) {
			ps = append(ps, kafkaoffset.Partition{Topic: "t", Partition: p, Offset: m[p]})
		}
		text := kafkaoffset.FormatSpecificOffsets(ps)
		back, err := kafkaoffset.ParseSpecificOffsets(text)
		if err != nil {
			t.Fatalf("%q rendered as %q, which does not parse: %v", s, text, err)
		}
		if !maps.Equal(m, back) {
			t.Fatalf("%q → %v → %q → %v", s, m, text, back)
		}
		var ps2 []kafkaoffset.Partition
		for _, p := range slices.Sorted(maps.Keys(back)) {
			ps2 = append(ps2, kafkaoffset.Partition{Partition: p, Offset: back[p]})
		}
		if again := kafkaoffset.FormatSpecificOffsets(ps2); again != text {
			t.Fatalf("not canonical: %q then %q", text, again)
		}
	})
}
