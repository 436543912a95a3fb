package resume_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
)

func TestPositionAs(t *testing.T) {
	orig := resumetest.Position{PositionKind: "test", Summary: "here"}
	for _, tc := range []struct {
		name    string
		p       resume.Position
		want    string // summary, or an error substring
		wantErr bool
	}{
		{"Value", orig, "here", false},
		{"Pointer", &orig, "here", false},
		{"Raw", &resume.RawPosition{PositionKind: "test", JSON: []byte(`{"kind":"test","summary":"from json"}`)}, "from json", false},
		{"RawOtherKind", &resume.RawPosition{PositionKind: "kafka-offsets", JSON: []byte(`{}`)}, `kind "kafka-offsets", want test or test2`, true},
		{"RawBadJSON", &resume.RawPosition{PositionKind: "test", JSON: []byte(`{"summary":`)}, "decode test position", true},
		{"Nil", nil, "nil position", true},
		{"NilPointer", (*resumetest.Position)(nil), "nil position", true},
		{"OtherType", &resume.Positions{}, "position of type *resume.Positions", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resume.PositionAs[resumetest.Position](tc.p, "test", "test2")
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("err = %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil || got.Summary != tc.want {
				t.Errorf("got %+v, %v; want summary %q", got, err, tc.want)
			}
		})
	}
	got, _ := resume.PositionAs[resumetest.Position](&orig, "test")
	got.Summary = "changed"
	if orig.Summary != "here" {
		t.Error("PositionAs returned the caller's position, not a copy")
	}
}

// TestRawPositionValue: RawPosition has value receivers like every Position
// (#11 item 5): a value is a Position, marshals through MarshalJSON (the
// recorded JSON, not its Go fields) alike with a pointer, and PositionAs
// decodes it.
func TestRawPositionValue(t *testing.T) {
	raw := resume.RawPosition{PositionKind: "test", Summary: "s", Start: resume.Launch{Args: []string{"-s", "x"}}, JSON: []byte(`{"kind":"test","summary":"from json"}`)}
	var p resume.Position = raw
	if p.Kind() != "test" || p.String() != "s" || p.Launch().Args[1] != "x" {
		t.Errorf("Kind %q, String %q, Launch %v", p.Kind(), p.String(), p.Launch())
	}
	for name, v := range map[string]any{"value": raw, "pointer": &raw, "field": struct{ P resume.RawPosition }{raw}} {
		got, err := json.Marshal(v)
		want := string(raw.JSON)
		if name == "field" {
			want = `{"P":` + want + `}`
		}
		if err != nil || string(got) != want {
			t.Errorf("json.Marshal(%s) = %s, %v; want %s", name, got, err, want)
		}
	}
	if got, err := json.Marshal(resume.RawPosition{}); err != nil || string(got) != "null" {
		t.Errorf("json.Marshal(RawPosition{}) = %s, %v; want null", got, err)
	}
	got, err := resume.PositionAs[resumetest.Position](raw, "test")
	if err != nil || got.Summary != "from json" {
		t.Errorf("PositionAs(value) = %+v, %v", got, err)
	}
}
