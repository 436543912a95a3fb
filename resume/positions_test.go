package resume_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// allPosition is the position All makes of a Kafka topic and a Paimon
// table.
func allPosition(t *testing.T) resume.Positions {
	t.Helper()
	kafka := resumetest.Static("kafka-offsets", resume.Candidate{
		Position: resumetest.Position{PositionKind: "kafka-offsets", Summary: "orders: partition:0,offset:42",
			Start: resume.Launch{Options: map[string]string{"scan.startup.mode": "specific-offsets", "scan.startup.specific-offsets": "partition:0,offset:42"}}},
		Guarantee: resume.Replay, At: t0, Reasons: []string{"committed offsets"},
		Warnings: []resume.Warning{{Code: "kafka.rewind-lag", Text: "lag"}},
	})
	paimon := resumetest.Static("paimon-consumer", resume.Candidate{
		Position: resumetest.Position{PositionKind: "paimon-snapshot", Summary: "snapshot 121 of db.customers",
			Start: resume.Launch{Options: map[string]string{"consumer-id": "job-1"}}},
		Guarantee: resume.ExactInput, Reasons: []string{"consumer file"},
	})
	c, err := resume.All("orders-join", kafka, paimon).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p, ok := c.Position.(resume.Positions)
	if !ok {
		t.Fatalf("All's position is a %T, want resume.Positions", c.Position)
	}
	return p
}

// TestPositionsGolden: the JSON of All's position is part of the decision
// document and must not change by accident. Run with -update to rewrite.
func TestPositionsGolden(t *testing.T) {
	p := allPosition(t)
	got, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "positions.golden.json", append(got, '\n'))
	var back resume.Positions
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Parts) != 2 || back.Parts[0].Resolver != "kafka-offsets" || back.Parts[1].Guarantee != resume.ExactInput {
		t.Fatalf("read back %+v", back)
	}
	// Each part's launch reads back, for a tool that applies hints per table.
	if diff := cmp.Diff(p.Parts[0].Position.Launch().Options, back.Parts[0].Position.Launch().Options); diff != "" {
		t.Errorf("part launch (-want +got):\n%s", diff)
	}
	for bad, want := range map[string]string{
		`{}`:               "decode all position: no parts field",
		`{"parts":[null]}`: "decode all position: part 1 is null",
		`{"parts":[{"resolver":"a","kind":"k","guarantee":"replay"},{"resolver":"b","kind":"k"}]}`: `decode all position: part 2: resume: decode candidate of "b": no guarantee`,
		`[]`: "decode all position: json: cannot unmarshal array",
	} {
		_, err := resume.PositionAs[resume.Positions](&resume.RawPosition{PositionKind: resume.KindAll, JSON: []byte(bad)}, resume.KindAll)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", bad, err, want)
		}
	}
}

// TestPositionsContract: All's position keeps the rules of every resolver
// package's position; a decision that chose it reads back into its parts.
func TestPositionsContract(t *testing.T) {
	of := func(p resume.Position) (*resume.Positions, error) {
		return resume.PositionAs[resume.Positions](p, resume.KindAll)
	}
	for _, err := range resumetest.CheckPosition(allPosition(t), of) {
		t.Error(err)
	}
}
