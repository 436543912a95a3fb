package paimon_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
)

var update = flag.Bool("update", false, "rewrite golden files")

func goldenPosition() paimon.Position {
	p := paimon.Position{
		Table: "wh/default.db/orders", TableName: "default.orders", Branch: "main", ConsumerID: "orders-job",
		NextSnapshot: 121, ConsumerFile: false, Earliest: 100, Latest: 130, Mode: "exactly-once",
		ResetConsumerSQL: "CALL sys.reset_consumer('default.orders', 'orders-job', 121)",
	}
	p.SQLHint = "/*+ OPTIONS(" + resume.HintOptions(p.Launch().Options) + ") */"
	return p
}

// rollbackPosition is a position with a consumer file and every field
// issue #13 added: a rollback's replay start, the old job's mode, decoupled
// changelogs and a scan.mode override.
func rollbackPosition() paimon.Position {
	p := paimon.Position{
		Table: "wh/default.db/orders", TableName: "default.orders", Branch: "main", ConsumerID: "orders-job",
		NextSnapshot: 121, ConsumerNextSnapshot: 121, ConsumerFile: true, Earliest: 100, Latest: 130,
		EarliestChangelog: 40, ChangelogDecoupled: true, Mode: "at-least-once", WrittenMode: "exactly-once",
		ReplayFrom: 117, ScanMode: paimon.ScanModeFromSnapshot,
		ResetConsumerSQL: "CALL sys.reset_consumer('default.orders', 'orders-job', 117)",
	}
	p.SQLHint = "/*+ OPTIONS(" + resume.HintOptions(p.Launch().Options) + ") */"
	return p
}

// TestPositionGoldenConsumer: the JSON of a consumer position with a
// replay start; its launch carries scan.snapshot-id at the replay start.
func TestPositionGoldenConsumer(t *testing.T) {
	p := rollbackPosition()
	got, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	file := filepath.Join("testdata", "position_consumer.golden.json")
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("position JSON (-golden +got):\n%s", diff)
	}
	if want := "snapshot 121 of default.orders for consumer orders-job (reset it to 117 to read what a rollback committed again)"; p.String() != want {
		t.Errorf("String %q, want %q", p.String(), want)
	}
	wantLaunch := map[string]string{"consumer-id": "orders-job", "scan.snapshot-id": "117", "consumer.mode": "at-least-once", "scan.mode": "from-snapshot"}
	if diff := cmp.Diff(wantLaunch, p.Launch().Options); diff != "" {
		t.Error(diff)
	}
	var back paimon.Position
	if err := json.Unmarshal(got, &back); err != nil || !cmp.Equal(p, back) {
		t.Errorf("round trip: %v %s", err, cmp.Diff(p, back))
	}
}

// TestPositionGolden: the position's JSON is part of the decision document
// and must not change by accident. Run with -update to rewrite.
func TestPositionGolden(t *testing.T) {
	p := goldenPosition()
	got, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	// Pointer and value marshal the same.
	viaPtr, _ := json.MarshalIndent(&p, "", "  ")
	if !bytes.Equal(append(viaPtr, '\n'), got) {
		t.Error("*Position and Position marshal differently")
	}
	file := filepath.Join("testdata", "position.golden.json")
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("position JSON (-golden +got):\n%s", diff)
	}
	if p.Kind() != "paimon-snapshot" || p.String() != "snapshot 121 of default.orders for consumer orders-job (no consumer file yet)" {
		t.Errorf("Kind %q String %q", p.Kind(), p.String())
	}
	if diff := cmp.Diff(map[string]string{"consumer-id": "orders-job", "scan.snapshot-id": "121"}, p.Launch().Options); diff != "" {
		t.Error(diff)
	}
}

// TestPositionThroughDecision: a decision document holding a paimon
// position reads back, PositionOf decodes the raw position, and the document
// marshals to the same bytes again.
func TestPositionThroughDecision(t *testing.T) {
	p := goldenPosition()
	d := resume.Decision{Chosen: &resume.Candidate{Resolver: "paimon-consumer", Position: p, Guarantee: resume.Replay, At: t0}}
	d.Considered = []resume.Outcome{{Resolver: "paimon-consumer", Verdict: resume.VerdictChosen, Candidate: d.Chosen}}
	doc, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back resume.Decision
	if err := json.Unmarshal(doc, &back); err != nil {
		t.Fatal(err)
	}
	got, err := paimon.PositionOf(back.Chosen.Position)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&p, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	again, _ := json.Marshal(back)
	if !bytes.Equal(doc, again) {
		t.Errorf("document changed:\n%s\n%s", doc, again)
	}
	if _, err := paimon.PositionOf(&resume.RawPosition{PositionKind: "kafka-offsets"}); err == nil {
		t.Error("PositionOf accepted another kind")
	}
	if _, err := paimon.PositionOf(&resume.RawPosition{PositionKind: "paimon-snapshot", JSON: []byte("{")}); err == nil {
		t.Error("PositionOf accepted bad JSON")
	}
	if _, err := paimon.PositionOf(nil); err == nil {
		t.Error("PositionOf(nil) succeeded")
	}
}
