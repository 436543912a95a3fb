package resume

import (
	"errors"
	"fmt"
)

// Result classifies what [Chain.Resolve] returned, for a deploy tool that
// branches on it (resumectl turns it into its exit status). Each result has
// one meaning and one exit code ([Result.ExitCode]). Its values start at 1:
// the zero value is not a result, and its ExitCode is 1 (failed).
type Result int

const (
	// ResultChosen: a candidate was chosen. Deploy it. Exit status 0
	// ([ExitChosen]). A resolver may still have failed without blocking
	// the choice (it could not have offered more, or the policy is
	// [ChooseAnyway]): the chosen candidate then carries the warning
	// [WarnSourceFailed], and [Decision.Failed] lists the failures.
	ResultChosen Result = iota + 1
	// ResultFailed: nothing was chosen because a resolver failed (a
	// storage outage, a permission error, a panic, a timeout, a broken
	// contract) or the context ended. [Decision.Failed] lists the
	// failures. Do not deploy; retry or page someone. Exit status 1
	// ([ExitFailed]).
	ResultFailed
	// ResultUsage: the chain is set up wrongly (the error wraps [ErrUsage]:
	// no resolvers, a nil resolver, two resolvers with one name — then
	// nothing was asked — or an [All] without parts). Exit status 2
	// ([ExitUsage]).
	ResultUsage
	// ResultNothingToRestore: every resolver answered and none had a
	// candidate (the error wraps [ErrNoPosition]): a first deploy, or a
	// mistyped prefix (flinkckpt.ErrEmptyLocation says which location held
	// nothing at all). Starting empty is a decision to make on purpose.
	// Exit status 3 ([ExitNothingToRestore]).
	ResultNothingToRestore
	// ResultRefused: candidates were offered, and the policy refused every
	// one — for data loss (a guarantee below [Policy.MinGuarantee]) or
	// age ([Policy.MaxAge]) — and no resolver failed (the error wraps
	// [ErrRefused]). [Decision.Considered] says why each was refused.
	// Exit status 4 ([ExitRefused]).
	ResultRefused
	// ResultIncompatible: the state is there but no snapshot fits the new
	// job (the error wraps [ErrIncompatible]; flinkckpt.ErrIncompatible
	// too), nothing else was offered, and no resolver failed. Exit status
	// 5 ([ExitIncompatible]).
	ResultIncompatible
)

// Exit statuses of resumectl, one meaning each; [Result.ExitCode] maps a
// [Result] to the first six. A deploy tool written in Go that wraps the
// chain can exit the same way.
const (
	// ExitChosen: a candidate was chosen ([ResultChosen]).
	ExitChosen = 0
	// ExitFailed: a source failed (store down, permission), nothing chosen
	// ([ResultFailed]); also a command that could not read its input (a
	// missing checkpoint dir).
	ExitFailed = 1
	// ExitUsage: a bad flag or argument, or a bad chain ([ResultUsage]).
	ExitUsage = 2
	// ExitNothingToRestore: every source answered, empty: a first deploy or
	// a mistyped prefix ([ResultNothingToRestore]).
	ExitNothingToRestore = 3
	// ExitRefused: candidates exist, all refused for data loss or by the
	// policy ([ResultRefused]).
	ExitRefused = 4
	// ExitIncompatible: candidates exist, none fits the new job
	// ([ResultIncompatible]).
	ExitIncompatible = 5
	// ExitFormat: a candidate was chosen, but the requested output format
	// cannot express it (resumectl --format k8s for a stateless start).
	ExitFormat = 6
	// ExitWarning: a candidate was chosen with a warning the caller asked
	// to fail on (resumectl --fail-on-warning CODE[,CODE]).
	ExitWarning = 7
)

var resultNames = [...]string{
	ResultChosen:           "chosen",
	ResultFailed:           "failed",
	ResultUsage:            "usage",
	ResultNothingToRestore: "nothing-to-restore",
	ResultRefused:          "refused",
	ResultIncompatible:     "incompatible",
}

// String returns chosen, failed, usage, nothing-to-restore, refused or
// incompatible, and "Result(N)" for other values.
func (r Result) String() string {
	if r >= ResultChosen && r <= ResultIncompatible {
		return resultNames[r]
	}
	return fmt.Sprintf("Result(%d)", int(r))
}

// ExitCode returns the exit status resumectl uses for r: 0 chosen, 1 failed,
// 2 usage, 3 nothing to restore, 4 refused, 5 incompatible, and 1 for
// anything else.
func (r Result) ExitCode() int {
	switch r {
	case ResultChosen:
		return ExitChosen
	case ResultUsage:
		return ExitUsage
	case ResultNothingToRestore:
		return ExitNothingToRestore
	case ResultRefused:
		return ExitRefused
	case ResultIncompatible:
		return ExitIncompatible
	default:
		return ExitFailed
	}
}

// ErrRefused is what [Chain.Resolve]'s error wraps when candidates were
// offered and the policy refused every one (data loss below
// Policy.MinGuarantee, or older than Policy.MaxAge) and no resolver failed.
// It does not wrap [ErrNoPosition]. Check it with errors.Is.
var ErrRefused = errors.New("resume: every candidate was refused by the policy")

// ErrIncompatible is what [Chain.Resolve]'s error wraps when nothing was
// offered because the new job cannot restore the snapshots that are there
// (a resolver's no-position error wraps it, as flinkckpt.ErrIncompatible
// does) and no resolver failed. The chain's error then does not wrap
// [ErrNoPosition]. Check it with errors.Is.
var ErrIncompatible = errors.New("resume: no snapshot fits the new job")

// Classify says what a [Chain.Resolve] call came to, from its decision and
// error, in this order:
//   - ResultUsage when err wraps [ErrUsage];
//   - ResultChosen when a candidate was chosen;
//   - ResultFailed when a resolver failed (d.Failed() is not empty), or err is
//     any other error that does not wrap [ErrNoPosition], [ErrRefused] or
//     [ErrIncompatible] (a cancelled context);
//   - ResultRefused when a candidate was offered (and refused), or a
//     resolver's no-position error wraps [ErrRefused] (flinkckpt.ErrBroken:
//     snapshots are there, and none can be restored);
//   - ResultIncompatible when a resolver's no-position error wraps
//     [ErrIncompatible] (or err does);
//   - ResultNothingToRestore otherwise.
//
// d may be nil (then err decides: ResultNothingToRestore for nil or
// ErrNoPosition, ResultFailed for another). A decision read back from its
// document classifies the same way, but for ResultIncompatible, which the
// document's error strings cannot carry: pass the recorded error when there
// is one.
func Classify(d *Decision, err error) Result {
	switch {
	case errors.Is(err, ErrUsage):
		return ResultUsage
	case d != nil && d.Chosen != nil:
		return ResultChosen
	case d != nil && len(d.Failed()) > 0:
		return ResultFailed
	case err != nil && !errors.Is(err, ErrNoPosition) && !errors.Is(err, ErrRefused) && !errors.Is(err, ErrIncompatible):
		return ResultFailed
	case errors.Is(err, ErrRefused):
		return ResultRefused
	case errors.Is(err, ErrIncompatible):
		return ResultIncompatible
	case d == nil:
		return ResultNothingToRestore
	}
	return d.nothingChosen()
}

// nothingChosen classifies a decision without a choice and without failures
// from its outcomes.
func (d *Decision) nothingChosen() Result {
	incompatible := false
	for _, o := range d.Considered {
		if o.Candidate != nil && o.Verdict == VerdictRejected {
			return ResultRefused
		}
		if o.Verdict == VerdictNoPosition && errors.Is(o.Err, ErrRefused) {
			return ResultRefused // snapshots there, every one refused (flinkckpt.ErrBroken)
		}
		if o.Verdict == VerdictNoPosition && errors.Is(o.Err, ErrIncompatible) {
			incompatible = true
		}
	}
	if incompatible {
		return ResultIncompatible
	}
	return ResultNothingToRestore
}
