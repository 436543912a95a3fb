package resume_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

func sampleDecision(t *testing.T) *resume.Decision {
	t.Helper()
	ckpt := resumetest.Static("flink-checkpoints", resume.Candidate{
		Position: resumetest.Position{PositionKind: "flink-checkpoint", Summary: "chk-42 of job 4b1c",
			Start: resume.Launch{Args: []string{"-s", "s3a://b/ck/4b1c/chk-42"}, Config: map[string]string{
				"execution.state-recovery.path": "s3a://b/ck/4b1c/chk-42", "execution.savepoint.path": "s3a://b/ck/4b1c/chk-42"}}},
		Guarantee: resume.ExactlyOnce, At: time.Date(2026, 11, 29, 11, 0, 0, 0, time.FixedZone("CET", 3600)),
		// Half an hour after the decision, within MinValidity: the
		// document carries valid_until in UTC and chain.short-validity.
		ValidUntil: time.Date(2026, 11, 29, 12, 30, 0, 0, time.FixedZone("CET", 3600)),
		Reasons:    []string{"chk-43: no _metadata (in progress, failed or being deleted)", "chk-42: _metadata parsed, 122 referenced files present"},
	})
	consumer := resumetest.Static("paimon-consumer", resume.Candidate{
		Position:  resumetest.Position{PositionKind: "paimon-snapshot", Summary: "snapshot 121 of db.t", Start: resume.Launch{Options: map[string]string{"consumer-id": "job-1"}}},
		Guarantee: resume.ExactInput, At: time.Date(2026, 11, 29, 10, 30, 0, 0, time.UTC),
		Reasons: []string{"consumer job-1: nextSnapshot 121"},
	})
	// Kafka is down; at best it offers replay, so it blocks nothing here.
	kafka := resume.WithMaxGuarantee(resumetest.Failing("kafka-offsets", errors.New("list end offsets: broker 127.0.0.1:9092 unreachable")), resume.Replay)
	none := resume.ResolverFunc("flink-savepoints", func(context.Context) (resume.Candidate, error) {
		return resume.Candidate{}, errorsJoin(resume.ErrNoPosition)
	})
	chain := &resume.Chain{
		Resolvers: []resume.Resolver{ckpt, consumer, kafka, none},
		Policy: resume.Policy{MaxAge: 36 * time.Hour, Timeout: 30 * time.Second, MinValidity: time.Hour,
			Now: func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.FixedZone("CET", 3600)) }},
	}
	d, err := chain.Resolve(context.Background())
	if err == nil {
		t.Fatal("want the kafka failure")
	}
	// The version is the build's; a golden document pins it.
	if d.Version != resume.ModuleVersion() || d.Version == "" {
		t.Errorf("version %q, want the module version %q", d.Version, resume.ModuleVersion())
	}
	d.Version = "v1.4.0"
	return d
}

func errorsJoin(err error) error { return errors.Join(errors.New("no savepoints under sp/"), err) }

func TestDecisionJSONGolden(t *testing.T) {
	d := sampleDecision(t)
	got, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "decision.golden.json", append(got, '\n'))

	// Marshalling a Decision value gives the same document as a pointer.
	byValue, err := json.Marshal(*d)
	if err != nil {
		t.Fatal(err)
	}
	byPtr, _ := json.Marshal(d)
	if !bytes.Equal(byValue, byPtr) {
		t.Error("value and pointer marshal differently")
	}
}

func TestDecisionJSONReadBack(t *testing.T) {
	d := sampleDecision(t)
	first, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back resume.Decision
	if err := json.Unmarshal(first, &back); err != nil {
		t.Fatal(err)
	}
	second, err := json.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(first), string(second)); diff != "" {
		t.Errorf("read back and marshalled again (-first +second):\n%s", diff)
	}
	raw, ok := back.Chosen.Position.(*resume.RawPosition)
	if !ok {
		t.Fatalf("position read back as %T, want *resume.RawPosition", back.Chosen.Position)
	}
	if raw.Kind() != "flink-checkpoint" || raw.String() != "chk-42 of job 4b1c" || raw.Launch().Args[1] != "s3a://b/ck/4b1c/chk-42" {
		t.Errorf("raw position lost fields: %+v", raw)
	}
	if !back.Chosen.At.Equal(d.Chosen.At) || back.Chosen.At.Location() != time.UTC {
		t.Errorf("at %v, want %v in UTC", back.Chosen.At, d.Chosen.At)
	}
	if !back.Chosen.ValidUntil.Equal(d.Chosen.ValidUntil) || back.Chosen.ValidUntil.Location() != time.UTC || d.Chosen.ValidUntil.IsZero() {
		t.Errorf("valid until %v, want %v in UTC", back.Chosen.ValidUntil, d.Chosen.ValidUntil)
	}
	if back.Considered[0].Candidate != back.Chosen {
		t.Error("the chosen outcome does not share the chosen candidate")
	}
	if back.Considered[2].Err == nil || back.Considered[2].Err.Error() != d.Considered[2].Err.Error() {
		t.Errorf("failure text lost: %v", back.Considered[2].Err)
	}
}

func TestDecisionJSONRules(t *testing.T) {
	t.Run("NothingChosenIsNullAndArraysNeverNull", func(t *testing.T) {
		r := resumetest.Static("a", resume.Candidate{Position: pos("k", "s"), Guarantee: resume.DataLoss, Reasons: []string{"r"}})
		d, _ := (&resume.Chain{Resolvers: []resume.Resolver{r}, Policy: resume.Policy{Now: func() time.Time { return t0 }}}).Resolve(context.Background())
		d.Version = "(devel)"
		got, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"schema":"resumekit.decision/v1","resumekit":"(devel)","decided_at":"2026-11-29T10:00:00Z","policy":{"min_guarantee":"replay","on_failure":"block-weaker"},"chosen":null,"considered":[{"resolver":"a","verdict":"rejected","why":"guarantee data-loss is below the minimum replay","candidate":{"resolver":"a","kind":"k","guarantee":"data-loss","position":{"kind":"k","summary":"s","launch":{"args":null,"config":null,"options":null}},"summary":"s","launch":{"args":[],"config":{},"options":{}},"reasons":["r"],"warnings":[]}}]}`
		if diff := cmp.Diff(want, string(got)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("WrongSchemaRefused", func(t *testing.T) {
		var d resume.Decision
		err := json.Unmarshal([]byte(`{"schema":"other/v9","considered":[]}`), &d)
		if err == nil {
			t.Error("accepted another schema")
		}
	})
	t.Run("UnknownGuaranteeRefused", func(t *testing.T) {
		var d resume.Decision
		err := json.Unmarshal([]byte(`{"schema":"resumekit.decision/v1","chosen":{"resolver":"a","kind":"k","guarantee":"best-effort","position":{},"summary":"","launch":{},"reasons":[],"warnings":[]},"considered":[]}`), &d)
		if err == nil {
			t.Error("accepted an unknown guarantee")
		}
	})
}

// TestDecisionGoldenReadsBackByteIdentical reads the golden document (with
// warning codes, decided_at, policy and version) and marshals it again: the
// same bytes, and the record fields come back as values.
func TestDecisionGoldenReadsBackByteIdentical(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "decision.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d resume.Decision
	if err := json.Unmarshal(want, &d); err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)+"\n"); diff != "" {
		t.Errorf("read back and marshalled again (-golden +got):\n%s", diff)
	}
	if d.Version != "v1.4.0" || !d.DecidedAt.Equal(time.Date(2026, 11, 29, 11, 0, 0, 0, time.UTC)) {
		t.Errorf("version %q decided at %v", d.Version, d.DecidedAt)
	}
	wantPolicy := resume.Policy{MinGuarantee: resume.Replay, MaxAge: 36 * time.Hour, Timeout: 30 * time.Second, OnFailure: resume.BlockWeaker}
	if d.Policy.MinGuarantee != wantPolicy.MinGuarantee || d.Policy.MaxAge != wantPolicy.MaxAge || d.Policy.Timeout != wantPolicy.Timeout || d.Policy.OnFailure != wantPolicy.OnFailure {
		t.Errorf("policy %+v, want %+v", d.Policy, wantPolicy)
	}
	if !d.Chosen.HasWarning(resume.WarnNewerProgress) {
		t.Errorf("warning codes lost: %+v", d.Chosen.Warnings)
	}
	// valid_until reads back; MinValidity is not recorded (the
	// chain.short-validity warning it gave is, naming it).
	if !d.Chosen.ValidUntil.Equal(time.Date(2026, 11, 29, 11, 30, 0, 0, time.UTC)) || !d.Chosen.HasWarning(resume.WarnShortValidity) || d.Policy.MinValidity != 0 ||
		!strings.Contains(string(want), `"valid_until": "2026-11-29T11:30:00Z"`) || strings.Contains(string(want), "min_validity") {
		t.Errorf("valid until %v, min validity %v, warnings %+v", d.Chosen.ValidUntil, d.Policy.MinValidity, d.Chosen.Warnings)
	}
	if r := resume.Classify(&d, nil); len(d.Failed()) != 1 || r != resume.ResultChosen {
		t.Errorf("read-back decision: failed %v, result %s", d.Failed(), r)
	}
}

func TestDecisionJSONOptionalRecordFields(t *testing.T) {
	// A v1 document from before decided_at, policy and resumekit existed
	// reads, and marshals without them again.
	old := `{"schema":"resumekit.decision/v1","chosen":null,"considered":[{"resolver":"a","verdict":"no-position","error":"nothing"}]}`
	var d resume.Decision
	if err := json.Unmarshal([]byte(old), &d); err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(d)
	if err != nil || string(got) != old {
		t.Errorf("got %s, %v; want %s", got, err, old)
	}
	for _, tc := range []struct{ name, doc, wantErr string }{
		{"BadMaxAge", `{"schema":"resumekit.decision/v1","policy":{"min_guarantee":"replay","max_age":"a week","on_failure":"block-weaker"},"considered":[]}`, "max_age"},
		{"UnknownOnFailure", `{"schema":"resumekit.decision/v1","policy":{"min_guarantee":"replay","on_failure":"ignore"},"considered":[]}`, "unknown failure policy"},
		{"PolicyWithoutMinimum", `{"schema":"resumekit.decision/v1","policy":{"on_failure":"block-weaker"},"considered":[]}`, "no min_guarantee"},
		{"BadDecidedAt", `{"schema":"resumekit.decision/v1","decided_at":"yesterday","considered":[]}`, "decided_at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d resume.Decision
			err := json.Unmarshal([]byte(tc.doc), &d)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want it to mention %q", err, tc.wantErr)
			}
		})
	}
}

// TestCandidateJSONRoundTrip: a Candidate marshals on its own in the
// document's candidate form and reads back to the same bytes, with a
// RawPosition that keeps kind, summary, launch and JSON.
func TestCandidateJSONRoundTrip(t *testing.T) {
	c := resume.Candidate{
		Resolver: "flink-checkpoints",
		Position: resumetest.Position{PositionKind: "flink-checkpoint", Summary: "chk-42 of job 4b1c",
			Start: resume.Launch{Args: []string{"-s", "s3a://b/ck/4b1c/chk-42"}, Config: map[string]string{resume.ConfigStateRecoveryPath: "s3a://b/ck/4b1c/chk-42"}}},
		Guarantee: resume.ExactlyOnce,
		At:        time.Date(2026, 11, 29, 11, 0, 0, 5, time.FixedZone("CET", 3600)),
		Reasons:   []string{"chk-42: all 122 referenced files present"},
		Warnings:  []resume.Warning{{Code: "flink.keep-until-first-checkpoint", Text: "keep chk-42"}},
	}
	first, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	// The candidate form, as in the document's "chosen".
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{resumetest.Static("flink-checkpoints", c)}}).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := json.Marshal(d)
	var chosen struct {
		Chosen json.RawMessage `json:"chosen"`
	}
	if err := json.Unmarshal(doc, &chosen); err != nil {
		t.Fatal(err)
	}
	winner, _ := json.Marshal(d.Chosen)
	if !bytes.Equal(chosen.Chosen, winner) {
		t.Errorf("Candidate.MarshalJSON differs from the document's candidate form:\n%s\n%s", winner, chosen.Chosen)
	}

	var back resume.Candidate
	if err := json.Unmarshal(first, &back); err != nil {
		t.Fatal(err)
	}
	second, err := json.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(first), string(second)); diff != "" {
		t.Errorf("round trip (-first +second):\n%s", diff)
	}
	if !back.At.Equal(c.At) || back.Guarantee != c.Guarantee || back.Position.Kind() != "flink-checkpoint" || back.Position.Launch().RestorePath() != "s3a://b/ck/4b1c/chk-42" || !back.HasWarning("flink.keep-until-first-checkpoint") {
		t.Errorf("read back %+v", back)
	}
	// By value and by pointer alike.
	byPtr, _ := json.Marshal(&c)
	if !bytes.Equal(first, byPtr) {
		t.Error("value and pointer marshal differently")
	}
	for _, bad := range []string{
		`{"resolver":"a","kind":"k","position":{},"summary":"","launch":{},"reasons":[],"warnings":[]}`,
		`{"resolver":"a","guarantee":"replay","position":{},"summary":"","launch":{},"reasons":[],"warnings":[]}`,
		`{"resolver":"a","kind":"k","guarantee":"replay","at":"noon","position":{}}`,
		`[1,2]`,
	} {
		var c resume.Candidate
		if err := json.Unmarshal([]byte(bad), &c); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

// FuzzDecisionJSON: any input either fails to read, or reads into a Decision
// (and a Candidate, and All's Positions) that marshals, and whose document
// is a fixed point after one round (read it back, marshal again: the same
// bytes). No input panics. Seeds: the golden documents and
// testdata/fuzz/FuzzDecisionJSON.
func FuzzDecisionJSON(f *testing.F) {
	for _, name := range []string{"decision.golden.json", "positions.golden.json"} {
		golden, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(golden)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fixedPoint[resume.Decision](t, "decision", data)
		fixedPoint[resume.Candidate](t, "candidate", data)
		fixedPoint[resume.Positions](t, "all position", data)
	})
}

// fixedPoint checks that data, if it reads into a T, marshals, and that
// reading that back and marshalling again gives the same bytes.
func fixedPoint[T any](t *testing.T, what string, data []byte) {
	t.Helper()
	var v T
	if json.Unmarshal(data, &v) != nil {
		return
	}
	first, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("read %s %q but cannot marshal it: %v", what, data, err)
	}
	var back T
	if err := json.Unmarshal(first, &back); err != nil {
		t.Fatalf("cannot read back %s %s: %v", what, first, err)
	}
	if second, err := json.Marshal(back); err != nil || !bytes.Equal(first, second) {
		t.Fatalf("%s not a fixed point (%v):\n%s\n%s", what, err, first, second)
	}
}
