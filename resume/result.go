package resume

import (
	"errors"
	"fmt"
)

// Result classifies what [Chain.Resolve] returned, for a deploy tool that
// branches on it (resumectl turns it into its exit status). Its values start
// at 1: the zero value is not a result, and its ExitCode is 1 (failed).
type Result int

const (
	// ResultChosen: a candidate was chosen and no resolver failed. Deploy
	// it. Exit status 0.
	ResultChosen Result = iota + 1
	// ResultFailed: a resolver failed (a storage outage, a panic, a
	// timeout, a broken contract) or the context ended. [Decision.Failed]
	// lists the failures. Under [ChooseAnyway], or when the failure could
	// not have offered anything better, a candidate may still be chosen; a
	// tool that deploys it does so knowingly. Exit status 1.
	ResultFailed
	// ResultUsage: the chain is set up wrongly (the error wraps [ErrUsage]:
	// no resolvers, a nil resolver, two resolvers with one name — then
	// nothing was asked — or an [All] without parts). Exit status 2.
	ResultUsage
	// ResultNothingAcceptable: every resolver answered and nothing
	// acceptable was offered (the error wraps [ErrNoPosition]): a first
	// deploy, or a policy nothing meets. Exit status 3.
	ResultNothingAcceptable
)

var resultNames = [...]string{
	ResultChosen:            "chosen",
	ResultFailed:            "failed",
	ResultUsage:             "usage",
	ResultNothingAcceptable: "nothing-acceptable",
}

// String returns chosen, failed, usage or nothing-acceptable, and
// "Result(N)" for other values.
func (r Result) String() string {
	if r >= ResultChosen && r <= ResultNothingAcceptable {
		return resultNames[r]
	}
	return fmt.Sprintf("Result(%d)", int(r))
}

// ExitCode returns the exit status resumectl uses for r: 0 chosen, 1 failed,
// 2 usage, 3 nothing acceptable, and 1 for anything else.
func (r Result) ExitCode() int {
	switch r {
	case ResultChosen:
		return 0
	case ResultUsage:
		return 2
	case ResultNothingAcceptable:
		return 3
	default:
		return 1
	}
}

// Classify says what a [Chain.Resolve] call came to, from its decision and
// error, in this order:
//   - ResultUsage when err wraps [ErrUsage];
//   - ResultFailed when a resolver failed (d.Failed() is not empty), or err is
//     any other error that does not wrap [ErrNoPosition] (a cancelled
//     context) — whether or not a candidate was chosen;
//   - ResultNothingAcceptable when nothing was chosen;
//   - ResultChosen otherwise.
//
// d may be nil (ResultNothingAcceptable with a nil or ErrNoPosition error,
// ResultFailed with another).
func Classify(d *Decision, err error) Result {
	switch {
	case errors.Is(err, ErrUsage):
		return ResultUsage
	case d != nil && len(d.Failed()) > 0:
		return ResultFailed
	case err != nil && !errors.Is(err, ErrNoPosition):
		return ResultFailed
	case d == nil || d.Chosen == nil:
		return ResultNothingAcceptable
	default:
		return ResultChosen
	}
}
