package resume_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/resume"
)

func recordDecision() resume.Decision {
	return resume.Decision{
		DecidedAt: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC),
		Record: &resume.Record{Sources: []resume.RecordSource{{
			Kind: resume.RecordFlinkHA, Source: "ha.json", JobID: "8c1d152cf31fc3b33be3d59572d2273f", CheckpointID: 4,
			Path: "s3://b/ck/8c1d152cf31fc3b33be3d59572d2273f/chk-4", At: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
			Says: "HA recovery restores checkpoint 4", Storage: "broken: 1 of 17 referenced files missing",
			Warnings: []resume.Warning{{Code: "record.broken", Text: "HA recovery fails"}},
		}, {
			Kind: resume.RecordJobResultStore, Source: "s3://b/jrs", Status: "SUCCEEDED", FinishedCleanly: true, Says: "job ended SUCCEEDED",
		}, {
			Kind: resume.RecordFlinkREST, Source: "http://jm:8081", Err: errors.New("connection refused"),
		}}},
	}
}

// TestDecisionRecordJSON: the record section reads back to the same bytes,
// and the document stays a resumekit.decision/v1 one a reader without the
// section (an older resumekit) reads as before.
func TestDecisionRecordJSON(t *testing.T) {
	d := recordDecision()
	first, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(first, []byte(`"record":{"sources":[{"kind":"flink-ha"`)) || !bytes.Contains(first, []byte(`"finished_cleanly":true`)) {
		t.Fatalf("document %s", first)
	}
	var back resume.Decision
	if err := json.Unmarshal(first, &back); err != nil {
		t.Fatal(err)
	}
	second, err := json.Marshal(back)
	if err != nil || !bytes.Equal(first, second) {
		t.Fatalf("not read back (%v):\n%s\n%s", err, first, second)
	}
	// An older reader: the v1 shape without "record".
	var old struct {
		Schema     string            `json:"schema"`
		Chosen     json.RawMessage   `json:"chosen"`
		Considered []json.RawMessage `json:"considered"`
	}
	dec := json.NewDecoder(bytes.NewReader(first))
	if err := dec.Decode(&old); err != nil || old.Schema != resume.Schema {
		t.Fatalf("a v1 reader: %v %+v", err, old)
	}
	// No record read: no section at all.
	plain, _ := json.Marshal(resume.Decision{})
	if bytes.Contains(plain, []byte(`"record"`)) {
		t.Errorf("a decision without a record writes one: %s", plain)
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "decision.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g resume.Decision
	if err := json.Unmarshal(golden, &g); err != nil || g.Record != nil {
		t.Errorf("the golden document reads with a record: %v %+v", err, g.Record)
	}
}

func TestDecisionRecordJSONRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"no kind": `{"schema":"resumekit.decision/v1","chosen":null,"considered":[],"record":{"sources":[{"source":"x","warnings":[]}]}}`,
		"bad at":  `{"schema":"resumekit.decision/v1","chosen":null,"considered":[],"record":{"sources":[{"kind":"flink-ha","source":"x","at":"yesterday","warnings":[]}]}}`,
	} {
		var d resume.Decision
		if err := json.Unmarshal([]byte(doc), &d); err == nil {
			t.Errorf("%s: read %+v", name, d.Record)
		}
	}
}

// TestExplainRecord: the report prints the record beside storage.
func TestExplainRecord(t *testing.T) {
	d := recordDecision()
	rep := d.Explain()
	for _, want := range []string{
		"RECORD  (what Flink and the operator will restore by themselves, beside storage)",
		"  flink-ha ha.json: HA recovery restores checkpoint 4",
		"    storage: broken: 1 of 17 referenced files missing",
		"    warning: HA recovery fails [record.broken]",
		"  flink-rest http://jm:8081: unreadable: connection refused",
	} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
}

func TestRecordFinishedCleanly(t *testing.T) {
	d := recordDecision()
	if !d.Record.FinishedCleanly() {
		t.Error("a SUCCEEDED JobResultStore entry is not a clean finish")
	}
	d.Record.Sources[1].FinishedCleanly = false
	if d.Record.FinishedCleanly() {
		t.Error("a clean finish without one")
	}
	var none *resume.Record
	if none.FinishedCleanly() {
		t.Error("a nil record finished cleanly")
	}
}
