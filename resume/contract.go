package resume

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// ContractError is the failure recorded for a resolver that returned a
// candidate with a nil error but broke a rule of the [Resolver] contract.
type ContractError struct {
	Resolver string   // the resolver's name
	Problems []string // one per broken rule, in the order the Resolver doc lists them
}

// Error names the resolver and every broken rule, on one line.
func (e *ContractError) Error() string {
	return fmt.Sprintf("resume: resolver %s broke the Resolver contract: %s", e.Resolver, strings.Join(e.Problems, "; "))
}

// CheckCandidate reports whether c, returned with a nil error by r, keeps
// the rules the [Resolver] doc lists for a candidate, its guarantee within
// [MaxGuarantee](r) included: it returns nil, or a [*ContractError] naming
// every broken rule. [Chain] and [All] record a resolver whose candidate fails
// the check as failed, never chosen; resumetest.CheckResolver reports the
// same problems. A Position whose methods panic breaks the rules; the panic
// is not passed on.
func CheckCandidate(r Resolver, c Candidate) error {
	name := func() (n string) {
		defer func() { recover() }() // a Name that panics names nothing
		if r != nil {
			n = r.Name()
		}
		return n
	}()
	return checkCandidate(name, MaxGuarantee(r), c)
}

// checkCandidate is CheckCandidate for a resolver already named and bound.
func checkCandidate(name string, bound Guarantee, c Candidate) error {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if c.Position == nil {
		add("returned no position and no error")
	} else {
		checkPosition(c.Position, add)
	}
	switch {
	case !c.Guarantee.Valid():
		add("guarantee %s: want data-loss, replay, exact-input or exactly-once", c.Guarantee)
	case c.Guarantee > bound:
		add("offered guarantee %s, above its MaxGuarantee %s", c.Guarantee, bound)
	}
	if c.Resolver != "" && c.Resolver != name {
		add("Candidate.Resolver is %q: want %q (the resolver's Name) or empty", c.Resolver, name)
	}
	if len(c.Reasons) == 0 {
		add("no Reasons: say what was found and which checks passed")
	}
	for i, r := range c.Reasons {
		if strings.TrimSpace(r) == "" {
			add("Reasons[%d] is empty", i)
		}
	}
	for i, w := range c.Warnings {
		switch {
		case w.Code == "" || strings.ContainsFunc(string(w.Code), unicode.IsSpace):
			add("Warnings[%d] has code %q: want a namespaced code without spaces, such as kafka.rewind-lag", i, w.Code)
		case strings.TrimSpace(w.Text) == "":
			add("Warnings[%d] (%s) has no text", i, w.Code)
		}
	}
	if problems == nil {
		return nil
	}
	return &ContractError{Resolver: name, Problems: problems}
}

// checkPosition applies the rules for a non-nil position, turning a panic in
// one of its methods into a problem.
func checkPosition(p Position, add func(string, ...any)) {
	try := func(method string, f func()) {
		defer func() {
			if v := recover(); v != nil {
				add("Position.%s panicked: %v", method, v)
			}
		}()
		f()
	}
	try("Kind", func() {
		if k := p.Kind(); k == "" || strings.ContainsFunc(k, unicode.IsSpace) {
			add("Position.Kind() is %q: want one word, such as flink-checkpoint", k)
		}
	})
	try("String", func() {
		if s := p.String(); strings.TrimSpace(s) == "" || strings.ContainsAny(s, "\r\n") {
			add("Position.String() is %q: want one non-empty line", s)
		}
	})
	try("Launch", func() { p.Launch() })
	try("MarshalJSON", func() {
		if _, err := json.Marshal(p); err != nil {
			add("the position does not marshal to JSON: %v", err)
		}
	})
}

// validate is the chain's and All's use of [CheckCandidate], with the name
// and bound they already hold.
func validate(c Candidate, name string, bound Guarantee) error { return checkCandidate(name, bound, c) }
