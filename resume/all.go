package resume

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"
)

// All combines the resolvers of a job that reads several sources (a Kafka
// topic joined with a Paimon table): a stateless restart needs a position for
// every source. The parts are asked concurrently. The combined candidate's
// guarantee is the weakest part's, its At the oldest part's (unknown if any
// part's is unknown), its launch the union of the parts' launches, and its
// reasons and warnings the parts', each prefixed with the part's name.
//
// It fails if any part fails, and with an error wrapping [ErrUsage] when it
// was given no parts; if parts have nothing to offer and none failed,
// its error wraps [ErrNoPosition] (a failure elsewhere keeps it a failure);
// if two parts set the same launch option or configuration key to different
// values, it fails rather than pick one. The resolver it returns implements
// [GuaranteeBounder]: its bound is the weakest of the parts' bounds.
func All(name string, parts ...Resolver) Resolver {
	return allResolver{name: name, parts: parts}
}

type allResolver struct {
	name  string
	parts []Resolver
}

func (a allResolver) Name() string { return a.name }

// MaxGuarantee is the weakest of the parts' bounds (see [MaxGuarantee]: a
// part without one counts as exactly-once): the combined candidate is only
// as good as its weakest part.
func (a allResolver) MaxGuarantee() Guarantee {
	g := ExactlyOnce
	for _, p := range a.parts {
		g = min(g, MaxGuarantee(p))
	}
	return g
}

func (a allResolver) Resolve(ctx context.Context) (Candidate, error) {
	if len(a.parts) == 0 {
		return Candidate{}, fmt.Errorf("resume: %s: %w: All was given no parts", a.name, ErrUsage)
	}
	answers := make([]answer, len(a.parts))
	names := make([]string, len(a.parts))
	var wg sync.WaitGroup
	for i, p := range a.parts {
		names[i] = safeName(p, i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = call(ctx, p, names[i], 0)
		}()
	}
	wg.Wait()

	var failed, empty []error
	for i, ans := range answers {
		err := ans.err
		if err == nil {
			err = validate(ans.cand, names[i], MaxGuarantee(a.parts[i]))
		}
		switch {
		case err == nil:
		case errors.Is(err, ErrNoPosition):
			empty = append(empty, fmt.Errorf("part %s: %w", names[i], err))
		default:
			failed = append(failed, fmt.Errorf("part %s: %w", names[i], err))
		}
	}
	if len(failed) > 0 {
		// A real failure must stay a failure: parts with nothing are only
		// mentioned, so that the whole does not read as ErrNoPosition.
		for _, e := range empty {
			failed = append(failed, errors.New(e.Error()))
		}
		return Candidate{}, fmt.Errorf("resume: %s: %w", a.name, errors.Join(failed...))
	}
	if len(empty) > 0 {
		return Candidate{}, fmt.Errorf("resume: %s: %w", a.name, errors.Join(empty...))
	}

	pos := Positions{}
	out := Candidate{Resolver: a.name, Guarantee: ExactlyOnce}
	unknownAt := false
	for i, ans := range answers {
		c := ans.cand
		if c.Resolver == "" {
			c.Resolver = names[i]
		}
		pos.Parts = append(pos.Parts, c)
		out.Guarantee = min(out.Guarantee, c.Guarantee)
		switch {
		case c.At.IsZero():
			unknownAt = true
		case out.At.IsZero() || c.At.Before(out.At):
			out.At = c.At
		}
		for _, r := range c.Reasons {
			out.Reasons = append(out.Reasons, c.Resolver+": "+r)
		}
		for _, w := range c.Warnings {
			out.Warnings = append(out.Warnings, Warning{Code: w.Code, Text: c.Resolver + ": " + w.Text})
		}
	}
	if unknownAt {
		out.At = time.Time{}
	}
	if _, err := pos.merge(); err != nil {
		return Candidate{}, fmt.Errorf("resume: %s: %w", a.name, err)
	}
	out.Position = pos
	return out, nil
}

// KindAll is the [Position.Kind] of [Positions], the position of [All].
const KindAll = "all"

// Positions is the position of [All]: one candidate per source, in the order
// the parts were given. A decision read back from its document holds it as a
// [*RawPosition] of kind "all"; PositionAs[Positions](p, KindAll) decodes it,
// each part's position a *RawPosition that its resolver package's PositionOf
// decodes in turn.
type Positions struct {
	Parts []Candidate
}

var _ Position = Positions{}

// Kind returns "all".
func (p Positions) Kind() string { return KindAll }

// String lists the parts' positions.
func (p Positions) String() string {
	s := make([]string, len(p.Parts))
	for i, c := range p.Parts {
		s[i] = c.Resolver + ": " + positionSummary(c.Position)
	}
	return strings.Join(s, " + ")
}

// Launch returns the union of the parts' launches. All has already refused
// conflicting keys, so the union is well defined. Options of different
// sources usually belong to different tables' SQL hints (a Paimon table's
// consumer-id, a Kafka table's scan.startup.mode): Sources holds each
// part's options under its table ([SourceTabler], else the part's
// resolver name), for a deploy tool that applies hints per table.
func (p Positions) Launch() Launch {
	l, _ := p.merge()
	return l
}

func (p Positions) merge() (Launch, error) {
	var l Launch
	from := map[string]string{}
	put := func(m *map[string]string, kind, k, v, part string) error {
		if *m == nil {
			*m = map[string]string{}
		}
		if old, ok := (*m)[k]; ok && old != v {
			return fmt.Errorf("parts %s and %s set %s %q differently (%q, %q): apply their launches per source", from[kind+k], part, kind, k, old, v)
		}
		(*m)[k] = v
		from[kind+k] = part
		return nil
	}
	for _, c := range p.Parts {
		if c.Position == nil {
			continue
		}
		pl := c.Position.Launch()
		l.Args = append(l.Args, pl.Args...)
		for k, v := range pl.Config {
			if err := put(&l.Config, "config", k, v, c.Resolver); err != nil {
				return l, err
			}
		}
		for k, v := range pl.Options {
			if err := put(&l.Options, "option", k, v, c.Resolver); err != nil {
				return l, err
			}
		}
		switch {
		case len(pl.Sources) > 0:
			l.Sources = append(l.Sources, pl.Sources...)
		case len(pl.Options) > 0:
			table := sourceTable(c.Position)
			if table == "" {
				table = c.Resolver
			}
			l.Sources = append(l.Sources, SourceOptions{Table: table, Options: maps.Clone(pl.Options)})
		}
	}
	if len(l.Sources) < 2 {
		l.Sources = nil // one source: Options says it all
	}
	return l, nil
}

// MarshalJSON encodes {"parts":[candidate, ...]} with each part in the
// candidate form of the decision document.
func (p Positions) MarshalJSON() ([]byte, error) {
	parts := make([]*candidateJSON, 0, len(p.Parts))
	for i := range p.Parts {
		c, err := toCandidateJSON(&p.Parts[i])
		if err != nil {
			return nil, err
		}
		parts = append(parts, c)
	}
	return json.Marshal(positionsJSON{parts})
}

// UnmarshalJSON reads what MarshalJSON wrote: each part's position becomes a
// [*RawPosition]. A missing "parts" field is an error. Its errors say what
// is wrong; [PositionAs] says which position.
func (p *Positions) UnmarshalJSON(data []byte) error {
	var pj struct {
		Parts *[]*candidateJSON `json:"parts"`
	}
	if err := json.Unmarshal(data, &pj); err != nil {
		return err
	}
	if pj.Parts == nil {
		return errors.New("no parts field")
	}
	out := Positions{Parts: make([]Candidate, 0, len(*pj.Parts))}
	for i, cj := range *pj.Parts {
		if cj == nil {
			return fmt.Errorf("part %d is null", i+1)
		}
		c, err := cj.candidate()
		if err != nil {
			return fmt.Errorf("part %d: %w", i+1, err)
		}
		out.Parts = append(out.Parts, *c)
	}
	*p = out
	return nil
}

type positionsJSON struct {
	Parts []*candidateJSON `json:"parts"`
}
