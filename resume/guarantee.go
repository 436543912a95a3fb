package resume

import (
	"fmt"

	"github.com/resumekit/resumekit/resume/redact"
)

// Guarantee grades what a restart from a position preserves, worst to best.
// Its zero value, GuaranteeUnknown, is not a valid grade: a resolver that
// returns it fails, and it does not marshal.
type Guarantee int

// The guarantee ladder, ordered worst to best.
const (
	// GuaranteeUnknown is the zero value: no grade was given.
	GuaranteeUnknown Guarantee = iota
	// DataLoss means some input between the old job's progress and this
	// position is never read.
	DataLoss
	// Replay means nothing is skipped but some input is read again
	// (at-least-once).
	Replay
	// ExactInput means input resumes exactly after durably recorded progress;
	// operator state starts empty.
	ExactInput
	// ExactlyOnce means operator state and input position are restored
	// together (a Flink checkpoint or savepoint).
	ExactlyOnce
)

var guaranteeNames = [...]string{
	DataLoss:    "data-loss",
	Replay:      "replay",
	ExactInput:  "exact-input",
	ExactlyOnce: "exactly-once",
}

// Valid reports whether g is one of DataLoss, Replay, ExactInput or ExactlyOnce.
func (g Guarantee) Valid() bool { return g >= DataLoss && g <= ExactlyOnce }

// String returns the guarantee's name: data-loss, replay, exact-input or
// exactly-once; "unknown" for GuaranteeUnknown and "Guarantee(N)" otherwise.
func (g Guarantee) String() string {
	if g.Valid() {
		return guaranteeNames[g]
	}
	if g == GuaranteeUnknown {
		return "unknown"
	}
	return fmt.Sprintf("Guarantee(%d)", int(g))
}

// MarshalText implements encoding.TextMarshaler. GuaranteeUnknown and
// out-of-range values do not marshal.
func (g Guarantee) MarshalText() ([]byte, error) {
	if !g.Valid() {
		return nil, fmt.Errorf("resume: cannot marshal guarantee %s", g)
	}
	return []byte(guaranteeNames[g]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler; it accepts the names
// String returns for valid guarantees.
func (g *Guarantee) UnmarshalText(text []byte) error {
	p, err := ParseGuarantee(string(text))
	if err != nil {
		return err
	}
	*g = p
	return nil
}

// ParseGuarantee returns the guarantee named s (data-loss, replay, exact-input
// or exactly-once).
func ParseGuarantee(s string) (Guarantee, error) {
	for g := DataLoss; g <= ExactlyOnce; g++ {
		if guaranteeNames[g] == s {
			return g, nil
		}
	}
	return GuaranteeUnknown, fmt.Errorf("resume: unknown guarantee %s (want data-loss, replay, exact-input or exactly-once)", redact.Quote(s))
}
