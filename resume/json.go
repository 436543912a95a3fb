package resume

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Schema is the value of the "schema" field of the decision document.
const Schema = "resumekit.decision/v1"

// The document's shapes. Field order here is the order in the document.
type (
	decisionJSON struct {
		Schema     string         `json:"schema"`
		Chosen     *candidateJSON `json:"chosen"`
		Considered []outcomeJSON  `json:"considered"`
	}
	outcomeJSON struct {
		Resolver  string         `json:"resolver"`
		Verdict   Verdict        `json:"verdict"`
		Why       string         `json:"why,omitempty"`
		Error     string         `json:"error,omitempty"`
		Candidate *candidateJSON `json:"candidate,omitempty"`
	}
	candidateJSON struct {
		Resolver  string          `json:"resolver"`
		Kind      string          `json:"kind"`
		Guarantee Guarantee       `json:"guarantee"`
		At        string          `json:"at,omitempty"`
		Position  json.RawMessage `json:"position"`
		Summary   string          `json:"summary"`
		Launch    Launch          `json:"launch"`
		Reasons   []string        `json:"reasons"`
		Warnings  []Warning       `json:"warnings"`
	}
)

// MarshalJSON encodes the decision as the resumekit.decision/v1 document: the
// chosen candidate (null when none) and every outcome in chain order, the
// winner included. Times are UTC and omitted when unknown, errors are text,
// arrays are never null, and each position is encoded with its own
// json.Marshaler (or its exported fields) under "position".
func (d Decision) MarshalJSON() ([]byte, error) {
	doc := decisionJSON{Schema: Schema, Considered: make([]outcomeJSON, 0, len(d.Considered))}
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
	return json.Marshal(doc)
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

// UnmarshalJSON reads a resumekit.decision/v1 document back. Positions become
// [*RawPosition]s that keep their kind, summary, launch and JSON; errors
// become plain errors with the recorded text. Marshalling the result gives
// the same bytes again.
func (d *Decision) UnmarshalJSON(data []byte) error {
	var doc decisionJSON
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("resume: decode decision: %w", err)
	}
	if doc.Schema != Schema {
		return fmt.Errorf("resume: decode decision: schema %q, want %q", doc.Schema, Schema)
	}
	out := Decision{Considered: make([]Outcome, 0, len(doc.Considered))}
	if doc.Chosen != nil {
		c, err := doc.Chosen.candidate()
		if err != nil {
			return err
		}
		out.Chosen = c
	}
	for _, oj := range doc.Considered {
		o := Outcome{Resolver: oj.Resolver, Verdict: oj.Verdict, Why: oj.Why}
		if oj.Error != "" {
			o.Err = errors.New(oj.Error)
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
	*d = out
	return nil
}

func (cj *candidateJSON) candidate() (*Candidate, error) {
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
			return nil, fmt.Errorf("resume: decode decision: candidate of %s: at: %w", cj.Resolver, err)
		}
		c.At = t.UTC()
	}
	return c, nil
}

// RawPosition is a position read back from a decision document. It keeps the
// kind, summary, launch and kind-specific JSON; each resolver package offers a
// typed accessor that decodes JSON into its own position type.
type RawPosition struct {
	PositionKind string          // the "kind" field
	Summary      string          // the "summary" field
	Start        Launch          // the "launch" field
	JSON         json.RawMessage // the "position" field, as recorded
}

var _ Position = (*RawPosition)(nil)

// Kind returns the recorded kind.
func (p *RawPosition) Kind() string { return p.PositionKind }

// String returns the recorded summary.
func (p *RawPosition) String() string { return p.Summary }

// Launch returns the recorded launch.
func (p *RawPosition) Launch() Launch { return p.Start }

// MarshalJSON returns the recorded position JSON (null when there is none).
func (p *RawPosition) MarshalJSON() ([]byte, error) {
	if len(p.JSON) == 0 {
		return []byte("null"), nil
	}
	return p.JSON, nil
}
