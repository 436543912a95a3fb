package flinkckpt

import "fmt"

// State is the state of a checkpoint or savepoint dir.
type State string

// The states List reports.
const (
	// StateComplete: _metadata parses and every checked file exists with
	// its recorded size.
	StateComplete State = "complete"
	// StateIncomplete: no _metadata (in progress, failed, or being deleted).
	StateIncomplete State = "incomplete"
	// StateBroken: Flink cannot restore it: _metadata does not parse, or
	// references files that are missing, of the wrong size, or refused
	// (relative paths out of the snapshot dir).
	StateBroken State = "broken"
	// StateUnverified: _metadata parses and every checked file is there,
	// but some references were not checked: they lie outside the root (on
	// another file system, in a place no root or extra root maps, a root
	// that contradicts where the references say the snapshot lives — a
	// copied tree, DSTL files under another base path), or verification
	// was off. Not "complete": Flink may still fail on one of them. A
	// resolver refuses it unless Options.AllowUnverified (never under
	// Options.Strict).
	StateUnverified State = "unverified"
	// StateTooLarge: _metadata is larger than Options.MaxMetadataSize and
	// was not read.
	StateTooLarge State = "too-large"
	// StateUnknown: storage failed while looking (Snapshot.Err says how).
	StateUnknown State = "unknown"
)

// verdict is a snapshot's classification: its state, why, and whether
// it is unverified because its references do not map to the location
// (mapping: a contradicting root, references on its own file system
// outside the root) rather than because they are elsewhere (unchecked).
type verdict struct {
	state   State
	why     string
	mapping bool
}

// classify is the one rule that says whether a snapshot whose _metadata
// parsed is complete, broken or unverified: List, Inspect and the
// Resolver all call it, so that no two commands disagree about the same
// directory. contradiction is the given root's quarrel with where the
// references say the snapshot lives ("" when none); v is the
// verification (nil when it was off).
//
// Broken means Flink cannot restore it: a checked file missing or of the
// wrong size, a relative reference out of the snapshot dir. References
// outside the root are never broken — Flink restores a copied tree whose
// old place still holds them (conformance F3, F7) — but unverified.
func classify(contradiction string, v *Verification) verdict {
	switch {
	case v != nil && (v.Missing > 0 || v.WrongSize > 0 || v.Refused > 0):
		return verdict{state: StateBroken, why: v.Problem()}
	case contradiction != "":
		why := "Flink root contradicts its references: " + contradiction
		if v != nil && v.Checked() > 0 {
			why += fmt.Sprintf(" (%d checked referenced files exist with their recorded sizes)", v.Checked())
		}
		return verdict{state: StateUnverified, why: why, mapping: true}
	case v == nil:
		return verdict{state: StateUnverified, why: "verification is off"}
	case v.Unmapped > 0:
		return verdict{state: StateUnverified, why: "Flink paths do not map: " + v.Problem(), mapping: true}
	case v.Unchecked > 0:
		return verdict{state: StateUnverified, why: v.Problem()}
	}
	return verdict{state: StateComplete}
}

// unparsed is the verdict on a _metadata that could not be read as one
// (malformed, truncated, not a _metadata): broken.
func unparsed(err error) verdict {
	return verdict{state: StateBroken, why: err.Error()}
}

// passKind is the resolver's pass kind of a verdict that is not complete.
func (v verdict) passKind() passKind {
	if v.state == StateBroken {
		return passBroken
	}
	return passUnverified
}
