package resume

import (
	"fmt"
	"slices"
)

// Warning is a risk that does not disqualify a candidate: a stable Code a
// tool can branch on, and a Text for people. Codes are namespaced by source
// ("kafka.not-observed", "flink.older-than-broken"); the package doc lists
// every code resumekit emits. Codes are stable within v1: a code is never
// renamed or reused for another meaning.
type Warning struct {
	// Code identifies the kind of risk, e.g. "kafka.start-at-end".
	Code WarningCode `json:"code"`
	// Text says what the risk is for this candidate, in one line.
	Text string `json:"text"`
}

// WarningCode is a warning's stable code, namespaced by the package that
// emits it ("chain.", "flink.", "kafka.", "paimon.", "salvage.", …). The set
// is closed within a release and each code is a constant of its package
// (resume/doc.go lists them all); a reader of a stored document treats a
// code it does not know as a warning it cannot interpret.
type WarningCode string

// Warnf returns a Warning with the given code and the formatted text.
func Warnf(code WarningCode, format string, args ...any) Warning {
	return Warning{Code: code, Text: fmt.Sprintf(format, args...)}
}

// String returns "code: text".
func (w Warning) String() string {
	if w.Code == "" {
		return w.Text
	}
	return string(w.Code) + ": " + w.Text
}

// HasWarning reports whether the candidate carries a warning with the code.
func (c *Candidate) HasWarning(code WarningCode) bool {
	return slices.ContainsFunc(c.Warnings, func(w Warning) bool { return w.Code == code })
}

// Codes of the warnings the chain adds to the chosen candidate.
const (
	// WarnNewerProgress: another resolver shows newer progress than the
	// chosen position; input after the chosen position is read again.
	WarnNewerProgress = "chain.newer-progress"
	// WarnStateStartsEmpty: the chosen position does not restore operator
	// state (anything below exactly-once).
	WarnStateStartsEmpty = "chain.state-starts-empty"
	// WarnSourceFailed: a resolver failed and the candidate was chosen
	// anyway, because the failed resolver could not have offered a
	// stronger guarantee or the policy is ChooseAnyway. Decision.Failed
	// lists the failures; a gate that must not deploy past any failure
	// fails on this code (resumectl --fail-on-warning chain.source-failed).
	WarnSourceFailed = "chain.source-failed"
	// WarnProvedLost: another candidate's live check proved input this
	// position starts below gone; the chain graded it data-loss
	// ([InputStarter]).
	WarnProvedLost = "chain.proved-lost"
	// WarnShortValidity: the chosen candidate's ValidUntil is less than
	// Policy.MinValidity after now.
	WarnShortValidity = "chain.short-validity"
)
