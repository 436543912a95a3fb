package resume

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/resumekit/resumekit/resume/redact"
)

// Schema is the value of the "schema" field of the decision document.
const Schema = "resumekit.decision/v1"

// The document's shapes. Field order here is the order in the document.
type (
	decisionJSON struct {
		Schema     string         `json:"schema"`
		Resumekit  string         `json:"resumekit,omitempty"`
		DecidedAt  string         `json:"decided_at,omitempty"`
		Policy     *policyJSON    `json:"policy,omitempty"`
		Chosen     *candidateJSON `json:"chosen"`
		Considered []outcomeJSON  `json:"considered"`
		// Record is the decision's second opinion (Decision.Record),
		// omitted when no record was read.
		Record *recordJSON `json:"record,omitempty"`
	}
	policyJSON struct {
		MinGuarantee Guarantee     `json:"min_guarantee"`
		MaxAge       string        `json:"max_age,omitempty"`
		OnFailure    FailurePolicy `json:"on_failure"`
		Timeout      string        `json:"timeout,omitempty"`
	}
	outcomeJSON struct {
		Resolver string  `json:"resolver"`
		Verdict  Verdict `json:"verdict"`
		Why      string  `json:"why,omitempty"`
		Error    string  `json:"error,omitempty"`
		// StateLost: the error was the state found and lost (exit 4,
		// Outcome.StateLost); read back, the error wraps ErrNoPosition and
		// ErrRefused again, so Classify gives exit 4 from the document too.
		StateLost bool           `json:"state_lost,omitempty"`
		Candidate *candidateJSON `json:"candidate,omitempty"`
	}
	candidateJSON struct {
		Resolver  string    `json:"resolver"`
		Kind      string    `json:"kind"`
		Guarantee Guarantee `json:"guarantee"`
		At        string    `json:"at,omitempty"`
		// ValidUntil is RFC 3339 UTC, omitted when unknown.
		ValidUntil string `json:"valid_until,omitempty"`
		// ValidUntilAssumed marks a valid_until that rests on an assumed
		// setting (Candidate.ValidUntilAssumed).
		ValidUntilAssumed bool            `json:"valid_until_assumed,omitempty"`
		Position          json.RawMessage `json:"position"`
		Summary           string          `json:"summary"`
		Launch            Launch          `json:"launch"`
		Reasons           []string        `json:"reasons"`
		Warnings          []Warning       `json:"warnings"`
	}
)

// MarshalJSON encodes the decision as the resumekit.decision/v1 document:
// the resumekit version, the decision time and the policy (each omitted when
// not recorded), the chosen candidate (null when none) and every outcome in
// chain order, the winner included. Times are UTC and omitted when unknown,
// durations are Go duration strings omitted when 0, errors are text, arrays
// are never null, and each position is encoded with its own json.Marshaler
// (or its exported fields) under "position".
func (d Decision) MarshalJSON() ([]byte, error) {
	doc := decisionJSON{Schema: Schema, Resumekit: d.Version, Policy: toPolicyJSON(d.Policy), Considered: make([]outcomeJSON, 0, len(d.Considered))}
	if !d.DecidedAt.IsZero() {
		doc.DecidedAt = formatAt(d.DecidedAt)
	}
	if d.Chosen != nil {
		c, err := toCandidateJSON(d.Chosen)
		if err != nil {
			return nil, err
		}
		doc.Chosen = c
	}
	for _, o := range d.Considered {
		oj := outcomeJSON{Resolver: o.Resolver, Verdict: o.Verdict, Why: oneLine(o.Why)}
		if o.Err != nil {
			oj.Error = oneLine(o.Err.Error())
			oj.StateLost = o.StateLost()
		}
		if o.Candidate != nil {
			c, err := toCandidateJSON(o.Candidate)
			if err != nil {
				return nil, err
			}
			oj.Candidate = c
		}
		doc.Considered = append(doc.Considered, oj)
	}
	doc.Record = toRecordJSON(d.Record)
	return json.Marshal(doc)
}

// toPolicyJSON returns the recorded form of p, nil when nothing is recorded
// (a zero policy, as in a decision read from a document without one).
func toPolicyJSON(p Policy) *policyJSON {
	if p.MinGuarantee == GuaranteeUnknown && p.MaxAge == 0 && p.Timeout == 0 && p.OnFailure == BlockWeaker {
		return nil
	}
	pj := &policyJSON{MinGuarantee: p.minGuarantee(), OnFailure: p.OnFailure}
	if p.MaxAge != 0 {
		pj.MaxAge = p.MaxAge.String()
	}
	if p.Timeout != 0 {
		pj.Timeout = p.Timeout.String()
	}
	return pj
}

func (pj *policyJSON) policy() (Policy, error) {
	p := Policy{MinGuarantee: pj.MinGuarantee, OnFailure: pj.OnFailure}
	if !p.MinGuarantee.Valid() {
		return p, errors.New("resume: decode decision: policy: no min_guarantee")
	}
	for _, f := range []struct {
		name, text string
		into       *time.Duration
	}{{"max_age", pj.MaxAge, &p.MaxAge}, {"timeout", pj.Timeout, &p.Timeout}} {
		if f.text == "" {
			continue
		}
		v, err := time.ParseDuration(f.text)
		if err != nil {
			return p, fmt.Errorf("resume: decode decision: policy: %s %s: not a duration", f.name, redact.Quote(f.text))
		}
		*f.into = v
	}
	return p, nil
}

// MarshalJSON encodes the candidate on its own, in the candidate form of the
// decision document: resolver, kind, guarantee, at (UTC, omitted when
// unknown), valid_until (UTC, omitted when unknown), position, summary,
// launch, reasons and warnings.
func (c Candidate) MarshalJSON() ([]byte, error) {
	cj, err := toCandidateJSON(&c)
	if err != nil {
		return nil, err
	}
	return json.Marshal(cj)
}

// UnmarshalJSON reads the candidate form of the decision document back; the
// position becomes a [*RawPosition] (each resolver package's PositionOf
// decodes it). A missing or unknown guarantee, or a missing kind, is an
// error. Marshalling the result gives the same bytes again.
func (c *Candidate) UnmarshalJSON(data []byte) error {
	var cj candidateJSON
	if err := json.Unmarshal(data, &cj); err != nil {
		return fmt.Errorf("resume: decode candidate: %w", err)
	}
	out, err := cj.candidate()
	if err != nil {
		return err
	}
	*c = *out
	return nil
}

func toCandidateJSON(c *Candidate) (*candidateJSON, error) {
	if c.Position == nil {
		return nil, fmt.Errorf("resume: candidate of %s has no position", c.Resolver)
	}
	raw, err := json.Marshal(c.Position)
	if err != nil {
		return nil, fmt.Errorf("resume: marshal position of %s: %w", c.Resolver, err)
	}
	cj := &candidateJSON{
		Resolver:  c.Resolver,
		Kind:      c.Position.Kind(),
		Guarantee: c.Guarantee,
		Position:  raw,
		Summary:   c.Position.String(),
		Launch:    c.Position.Launch().clone(),
		Reasons:   nonNil(c.Reasons),
		Warnings:  nonNilWarnings(c.Warnings),
	}
	if !c.At.IsZero() {
		cj.At = formatAt(c.At)
	}
	if !c.ValidUntil.IsZero() {
		cj.ValidUntil = formatAt(c.ValidUntil)
		cj.ValidUntilAssumed = c.ValidUntilAssumed
	}
	return cj, nil
}

func nonNilWarnings(ws []Warning) []Warning {
	out := make([]Warning, len(ws))
	for i, w := range ws {
		out[i] = Warning{Code: w.Code, Text: oneLine(w.Text)}
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// UnmarshalJSON reads a resumekit.decision/v1 document back. Each position
// becomes a [*RawPosition] that keeps its kind, summary, launch and JSON; errors
// become plain errors with the recorded text. Marshalling the result gives
// the same bytes again.
func (d *Decision) UnmarshalJSON(data []byte) error {
	var doc decisionJSON
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("resume: decode decision: %w", err)
	}
	if doc.Schema != Schema {
		return fmt.Errorf("resume: decode decision: schema %s, want %q", redact.Quote(doc.Schema), Schema)
	}
	out := Decision{Version: doc.Resumekit, Considered: make([]Outcome, 0, len(doc.Considered))}
	if doc.DecidedAt != "" {
		t, err := time.Parse(time.RFC3339Nano, doc.DecidedAt)
		if err != nil {
			return fmt.Errorf("resume: decode decision: decided_at %s: not an RFC 3339 time", redact.Quote(doc.DecidedAt))
		}
		out.DecidedAt = t.UTC()
	}
	if doc.Policy != nil {
		p, err := doc.Policy.policy()
		if err != nil {
			return err
		}
		out.Policy = p
	}
	if doc.Chosen != nil {
		c, err := doc.Chosen.candidate()
		if err != nil {
			return err
		}
		out.Chosen = c
	}
	for i, oj := range doc.Considered {
		if oj.Verdict == 0 {
			return fmt.Errorf("resume: decode decision: outcome %d (%s): no verdict", i+1, redact.Quote(oj.Resolver))
		}
		o := Outcome{Resolver: oj.Resolver, Verdict: oj.Verdict, Why: oj.Why}
		if oj.Error != "" {
			o.Err = errors.New(oj.Error)
			if oj.StateLost {
				o.Err = stateLostError{oj.Error}
			}
		}
		if oj.Candidate != nil {
			c, err := oj.Candidate.candidate()
			if err != nil {
				return err
			}
			o.Candidate = c
			if o.Verdict == VerdictChosen && out.Chosen != nil && out.Chosen.Resolver == c.Resolver {
				o.Candidate = out.Chosen
			}
		}
		out.Considered = append(out.Considered, o)
	}
	rec, err := doc.Record.record()
	if err != nil {
		return err
	}
	out.Record = rec
	*d = out
	return nil
}

func (cj *candidateJSON) candidate() (*Candidate, error) {
	if !cj.Guarantee.Valid() {
		return nil, fmt.Errorf("resume: decode candidate of %s: no guarantee", redact.Quote(cj.Resolver))
	}
	if cj.Kind == "" {
		return nil, fmt.Errorf("resume: decode candidate of %s: no kind", redact.Quote(cj.Resolver))
	}
	c := &Candidate{
		Resolver:  cj.Resolver,
		Guarantee: cj.Guarantee,
		Reasons:   cj.Reasons,
		Warnings:  cj.Warnings,
		Position: &RawPosition{
			PositionKind: cj.Kind,
			Summary:      cj.Summary,
			Start:        cj.Launch,
			JSON:         bytes.Clone(cj.Position),
		},
	}
	if cj.At != "" {
		t, err := time.Parse(time.RFC3339Nano, cj.At)
		if err != nil {
			return nil, fmt.Errorf("resume: decode candidate of %s: at %s: not an RFC 3339 time", redact.Quote(cj.Resolver), redact.Quote(cj.At))
		}
		c.At = t.UTC()
	}
	if cj.ValidUntil != "" {
		t, err := time.Parse(time.RFC3339Nano, cj.ValidUntil)
		if err != nil {
			return nil, fmt.Errorf("resume: decode candidate of %s: valid_until %s: not an RFC 3339 time", redact.Quote(cj.Resolver), redact.Quote(cj.ValidUntil))
		}
		c.ValidUntil, c.ValidUntilAssumed = t.UTC(), cj.ValidUntilAssumed
	}
	return c, nil
}

// RawPosition is a position read back from a decision document. It keeps the
// kind, summary, launch and kind-specific JSON; each resolver package offers a
// typed accessor that decodes JSON into its own position type. Its methods
// have value receivers, as every Position's: a RawPosition and a
// *RawPosition are both Positions and marshal alike.
type RawPosition struct {
	PositionKind string          // the "kind" field
	Summary      string          // the "summary" field
	Start        Launch          // the "launch" field
	JSON         json.RawMessage // the "position" field, as recorded
}

var (
	_ Position = RawPosition{}
	_ Position = (*RawPosition)(nil)
)

// Kind returns the recorded kind.
func (p RawPosition) Kind() string { return p.PositionKind }

// String returns the recorded summary.
func (p RawPosition) String() string { return p.Summary }

// Launch returns the recorded launch.
func (p RawPosition) Launch() Launch { return p.Start }

// MarshalJSON returns the recorded position JSON (null when there is none).
func (p RawPosition) MarshalJSON() ([]byte, error) {
	if len(p.JSON) == 0 {
		return []byte("null"), nil
	}
	return p.JSON, nil
}

// stateLostError is a state-lost outcome's error read back from a document:
// its text, wrapping what the resolver's error wrapped.
type stateLostError struct{ text string }

func (e stateLostError) Error() string   { return e.text }
func (e stateLostError) Unwrap() []error { return []error{ErrNoPosition, ErrRefused} }
