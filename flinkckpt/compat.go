package flinkckpt

import (
	"fmt"
	"strings"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// Match is what a restore into the new job does with one operator of a
// snapshot.
type Match string

// Matches, as Flink's Checkpoints.loadAndValidateCheckpoint decides them.
const (
	// MatchRestored: the new job has an operator with the id; it gets the
	// state.
	MatchRestored Match = "restored"
	// MatchDropped: the operator holds state (subtask state or operator
	// coordinator state) and the new job has no operator with its id: the
	// restore fails, or with --allowNonRestoredState the state is dropped.
	MatchDropped Match = "dropped"
	// MatchStateless: no operator with the id and nothing to restore:
	// Flink skips it ("Skipping empty savepoint state for operator").
	MatchStateless Match = "stateless"
)

// CompatOperator is one snapshot operator and what the restore does with
// it.
type CompatOperator struct {
	// ID is the operator id.
	ID string `json:"id"`
	// UID and Name when known: from the _metadata (version 5 on) or from
	// the new job's description (a uid, a plan).
	UID  string `json:"uid,omitempty"`
	Name string `json:"name,omitempty"`
	// HasState is Flink's rule: a coordinator state, or any subtask with a
	// managed or raw operator or keyed state handle or channel state
	// (OperatorSubtaskState.hasState).
	HasState bool  `json:"has_state"`
	Match    Match `json:"match"`
	// Maybe marks a restore into an operator the new job creates only
	// under conditions its description does not settle (a planner's
	// conditional transformation, a SinkV2 committer).
	Maybe bool `json:"maybe,omitempty"`
	// KeyedState is true when a subtask holds keyed state (split into
	// MaxParallelism key groups).
	KeyedState bool `json:"-"`
	// CoordinatorState is true when the snapshot holds the operator
	// coordinator's state (a FLIP-27 source's split enumerator).
	CoordinatorState bool `json:"-"`
	// Parallelism and MaxParallelism as the snapshot records them.
	Parallelism    int `json:"-"`
	MaxParallelism int `json:"-"`
	// SubtaskEntries is the number of subtask entries the snapshot records
	// for it, with or without state handles, finished subtasks included
	// (OperatorState.getNumberCollectedStates): Flink checks the new
	// parallelism against the max parallelism of every operator of a
	// vertex where one has any (StateAssignmentOperation).
	SubtaskEntries int `json:"-"`
}

// CompatProblem is a restore failure or risk other than dropped state:
// Flink's checks of parallelism against the snapshot's max parallelism.
type CompatProblem struct {
	// Operator is the operator id.
	Operator string `json:"operator"`
	// Code is "max-parallelism-changed" or
	// "parallelism-above-max-parallelism".
	Code string `json:"code"`
	// Fatal problems fail the restore.
	Fatal bool   `json:"fatal"`
	Text  string `json:"text"`
}

// Problem codes of CompatProblem.
const (
	ProblemMaxParallelismChanged  = "max-parallelism-changed"
	ProblemParallelismAboveMaxPar = "parallelism-above-max-parallelism"
)

// Compat is the result of [CheckCompat]: every operator of the snapshot
// with what the restore into the new job does with it. Its JSON has the
// fields of resumectl flink compat --json (snapshot, checkpoint_id,
// compatible, operators, dropped, new_without_state), and problems, notes
// and an operator's maybe only when there is something to say.
type Compat struct {
	// Snapshot names the snapshot (its path); CheckCompat leaves it to the
	// caller.
	Snapshot     string `json:"snapshot"`
	CheckpointID int64  `json:"checkpoint_id"`
	// Compatible is true when no state is dropped and no fatal problem
	// stands in the way: the restore succeeds without
	// --allowNonRestoredState and restores all state.
	Compatible bool `json:"compatible"`
	// Operators are the snapshot's operators in file order.
	Operators []CompatOperator `json:"operators"`
	// Dropped are the ids of the operators whose state the new job does not
	// take, in file order.
	Dropped []string `json:"dropped"`
	// NewWithoutState are the new job's operators (certain ones) that are
	// not in the snapshot at all, by uid when known, else by id: they start
	// empty.
	NewWithoutState []string `json:"new_without_state"`
	// Problems are parallelism checks that failed or could fail.
	Problems []CompatProblem `json:"problems,omitempty"`
	// Notes say what could not be checked and why.
	Notes []string `json:"notes,omitempty"`
}

// Restorable reports whether a restore succeeds: nothing fatal, and no
// dropped state unless allowNonRestoredState (--allowNonRestoredState) lets
// Flink drop it.
func (c *Compat) Restorable(allowNonRestoredState bool) bool {
	for _, p := range c.Problems {
		if p.Fatal {
			return false
		}
	}
	return len(c.Dropped) == 0 || allowNonRestoredState
}

// DroppedOperators returns the operators whose state would be dropped.
func (c *Compat) DroppedOperators() []CompatOperator {
	var out []CompatOperator
	for _, o := range c.Operators {
		if o.Match == MatchDropped {
			out = append(out, o)
		}
	}
	return out
}

// DroppedNames names the dropped operators for a message: uid or name
// when known, with the id.
func (c *Compat) DroppedNames() string {
	var names []string
	for _, o := range c.DroppedOperators() {
		switch {
		case o.UID != "":
			names = append(names, fmt.Sprintf("%s (uid %s)", o.ID, o.UID))
		case o.Name != "":
			names = append(names, fmt.Sprintf("%s (%s)", o.ID, o.Name))
		default:
			names = append(names, o.ID)
		}
	}
	return strings.Join(names, ", ")
}

// HasState reports whether Flink counts the operator as holding state when
// it decides whether an operator missing from the new job may be skipped
// (Checkpoints.loadAndValidateCheckpoint): a coordinator state, or any
// subtask state with a state handle (OperatorSubtaskState.hasState: a
// non-null managed or raw operator or keyed handle, or any input channel or
// result subpartition handle). An empty handle — an operator state with no
// entries — is state.
func HasState(op *metadata.Operator) bool {
	if op.Coordinator != nil {
		return true
	}
	for i := range op.SubtaskStates {
		s := &op.SubtaskStates[i]
		if s.ManagedOperator != nil || s.RawOperator != nil || s.ManagedKeyed != nil || s.RawKeyed != nil ||
			len(s.InputChannels) > 0 || len(s.ResultSubpartitions) > 0 {
			return true
		}
	}
	return false
}

func hasKeyedState(op *metadata.Operator) bool {
	for i := range op.SubtaskStates {
		if op.SubtaskStates[i].ManagedKeyed != nil || op.SubtaskStates[i].RawKeyed != nil {
			return true
		}
	}
	return false
}

// CheckCompat classifies every operator of the snapshot cp for a restore
// into job, as Flink's Checkpoints.loadAndValidateCheckpoint does: an
// operator whose id the new job has is restored; one it lacks is skipped
// when it holds no state and otherwise fails the restore ("Cannot map
// checkpoint/savepoint state for operator … to the new program") or, with
// --allowNonRestoredState, has its state dropped. When the new job's
// parallelism or max parallelism is known (Job, JobOperator), the
// restored operators are checked against the snapshot's max parallelism
// (loadAndValidateCheckpoint and StateAssignmentOperation.
// checkParallelismPreconditions). A nil job has no operators. It is pure:
// no I/O.
func CheckCompat(cp *metadata.Checkpoint, job *Job) *Compat {
	if job == nil {
		job = &Job{}
	}
	c := &Compat{CheckpointID: cp.CheckpointID, Operators: make([]CompatOperator, 0, len(cp.Operators)), Dropped: []string{}, NewWithoutState: []string{}}
	byID := make(map[string]int, len(job.Operators))
	for i, o := range job.Operators {
		byID[o.ID] = i
	}
	inSnapshot := make(map[string]bool, len(cp.Operators))
	parallelismKnown := job.Parallelism > 0 || job.MaxParallelism > 0
	var maybe []string
	for i := range cp.Operators {
		op := &cp.Operators[i]
		inSnapshot[op.ID] = true
		co := CompatOperator{ID: op.ID, UID: op.UID, Name: op.Name, HasState: HasState(op), KeyedState: hasKeyedState(op),
			CoordinatorState: op.Coordinator != nil,
			Parallelism:      op.Parallelism, MaxParallelism: op.MaxParallelism, SubtaskEntries: len(op.SubtaskStates)}
		ji, ok := byID[op.ID]
		switch {
		case ok:
			jo := job.Operators[ji]
			co.Match, co.Maybe = MatchRestored, jo.Maybe
			if co.UID == "" {
				co.UID = jo.UID
			}
			if co.Name == "" {
				co.Name = jo.Name
			}
			if jo.Maybe && co.HasState {
				maybe = append(maybe, describeOperator(co))
			}
			parallelismKnown = parallelismKnown || jo.Parallelism > 0 || jo.MaxParallelism > 0
			c.Problems = append(c.Problems, parallelismProblems(co, jo, job)...)
		case co.HasState:
			co.Match = MatchDropped
			c.Dropped = append(c.Dropped, op.ID)
		default:
			co.Match = MatchStateless
		}
		c.Operators = append(c.Operators, co)
	}
	for _, o := range job.Operators {
		if o.Maybe || inSnapshot[o.ID] {
			continue
		}
		if o.UID != "" {
			c.NewWithoutState = append(c.NewWithoutState, o.UID)
		} else {
			c.NewWithoutState = append(c.NewWithoutState, o.ID)
		}
	}
	c.Compatible = c.Restorable(false)
	c.Notes = append(c.Notes, job.Notes...)
	if len(maybe) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("restored only if the new job creates these conditional operators, which its description does not settle: %s",
			strings.Join(maybe, ", ")))
	}
	if len(c.Dropped) > 0 && len(job.Unpredictable) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d operator(s) of the new job have no predictable id and could take dropped state: %s",
			len(job.Unpredictable), strings.Join(job.Unpredictable, "; ")))
	}
	if !parallelismKnown {
		c.Notes = append(c.Notes, "the new job's parallelism and max parallelism are not known: max-parallelism changes and parallelism above the snapshot's max parallelism were not checked")
	}
	return c
}

func describeOperator(o CompatOperator) string {
	switch {
	case o.UID != "":
		return fmt.Sprintf("%s (uid %s)", o.ID, o.UID)
	case o.Name != "":
		return fmt.Sprintf("%s (%s)", o.ID, o.Name)
	}
	return o.ID
}

// parallelismProblems checks a restored operator against the new job's
// parallelism and max parallelism, when known.
func parallelismProblems(co CompatOperator, jo JobOperator, job *Job) []CompatProblem {
	par, maxPar := jo.Parallelism, jo.MaxParallelism
	if par == 0 {
		par = job.Parallelism
	}
	if maxPar == 0 {
		maxPar = job.MaxParallelism
	}
	var out []CompatProblem
	// loadAndValidateCheckpoint: a configured max parallelism must equal
	// the snapshot's (when it is derived, Flink adopts the snapshot's).
	if maxPar > 0 && co.MaxParallelism > 0 && maxPar != co.MaxParallelism {
		text := fmt.Sprintf("operator %s: max parallelism %d in the snapshot, %d configured in the new job: the restore fails (\"Max parallelism mismatch\"); leave it unset and Flink adopts %d",
			describeOperator(co), co.MaxParallelism, maxPar, co.MaxParallelism)
		if co.KeyedState {
			text += "; its keyed state is split into that many key groups"
		}
		out = append(out, CompatProblem{Operator: co.ID, Code: ProblemMaxParallelismChanged, Fatal: true, Text: text})
	}
	// StateAssignmentOperation.checkParallelismPreconditions runs for
	// every operator of a vertex where any operator has subtask entries
	// (TaskStateAssignment.hasNonFinishedState: getNumberCollectedStates
	// > 0), state handles or not. An operator without entries is checked
	// only when a chained operator has some, which the snapshot does not
	// tell: a problem that could fail the restore.
	if par > 0 && co.MaxParallelism > 0 && par > co.MaxParallelism {
		p := CompatProblem{Operator: co.ID, Code: ProblemParallelismAboveMaxPar, Fatal: co.SubtaskEntries > 0,
			Text: fmt.Sprintf("operator %s: parallelism %d in the new job is above the snapshot's max parallelism %d: the restore fails (\"The maximum parallelism … of the restored state is lower than the configured parallelism\")",
				describeOperator(co), par, co.MaxParallelism)}
		if !p.Fatal {
			p.Text = fmt.Sprintf("operator %s: parallelism %d in the new job is above the snapshot's max parallelism %d; the snapshot has no subtask entry for it, so Flink checks it (and fails the restore: \"The maximum parallelism … of the restored state is lower than the configured parallelism\") only if an operator chained with it in the new job has one, which resumekit cannot know",
				describeOperator(co), par, co.MaxParallelism)
		}
		out = append(out, p)
	}
	return out
}
