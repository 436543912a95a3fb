package flinkckpt_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/resume"
)

var update = flag.Bool("update", false, "rewrite golden files")

func goldenPosition() flinkckpt.Position {
	return flinkckpt.Position{Path: "s3a://bucket/ck/" + jobA + "/chk-42", Key: "ck/" + jobA + "/chk-42/", JobID: jobA,
		CheckpointID: 42, Format: "", Version: 4, Verified: true, ReferencedFiles: 12, CheckedFiles: 12,
		ClaimMode: "NO_CLAIM", FlinkVersion: "1.20", StateBackend: flinkckpt.BackendRocksDBIncremental}
}

func TestPositionGoldenJSON(t *testing.T) {
	for _, tc := range []struct {
		file string
		pos  flinkckpt.Position
	}{
		{"position_checkpoint.golden.json", goldenPosition()},
		{"position_savepoint.golden.json", flinkckpt.Position{Path: "s3a://bucket/sp/savepoint-aaaaaa-0123456789ab",
			Key: "sp/savepoint-aaaaaa-0123456789ab/", CheckpointID: 43, Savepoint: true, Format: "CANONICAL", Version: 4, Drained: true,
			ReferencedFiles: 3, CheckedFiles: 2, UncheckedFiles: 1, ClaimMode: "CLAIM", StateBackend: flinkckpt.BackendCanonical,
			Unaligned: true, FinishedOperators: 1, PostCheckpointAction: "TERMINATE"}},
	} {
		got, err := json.MarshalIndent(tc.pos, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join("testdata", tc.file)
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
			t.Errorf("%s (-golden +got):\n%s", tc.file, diff)
		}
		var back flinkckpt.Position
		if err := json.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, tc.pos) {
			t.Errorf("%s: unmarshal gives %+v, %v", tc.file, back, err)
		}
	}
}

// TestPositionThroughDecision writes a decision document and reads the
// position back with PositionOf.
func TestPositionThroughDecision(t *testing.T) {
	pos := goldenPosition()
	c := resume.Candidate{Resolver: "flink-checkpoints", Position: pos, Guarantee: resume.ExactlyOnce,
		At: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), Reasons: []string{"r"}}
	d := resume.Decision{Chosen: &c, Considered: []resume.Outcome{{Resolver: c.Resolver, Verdict: resume.VerdictChosen, Candidate: &c}}}
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back resume.Decision
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	got, err := flinkckpt.PositionOf(back.Chosen.Position)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, pos) || back.Chosen.Position.Kind() != "flink-checkpoint" {
		t.Errorf("got %+v kind %s", got, back.Chosen.Position.Kind())
	}
	if diff := cmp.Diff(pos.Launch(), back.Chosen.Position.Launch(), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("launch (-want +read back):\n%s", diff)
	}
	again, err := json.Marshal(back)
	if err != nil || string(again) != string(data) {
		t.Errorf("re-marshal differs: %v\n%s\n%s", err, data, again)
	}
	if _, err := flinkckpt.PositionOf(&resume.RawPosition{PositionKind: "kafka-offsets", JSON: []byte("{}")}); err == nil {
		t.Error("PositionOf accepted a kafka position")
	}
	if _, err := flinkckpt.PositionOf(nil); err == nil {
		t.Error("PositionOf accepted nil")
	}
	if p, err := flinkckpt.PositionOf(&pos); err != nil || !reflect.DeepEqual(*p, pos) {
		t.Errorf("PositionOf(*Position) = %v, %v", p, err)
	}
}

func TestPositionStringAndLaunch(t *testing.T) {
	p := goldenPosition()
	if p.String() != "chk-42 of job "+jobA || p.Kind() != "flink-checkpoint" {
		t.Errorf("%q %q", p.String(), p.Kind())
	}
	sp := flinkckpt.Position{Key: "sp/savepoint-aaaaaa-0123456789ab/", CheckpointID: 3, Savepoint: true}
	if sp.String() != "savepoint savepoint-aaaaaa-0123456789ab (checkpoint 3)" || sp.Kind() != "flink-savepoint" || !sp.Launch().IsZero() {
		t.Errorf("%q %q %+v", sp.String(), sp.Kind(), sp.Launch())
	}
}
