package resumetest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// offsets is a well-made position type, as a resolver package defines one.
type offsets struct {
	Topic  string `json:"topic"`
	Offset int64  `json:"offset"`
}

func (o offsets) Kind() string   { return "test-offsets" }
func (o offsets) String() string { return fmt.Sprintf("%s at %d", o.Topic, o.Offset) }
func (o offsets) Launch() resume.Launch {
	return resume.Launch{Options: map[string]string{"scan.startup.specific-offsets": fmt.Sprint(o.Offset)}}
}

func offsetsOf(p resume.Position) (*offsets, error) {
	return resume.PositionAs[offsets](p, "test-offsets")
}

// hidden's String and Launch use a field its JSON leaves out: read back from
// a document, it launches elsewhere.
type hidden struct {
	Topic  string `json:"topic"`
	offset int64
}

func (h hidden) Kind() string   { return "test-hidden" }
func (h hidden) String() string { return fmt.Sprintf("%s at %d", h.Topic, h.offset) }
func (h hidden) Launch() resume.Launch {
	return resume.Launch{Args: []string{"--offset", fmt.Sprint(h.offset)}}
}

// ptrJSON marshals with a pointer receiver: a value marshals as a plain
// struct, a pointer through MarshalJSON.
type ptrJSON struct {
	Topic string `json:"topic"`
}

func (p ptrJSON) Kind() string          { return "test-ptr" }
func (p ptrJSON) String() string        { return p.Topic }
func (p ptrJSON) Launch() resume.Launch { return resume.Launch{} }
func (p *ptrJSON) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"t": p.Topic})
}

// twoWords breaks the rules of resume.CheckCandidate.
type twoWords struct{}

func (twoWords) Kind() string          { return "two words" }
func (twoWords) String() string        { return "a\nb" }
func (twoWords) Launch() resume.Launch { return resume.Launch{} }

// panics panics in Launch.
type panics struct{ offsets }

func (panics) Launch() resume.Launch { panic("no launch") }

func TestCheckPositionPassesGoodOnes(t *testing.T) {
	for _, err := range resumetest.CheckPosition(offsets{Topic: "orders", Offset: 42}, offsetsOf) {
		t.Error(err)
	}
	// resumetest's own Position keeps the rules too.
	of := func(p resume.Position) (*resumetest.Position, error) {
		return resume.PositionAs[resumetest.Position](p, "test")
	}
	for _, err := range resumetest.CheckPosition(resumetest.Position{PositionKind: "test", Summary: "here", Start: resume.Launch{Args: []string{"-s", "p"}}}, of) {
		t.Error(err)
	}
}

// TestCheckPositionReportsEveryViolation feeds broken position types and
// PositionOf functions to the check and expects each rule to be named.
func TestCheckPositionReportsEveryViolation(t *testing.T) {
	for _, tc := range []struct {
		name string
		errs []error
		want []string
	}{
		{"StateOutsideTheJSON", resumetest.CheckPosition(hidden{Topic: "orders", offset: 42}, func(p resume.Position) (*hidden, error) {
			return resume.PositionAs[hidden](p, "test-hidden")
		}), []string{
			`position "test-hidden": PositionOf(read back) gives String "orders at 0", want "orders at 42"`,
			"PositionOf(read back) gives Launch",
		}},
		{"PointerMarshalJSON", resumetest.CheckPosition(ptrJSON{Topic: "orders"}, func(p resume.Position) (*ptrJSON, error) {
			return resume.PositionAs[ptrJSON](p, "test-ptr")
		}), []string{"a *T marshals differently from a T"}},
		{"OfAcceptsAnyKind", resumetest.CheckPosition(offsets{Topic: "orders"}, func(p resume.Position) (*offsets, error) {
			return resume.PositionAs[offsets](p, "test-offsets", "resumetest-other")
		}), []string{"PositionOf(a raw position of another kind) returned"}},
		{"OfAcceptsEverything", resumetest.CheckPosition(offsets{Topic: "orders"}, func(p resume.Position) (*offsets, error) {
			return &offsets{Topic: "orders"}, nil
		}), []string{"PositionOf(nil) returned", "PositionOf(a position of another type) returned", "JSON does not parse) returned"}},
		{"OfRefusesItsOwn", resumetest.CheckPosition(offsets{Topic: "orders"}, func(p resume.Position) (*offsets, error) {
			return nil, errors.New("no")
		}), []string{"PositionOf(T): no", "PositionOf(*T): no", "PositionOf(the position read back from a document): no"}},
		{"OfPanics", resumetest.CheckPosition(offsets{Topic: "orders"}, func(p resume.Position) (*offsets, error) {
			panic("boom")
		}), []string{"PositionOf(T): panicked: boom"}},
		{"BreaksCandidateRules", resumetest.CheckPosition(twoWords{}, func(p resume.Position) (*twoWords, error) {
			return resume.PositionAs[twoWords](p, "two words")
		}), []string{"want one word", "want one non-empty line"}},
		{"LaunchPanics", resumetest.CheckPosition(panics{offsets{Topic: "orders"}}, func(p resume.Position) (*panics, error) {
			return resume.PositionAs[panics](p, "test-offsets")
		}), []string{"Position.Launch panicked: no launch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var all []string
			for _, e := range tc.errs {
				var v *resumetest.Violation
				if !errors.As(e, &v) || v.Position == "" || v.Resolver != "" {
					t.Errorf("%v: not a position's *Violation", e)
				}
				all = append(all, e.Error())
			}
			joined := strings.Join(all, "\n")
			for _, w := range tc.want {
				if !strings.Contains(joined, w) {
					t.Errorf("violations %q: missing %q", all, w)
				}
			}
		})
	}
}

// A resolver package checks its position type with one value, beside its
// golden JSON test. This one keeps state its JSON leaves out.
func ExampleCheckPosition() {
	for _, err := range resumetest.CheckPosition(hidden{Topic: "orders", offset: 42}, func(p resume.Position) (*hidden, error) {
		return resume.PositionAs[hidden](p, "test-hidden")
	}) {
		fmt.Println(err)
	}
	// Output:
	// position "test-hidden": PositionOf(read back) gives String "orders at 0", want "orders at 42"
	// position "test-hidden": PositionOf(read back) gives Launch {Args:[--offset 0] Config:map[] Options:map[] Sources:[]}, want {Args:[--offset 42] Config:map[] Options:map[] Sources:[]}
}
