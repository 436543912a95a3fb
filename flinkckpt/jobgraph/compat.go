package jobgraph

import (
	"encoding/json"
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
	// MatchUnknown: the operator holds state, no operator of the new job's
	// description has its id, and the new job may still have it: the id
	// may be the topology hash Flink generates for an operator without a
	// uid (StreamGraphHasherV2), which no uid gives. Flink restores it if
	// the new job has that uid-less operator unchanged, and otherwise
	// fails the restore (or with --allowNonRestoredState drops the state).
	// It is neither restored nor dropped: add the operator's id
	// (Job.AddOperatorID, --flink-operator-id) or say that the description
	// names every operator (Job.AllUIDs, --flink-all-uids).
	MatchUnknown Match = "unknown"
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
	Maybe bool `json:"maybe"`
	// KeyedState is true when a subtask holds keyed state (split into
	// MaxParallelism key groups).
	KeyedState bool `json:"keyed_state"`
	// CoordinatorState is true when the snapshot holds the operator
	// coordinator's state (a FLIP-27 source's split enumerator).
	CoordinatorState bool `json:"coordinator_state"`
	// Parallelism and MaxParallelism as the snapshot records them.
	Parallelism    int `json:"parallelism"`
	MaxParallelism int `json:"max_parallelism"`
	// Finished is an operator that had fully finished (FLIP-147): the new
	// job does not run it again, and Flink refuses a vertex that mixes it
	// with operators that have not (VertexFinishedStateChecker).
	Finished bool `json:"finished"`
	// ChannelState is true when a subtask holds in-flight data of an
	// unaligned checkpoint.
	ChannelState bool `json:"channel_state"`
	// SubtaskEntries is the number of subtask entries the snapshot records
	// for it, with or without state handles, finished subtasks included
	// (OperatorState.getNumberCollectedStates): Flink checks the new
	// parallelism against the max parallelism of every operator of a
	// vertex where one has any (StateAssignmentOperation).
	SubtaskEntries int `json:"subtask_entries"`
}

// CompatProblem is a restore failure or risk other than dropped state:
// Flink's checks of parallelism against the snapshot's max parallelism.
type CompatProblem struct {
	// Operator is the operator id.
	Operator string `json:"operator"`
	// Code is ProblemMaxParallelismChanged or
	// ProblemParallelismAboveMaxPar.
	Code ProblemCode `json:"code"`
	// Fatal problems fail the restore.
	Fatal bool   `json:"fatal"`
	Text  string `json:"text"`
}

// ProblemCode is the code of a CompatProblem: one of the Problem*
// constants, a closed set. Its JSON is the string.
type ProblemCode string

// Problem codes of CompatProblem.
const (
	ProblemMaxParallelismChanged  ProblemCode = "max-parallelism-changed"
	ProblemParallelismAboveMaxPar ProblemCode = "parallelism-above-max-parallelism"
)

// Compat is the result of [CheckCompat]: every operator of the snapshot
// with what the restore into the new job does with it. Its JSON, which
// resumectl flink compat --json prints as it is, carries every field:
// snapshot, checkpoint_id, compatible, operators (each with id, uid and
// name when known, has_state, match, maybe, keyed_state,
// coordinator_state, parallelism, max_parallelism, subtask_entries),
// dropped, new_without_state, unknown, problems and notes; lists are []
// when empty, never null.
type Compat struct {
	// Snapshot names the snapshot (its path); CheckCompat leaves it to the
	// caller.
	Snapshot     string `json:"snapshot"`
	CheckpointID int64  `json:"checkpoint_id"`
	// Compatible is true when no state is dropped, none is unknown and no
	// fatal problem stands in the way: the restore succeeds without
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
	// Unknown are the ids of the operators with state whose fate the new
	// job's description does not settle (MatchUnknown), in file order.
	Unknown []string `json:"unknown"`
	// Problems are parallelism checks that failed or could fail.
	Problems []CompatProblem `json:"problems"`
	// Notes say what could not be checked and why.
	Notes []string `json:"notes"`
}

// MarshalJSON writes the Compat as its doc says, every list as [] when
// empty (also for a Compat built by hand with nil lists). It is the JSON
// of resumectl flink compat --json.
func (c Compat) MarshalJSON() ([]byte, error) {
	type plain Compat // without the method
	p := plain(c)
	for _, l := range []*[]string{&p.Dropped, &p.NewWithoutState, &p.Unknown, &p.Notes} {
		if *l == nil {
			*l = []string{}
		}
	}
	if p.Operators == nil {
		p.Operators = []CompatOperator{}
	}
	if p.Problems == nil {
		p.Problems = []CompatProblem{}
	}
	return json.Marshal(p)
}

// Restorable reports whether a restore succeeds: nothing fatal, and no
// dropped state unless allowNonRestoredState (--allowNonRestoredState) lets
// Flink drop it. Unknown operators do not count against it: whether they
// restore is Flink's to find out, which it does at once.
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
func (c *Compat) DroppedNames() string { return operatorNames(c.DroppedOperators()) }

// UnknownOperators returns the operators whose fate is unknown
// (MatchUnknown).
func (c *Compat) UnknownOperators() []CompatOperator {
	var out []CompatOperator
	for _, o := range c.Operators {
		if o.Match == MatchUnknown {
			out = append(out, o)
		}
	}
	return out
}

// UnknownNames names the unknown operators for a message, as DroppedNames
// does.
func (c *Compat) UnknownNames() string { return operatorNames(c.UnknownOperators()) }

func operatorNames(ops []CompatOperator) string {
	var names []string
	for _, o := range ops {
		names = append(names, o.Describe())
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

func hasChannelState(op *metadata.Operator) bool {
	for i := range op.SubtaskStates {
		if len(op.SubtaskStates[i].InputChannels) > 0 || len(op.SubtaskStates[i].ResultSubpartitions) > 0 {
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
// checkParallelismPreconditions). An operator with state that the job
// lacks is dropped only when its id cannot be one the new job generates:
// the job names all its operators (Job.AllUIDs), or the snapshot records
// the operator's uid (version 5 on); otherwise it is MatchUnknown. A nil
// job has no operators. A job described by its parallelism alone
// (Job.ParallelismOnly) is the snapshot's job unchanged: every operator is
// restored and checked against it. It is pure: no I/O.
func CheckCompat(cp *metadata.Checkpoint, job *Job) *Compat {
	if job == nil {
		job = &Job{}
	}
	// A job described by no operator at all has none without a uid.
	allUIDs := job.AllUIDs || len(job.Operators) == 0 && len(job.Unpredictable) == 0
	c := &Compat{CheckpointID: cp.CheckpointID, Operators: make([]CompatOperator, 0, len(cp.Operators)), Dropped: []string{}, NewWithoutState: []string{}, Unknown: []string{},
		Problems: []CompatProblem{}, Notes: []string{}}
	// Flink maps an operator with a uid hash (setUidHash) to the
	// snapshot's state under that hash when there is any, and otherwise to
	// the state under its generated id (StateAssignmentOperation:
	// getUserDefinedOperatorID().filter(snapshot has it)).
	inCP := make(map[string]bool, len(cp.Operators))
	for i := range cp.Operators {
		inCP[cp.Operators[i].ID] = true
	}
	// An operator with a uid hash and no uid runs under a generated
	// topology hash (its own checkpoints keep its state there), from which
	// Flink restores it when the snapshot has nothing under the hash: with
	// one, state no operator matches may be its, whatever AllUIDs says.
	var hashOnly []JobOperator
	for _, o := range job.hashOnly() {
		if !inCP[o.UIDHash] {
			hashOnly = append(hashOnly, o)
		}
	}
	if len(hashOnly) > 0 {
		allUIDs = false
	}
	byID := make(map[string]int, len(job.Operators))
	uidIndex := map[string]int{}
	for i, o := range job.Operators {
		id := o.ID
		if o.UIDHash != "" && inCP[o.UIDHash] {
			id = o.UIDHash
		}
		byID[id] = i
		if o.UID != "" {
			uidIndex[o.UID] = i
		}
	}
	var hashNotes []string
	inSnapshot := make(map[string]bool, len(cp.Operators))
	parallelismKnown := job.Parallelism > 0 || job.MaxParallelism > 0
	var maybe []string
	for i := range cp.Operators {
		op := &cp.Operators[i]
		inSnapshot[op.ID] = true
		co := CompatOperator{ID: op.ID, UID: op.UID, Name: op.Name, HasState: HasState(op), KeyedState: hasKeyedState(op),
			CoordinatorState: op.Coordinator != nil,
			Parallelism:      op.Parallelism, MaxParallelism: op.MaxParallelism, SubtaskEntries: len(op.SubtaskStates),
			Finished: op.Finished, ChannelState: hasChannelState(op)}
		ji, ok := byID[op.ID]
		if job.ParallelismOnly() {
			// The unchanged job at a known parallelism: every operator
			// restored, checked by the same rule as a named one.
			co.Match = MatchRestored
			c.Problems = append(c.Problems, parallelismProblems(co, JobOperator{}, job)...)
			c.Operators = append(c.Operators, co)
			continue
		}
		// setUidHash: an operator recorded with a uid whose id is not that
		// uid's was given a uid hash, which Flink prefers over the uid. A
		// new job named by the uid restores it only if it keeps the hash.
		hashed := op.UID != "" && op.ID != OperatorID(op.UID)
		_, byUID := uidIndex[op.UID]
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
				maybe = append(maybe, co.Describe())
			}
			parallelismKnown = parallelismKnown || jo.Parallelism > 0 || jo.MaxParallelism > 0
			c.Problems = append(c.Problems, parallelismProblems(co, jo, job)...)
		case co.HasState && !allUIDs && op.UID == "":
			co.Match = MatchUnknown
			c.Unknown = append(c.Unknown, op.ID)
		case co.HasState && hashed && byUID:
			co.Match = MatchUnknown
			c.Unknown = append(c.Unknown, op.ID)
			hashNotes = append(hashNotes, fmt.Sprintf("%s (uid %s)", op.ID, op.UID))
		case co.HasState:
			co.Match = MatchDropped
			c.Dropped = append(c.Dropped, op.ID)
		default:
			co.Match = MatchStateless
		}
		c.Operators = append(c.Operators, co)
	}
	for _, o := range job.Operators {
		if o.Maybe || inSnapshot[o.ID] || o.UIDHash != "" && inSnapshot[o.UIDHash] {
			continue
		}
		if o.UIDHash != "" && o.UID == "" && !inCP[o.UIDHash] && len(c.Unknown) > 0 {
			continue // it may take an unknown operator's state under its generated id
		}
		if o.UID != "" {
			c.NewWithoutState = append(c.NewWithoutState, o.UID)
		} else {
			c.NewWithoutState = append(c.NewWithoutState, o.ID)
		}
	}
	c.Compatible = c.Restorable(false) && len(c.Unknown) == 0
	c.Notes = append(c.Notes, job.Notes...)
	if job.ParallelismOnly() {
		c.Notes = append(c.Notes, "the new job's operators are not described, only its parallelism or max parallelism: it is taken to be the snapshot's job unchanged")
	}
	if len(hashNotes) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%s: recorded with a uid the new job has but an id that is not that uid's, so the old job set a uid hash (setUidHash), which Flink prefers over the uid: restored only if the new job keeps that hash (describe it with Job.AddUIDWithHash, --flink-uid-hash); resumekit cannot see whether it does",
			strings.Join(hashNotes, ", ")))
	}
	if len(c.Unknown) > 0 && len(hashOnly) > 0 && job.AllUIDs {
		var hs []string
		for _, o := range hashOnly {
			hs = append(hs, o.UIDHash)
		}
		c.Notes = append(c.Notes, fmt.Sprintf("operators with a uid hash and no uid (%s) run under ids Flink generates from the topology, and the job's own checkpoints hold their state there: unmatched state may be theirs, so it is unknown although the description names every operator",
			strings.Join(hs, ", ")))
	}
	if len(c.Unknown) > 0 {
		advice := " or, if the description names every operator, say so (--flink-all-uids)"
		if len(job.Unpredictable) > 0 {
			advice = fmt.Sprintf("; the description says it does not name every operator (%s): they are likely these, and --flink-all-uids would call their state dropped", strings.Join(job.Unpredictable, "; "))
		}
		c.Notes = append(c.Notes, fmt.Sprintf("%d operator(s) with state match no operator the new job's description names, and may be uid-less operators whose generated ids no uid gives (unknown: restored if the new job has them unchanged, else the restore fails): %s; add their ids (--flink-operator-id, from Flink's logs or web UI)%s",
			len(c.Unknown), c.UnknownNames(), advice))
	}
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

// Describe names the operator for a message: its id, with its uid or else
// its name when known ("<id> (uid <uid>)", "<id> (<name>)").
func (o CompatOperator) Describe() string {
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
			co.Describe(), co.MaxParallelism, maxPar, co.MaxParallelism)
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
				co.Describe(), par, co.MaxParallelism)}
		if !p.Fatal {
			p.Text = fmt.Sprintf("operator %s: parallelism %d in the new job is above the snapshot's max parallelism %d; the snapshot has no subtask entry for it, so Flink checks it (and fails the restore: \"The maximum parallelism … of the restored state is lower than the configured parallelism\") only if an operator chained with it in the new job has one, which resumekit cannot know",
				co.Describe(), par, co.MaxParallelism)
		}
		out = append(out, p)
	}
	return out
}
