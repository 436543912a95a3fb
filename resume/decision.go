package resume

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/resumekit/resumekit/resume/redact"
)

// Verdict says what the chain made of one resolver's answer.
type Verdict int

// Verdicts start at 1, so that the zero value is never a valid verdict.
const (
	// VerdictChosen: the candidate won.
	VerdictChosen Verdict = iota + 1
	// VerdictRejected: the candidate was acceptable or not, but lost; Why says why.
	VerdictRejected
	// VerdictFailed: the resolver could not look; Err says why.
	VerdictFailed
	// VerdictNoPosition: the resolver looked and found nothing to offer.
	VerdictNoPosition
)

var verdictNames = [...]string{
	VerdictChosen:     "chosen",
	VerdictRejected:   "rejected",
	VerdictFailed:     "failed",
	VerdictNoPosition: "no-position",
}

// String returns chosen, rejected, failed or no-position.
func (v Verdict) String() string {
	if v >= VerdictChosen && v <= VerdictNoPosition {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// MarshalText implements encoding.TextMarshaler.
func (v Verdict) MarshalText() ([]byte, error) {
	if v < VerdictChosen || v > VerdictNoPosition {
		return nil, fmt.Errorf("resume: cannot marshal verdict %d", int(v))
	}
	return []byte(verdictNames[v]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (v *Verdict) UnmarshalText(text []byte) error {
	for w := VerdictChosen; w <= VerdictNoPosition; w++ {
		if verdictNames[w] == string(text) {
			*v = w
			return nil
		}
	}
	return fmt.Errorf("resume: unknown verdict %s", redact.Quote(string(text)))
}

// Outcome is what one resolver of a chain answered and what the chain made of it.
type Outcome struct {
	// Resolver is the resolver's name.
	Resolver string
	// Candidate is the resolver's candidate; nil when it failed or had none.
	Candidate *Candidate
	// Err is the resolver's error, for VerdictFailed and VerdictNoPosition.
	Err error
	// Verdict is what the chain made of the answer.
	Verdict Verdict
	// Why is one line saying why the candidate lost (VerdictRejected) or won
	// (VerdictChosen); empty for failures, whose Err says it.
	Why string
}

// Decision is the result of [Chain.Resolve], and a record of how it was
// made: when, under which policy, by which resumekit version.
//
// # The document
//
// [Decision] marshals to the resumekit.decision/v1 document and reads back
// from it (json.Unmarshal into a Decision, or a single [Candidate] from its
// candidate form): each position becomes a [*RawPosition] that its resolver
// package's PositionOf decodes ([Positions] of [All]: PositionAs with
// [KindAll]), and marshalling again gives the same bytes. The
// document is a record of how the decision was made: "resumekit" (the module
// version, [ModuleVersion]), "decided_at" (Policy.Now in UTC) and "policy"
// ("min_guarantee"; "max_age" and "timeout" as Go duration strings such as
// "24h0m0s", omitted when 0; "on_failure").
//
// Each candidate carries "valid_until" ([Candidate.ValidUntil], RFC 3339
// UTC, omitted when unknown): the earliest moment one of its position's
// inputs may leave retention (a Kafka record deleted, a Paimon snapshot
// expired, a binlog purged), the rule that says so among its reasons.
// [Policy.MinValidity] (resumectl's --min-validity, an hour by default) is
// what a deploy needs of it: when the chosen candidate's valid_until is
// less than MinValidity after decided_at, the chosen candidate carries a
// chain.short-validity warning ([WarnShortValidity]) naming both — deploy
// now or extend retention first; nothing is rejected for it. MinValidity
// itself is not recorded under "policy": the warning is its record.
//
// Compatibility within v1:
//   - fields may be added, at any level; readers must ignore fields they do
//     not know, and a field added later is omitted when it is not recorded
//     (an older document reads back and marshals to its own bytes);
//   - no field is removed, renamed or changes meaning or type;
//   - the sets of verdicts (chosen, rejected, failed, no-position),
//     guarantees (data-loss, replay, exact-input, exactly-once) and failure
//     policies (block-weaker, choose-anyway) are closed: a reader may switch
//     on them exhaustively, and a new value means a new schema,
//     resumekit.decision/v2;
//   - warning codes are stable (never renamed, never reused); new codes may
//     appear, so a reader treats an unknown code as a warning it cannot
//     interpret, not as an error;
//   - the position object of each kind follows the same rules (its resolver
//     package keeps a golden file of it).
type Decision struct {
	// Chosen is the winning candidate; nil when nothing is acceptable (then
	// Resolve's error says why).
	Chosen *Candidate
	// Considered has one outcome per resolver, in chain order, the winner's
	// included. It is empty when Resolve refused the chain ([ErrUsage]).
	Considered []Outcome
	// DecidedAt is the time the decision was made, Policy.Now() (the wall
	// clock by default) in UTC: the time MaxAge was measured from. Zero in a
	// decision read from a document that does not record it.
	DecidedAt time.Time
	// Policy is the policy the decision was made under, with MinGuarantee
	// explicit (Replay for 0) and Now cleared (DecidedAt records it). A
	// decision read from a document that records no policy has a zero
	// MinGuarantee, and marshals without one again.
	Policy Policy
	// Version is the resumekit module version that decided ([ModuleVersion]:
	// "(devel)" when unknown); "" when not recorded. A golden test sets it
	// to a fixed value before marshalling.
	Version string
	// Record is what Flink's and the operator's own records say will be
	// restored, beside storage, with every disagreement graded; nil when no
	// record was read. Package flinkckpt/record fills it in.
	Record *Record
}

// Failed returns the outcomes of the resolvers that failed (VerdictFailed:
// they could not look, panicked, timed out, broke the contract, or were not
// asked because the context ended), in chain order; nil when none failed. A
// deploy tool branches on it, or on [Classify], never on error text.
func (d *Decision) Failed() []Outcome {
	var out []Outcome
	for _, o := range d.Considered {
		if o.Verdict == VerdictFailed {
			out = append(out, o)
		}
	}
	return out
}

// why is the outcome's one-line explanation, falling back to its error.
// StateLost reports whether the outcome is a source that found the job's
// state and could restore none of it (a resolver's no-position error that
// wraps [ErrRefused], as flinkckpt.ErrBroken does: every completed
// snapshot broken): exit 4, the state lost, never "nothing there". Reports
// show it in the loss colour with what was lost, not as a grey
// no-position. A decision read back from its document keeps the error's
// text only, not what it wraps: there StateLost is false.
func (o Outcome) StateLost() bool {
	return o.Verdict == VerdictNoPosition && o.Candidate == nil && errors.Is(o.Err, ErrRefused)
}

func (o Outcome) why() string {
	if o.Why != "" {
		return o.Why
	}
	if o.Err != nil {
		return o.Err.Error()
	}
	return ""
}

// HintOptions renders source options as the body of a Flink SQL OPTIONS hint,
// sorted by key: 'consumer-id'='job-1','scan.snapshot-id'='121'. Single
// quotes inside keys and values are doubled, as Flink SQL string literals
// require.
func HintOptions(opts map[string]string) string {
	parts := make([]string, 0, len(opts))
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		parts = append(parts, sqlQuote(k)+"="+sqlQuote(opts[k]))
	}
	return strings.Join(parts, ",")
}

func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func positionSummary(p Position) string {
	if p == nil {
		return "<no position>"
	}
	return oneLine(p.String())
}

func formatAt(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// oneLine folds a multi-line message into one line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }), "; ")
}
