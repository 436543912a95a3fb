package resume_test

import (
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
