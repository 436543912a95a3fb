package resumetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/resumekit/resumekit/resume"
)

// CheckPosition checks a position type T of a resolver package, with one
// value p of it, and returns every violation of the rules the resume.Position
// doc lists (nil when there are none), as CheckResolver does for a resolver.
// of is the package's PositionOf. T is itself a resume.Position, so a type
// with pointer receivers does not compile here. The rules:
//   - Kind is one word, String one non-empty line, and p marshals to JSON
//     (the position rules of resume.CheckCandidate);
//   - a *T marshals to the same bytes as the T (MarshalJSON has a value
//     receiver);
//   - of returns p for a T and for a *T;
//   - in a candidate read back from its JSON (the decision document's
//     candidate form), the position is a *resume.RawPosition that of decodes
//     into a T with p's JSON, Kind, String and Launch — a position whose
//     String or Launch depends on something its JSON does not carry breaks
//     this rule — and the candidate marshals to the same bytes again;
//   - of refuses nil, a position of another type, one of another kind, and
//     one of its kind whose JSON does not parse.
//
// A method that panics is a violation; the panic is not passed on. Call it
// beside the package's golden JSON test, which pins the bytes:
//
//	for _, err := range resumetest.CheckPosition(goldenPosition(), kafkaoffset.PositionOf) {
//		t.Error(err)
//	}
func CheckPosition[T resume.Position](p T, of func(resume.Position) (*T, error)) []error {
	var errs []error
	kind := "?"
	fail := func(format string, args ...any) {
		errs = append(errs, &Violation{Position: kind, Rule: fmt.Sprintf(format, args...)})
	}
	if k, ok := try(fail, "Kind", p.Kind); ok {
		kind = k
	}
	var ce *resume.ContractError
	probe := resume.Candidate{Position: p, Guarantee: resume.Replay, Reasons: []string{"resumetest.CheckPosition"}}
	if err := resume.CheckCandidate(resume.ResolverFunc("resumetest", nil), probe); errors.As(err, &ce) {
		for _, problem := range ce.Problems {
			fail("%s", problem)
		}
		return errs // it does not marshal or describe itself: nothing more to check
	}
	want, _ := json.Marshal(p)
	if viaPtr, err := json.Marshal(&p); err != nil || !bytes.Equal(viaPtr, want) {
		fail("a *T marshals differently from a T (%s, %v; want %s): give MarshalJSON a value receiver", viaPtr, err, want)
	}

	same := func(form string, got *T) {
		gotJSON, err := json.Marshal(got)
		if err != nil || !bytes.Equal(gotJSON, want) {
			fail("PositionOf(%s) gives a position whose JSON is %s (%v), want %s", form, gotJSON, err, want)
		}
		if k, ok := try(fail, "Kind of the "+form+" position", (*got).Kind); ok && k != kind {
			fail("PositionOf(%s) gives Kind %q, want %q", form, k, kind)
		}
		if s, ok := try(fail, "String of the "+form+" position", (*got).String); ok && s != p.String() {
			fail("PositionOf(%s) gives String %q, want %q", form, s, p.String())
		}
		if l, ok := try(fail, "Launch of the "+form+" position", (*got).Launch); ok && !sameLaunch(l, p.Launch()) {
			fail("PositionOf(%s) gives Launch %+v, want %+v", form, l, p.Launch())
		}
	}
	for _, form := range []struct {
		name string
		pos  resume.Position
	}{{"T", p}, {"*T", any(&p).(resume.Position)}} {
		got, err := callOf(of, form.pos)
		switch {
		case err != nil:
			fail("PositionOf(%s): %v", form.name, err)
		case got == nil:
			fail("PositionOf(%s) returned nil and no error", form.name)
		default:
			same(form.name, got)
		}
	}

	first, err := json.Marshal(probe)
	if err != nil {
		fail("the candidate does not marshal: %v", err)
		return errs
	}
	var back resume.Candidate
	if err := json.Unmarshal(first, &back); err != nil {
		fail("the candidate does not read back: %v", err)
		return errs
	}
	if _, ok := back.Position.(*resume.RawPosition); !ok {
		fail("read back as %T, not *resume.RawPosition", back.Position)
	}
	switch got, err := callOf(of, back.Position); {
	case err != nil:
		fail("PositionOf(the position read back from a document): %v", err)
	case got == nil:
		fail("PositionOf(the position read back from a document) returned nil and no error")
	default:
		same("read back", got)
	}
	if second, err := json.Marshal(back); err != nil || !bytes.Equal(second, first) {
		fail("the candidate read back marshals differently (%v):\n%s\n%s", err, first, second)
	}

	for _, bad := range []struct {
		name string
		pos  resume.Position
	}{
		{"nil", nil},
		{"a position of another type", otherPosition{kind: kind}},
		{"a raw position of another kind", &resume.RawPosition{PositionKind: "resumetest-other", JSON: want}},
		{"a raw position whose JSON does not parse", &resume.RawPosition{PositionKind: kind, JSON: []byte(`{"`)}},
	} {
		if got, err := callOf(of, bad.pos); err == nil {
			fail("PositionOf(%s) returned %+v and no error", bad.name, got)
		}
	}
	return errs
}

// callOf calls of, turning a panic into an error.
func callOf[T any](of func(resume.Position) (*T, error), p resume.Position) (got *T, err error) {
	defer func() {
		if v := recover(); v != nil {
			got, err = nil, fmt.Errorf("panicked: %v", v)
		}
	}()
	return of(p)
}

// try calls f, reporting a panic as a violation of method.
func try[V any](fail func(string, ...any), method string, f func() V) (v V, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			fail("%s panicked: %v", method, r)
			ok = false
		}
	}()
	return f(), true
}

// sameLaunch compares launches, a nil slice or map equal to an empty one
// (the document writes both as [] and {}).
func sameLaunch(a, b resume.Launch) bool {
	return slices.Equal(a.Args, b.Args) && maps.Equal(a.Config, b.Config) && maps.Equal(a.Options, b.Options)
}

// otherPosition is a position of a type no PositionOf but resumetest's own
// accepts.
type otherPosition struct{ kind string }

func (o otherPosition) Kind() string          { return o.kind }
func (o otherPosition) String() string        { return "resumetest: a position of another type" }
func (o otherPosition) Launch() resume.Launch { return resume.Launch{} }
