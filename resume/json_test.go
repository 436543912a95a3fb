package resume_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
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
		Reasons: []string{"chk-43: no _metadata (in progress, failed or being deleted)", "chk-42: _metadata parsed, 122 referenced files present"},
	})
	consumer := resumetest.Static("paimon-consumer", resume.Candidate{
		Position:  resumetest.Position{PositionKind: "paimon-snapshot", Summary: "snapshot 121 of db.t", Start: resume.Launch{Options: map[string]string{"consumer-id": "job-1"}}},
		Guarantee: resume.ExactInput, At: time.Date(2026, 11, 29, 10, 30, 0, 0, time.UTC),
		Reasons: []string{"consumer job-1: nextSnapshot 121"},
	})
	kafka := resumetest.Failing("kafka-offsets", errors.New("list end offsets: broker 127.0.0.1:9092 unreachable"))
	none := resume.ResolverFunc("flink-savepoints", func(context.Context) (resume.Candidate, error) {
		return resume.Candidate{}, errorsJoin(resume.ErrNoPosition)
	})
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{ckpt, consumer, kafka, none}}).Resolve(context.Background())
	if err == nil {
		t.Fatal("want the kafka failure")
	}
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
		d, _ := (&resume.Chain{Resolvers: []resume.Resolver{r}}).Resolve(context.Background())
		got, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"schema":"resumekit.decision/v1","chosen":null,"considered":[{"resolver":"a","verdict":"rejected","why":"guarantee data-loss is below the minimum replay","candidate":{"resolver":"a","kind":"k","guarantee":"data-loss","position":{"kind":"k","summary":"s","launch":{"args":null,"config":null,"options":null}},"summary":"s","launch":{"args":[],"config":{},"options":{}},"reasons":["r"],"warnings":[]}}]}`
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
