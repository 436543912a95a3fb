package flinkckpt

import (
	"strings"
	"time"

	"github.com/resumekit/resumekit/resume"
)

// The values of ConsideredSnapshot.Outcome.
const (
	// ConsideredIncomplete: no _metadata (in progress, failed or being
	// deleted).
	ConsideredIncomplete = "incomplete"
	// ConsideredBroken: _metadata does not parse, or files it references
	// are missing or of the wrong size.
	ConsideredBroken = "broken"
	// ConsideredUnverified: references that could not be checked, or Flink
	// paths that do not map to the location.
	ConsideredUnverified = "unverified"
	// ConsideredRefused: complete, but it cannot serve the intent (an
	// unaligned checkpoint for an upgrade).
	ConsideredRefused = "refused"
	// ConsideredIncompatible: complete, but the new job (Options.Job)
	// cannot restore it.
	ConsideredIncompatible = "incompatible"
	// ConsideredRankedBelow: complete and usable, the head of another job
	// dir or savepoint dir, ranked below the one chosen.
	ConsideredRankedBelow = "ranked-below"
)

// ConsideredSnapshot is a snapshot the resolver looked at besides the one it
// chose: passed over, or ranked below it. Position.Considered lists them for
// reports and the timeline; Reasons say the same in words.
type ConsideredSnapshot struct {
	// Name is how reasons name it: "chk-42 of job …", a savepoint dir's name.
	Name string `json:"name"`
	// Key is its dir's key, in the bucket of location Location (as
	// Position.Location).
	Key          string `json:"key"`
	Location     int    `json:"location,omitempty"`
	JobID        string `json:"job_id,omitempty"`
	CheckpointID int64  `json:"checkpoint_id,omitempty"`
	Savepoint    bool   `json:"savepoint,omitempty"`
	// Outcome is one of the Considered… constants.
	Outcome string `json:"outcome"`
	// At is its _metadata modification time; zero when it has none
	// (incomplete) or storage gave none.
	At time.Time `json:"at,omitzero"`
	// Why is the reason, without the name.
	Why string `json:"why"`
}

// consider returns sn's record with outcome and why.
func (sn *snap) consider(outcome, why string) ConsideredSnapshot {
	c := ConsideredSnapshot{Name: sn.name(), Key: sn.key, Location: sn.loc.index, JobID: sn.job, CheckpointID: sn.id,
		Savepoint: sn.savepoint, Outcome: outcome, Why: why}
	if !sn.mod.IsZero() {
		c.At = sn.mod.UTC()
	}
	return c
}

// passOutcome is the Considered… outcome of a passKind.
func passOutcome(k passKind) string {
	switch k {
	case passUnverified:
		return ConsideredUnverified
	case passRefused, passUnreadable:
		return ConsideredRefused
	case passIncompatible:
		return ConsideredIncompatible
	}
	return ConsideredBroken
}

// withConsidered sets the chosen position's Considered: what every source
// passed over, in source order, then the other heads ranked below best.
func withConsidered(c *resume.Candidate, sources []*source, heads []*snap, best *snap, intent Intent) {
	pos, ok := c.Position.(Position)
	if !ok {
		return
	}
	for _, s := range sources {
		pos.Considered = append(pos.Considered, s.considered...)
	}
	for _, h := range heads {
		if h != best {
			// "ranks above <h>: why" said of best, as h's own reason.
			why := rankReason(best, h, intent)
			if rest, ok := strings.CutPrefix(why, "ranks above "+h.name()); ok {
				why = best.name() + " ranks above it" + rest
			}
			pos.Considered = append(pos.Considered, h.consider(ConsideredRankedBelow, why))
		}
	}
	c.Position = pos
}
