package jobgraph

import (
	"encoding/hex"
	"fmt"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"strings"

	"github.com/resumekit/resumekit/resume/redact"
)

// ParallelismOnly reports whether the job is described by its parallelism
// or max parallelism alone (see Job.Parallelism): the unchanged job.
func (j *Job) ParallelismOnly() bool {
	return j != nil && len(j.Operators) == 0 && len(j.Unpredictable) == 0 && (j.Parallelism > 0 || j.MaxParallelism > 0)
}

// Job describes the job that will restore a snapshot: its operators, by
// Flink operator id. It is what a grade depends on when it is about the new
// job rather than the snapshot — which snapshots belong to this job, which
// state it restores or drops. Build it from user uids ([Job.AddUID]), uid
// hashes ([Job.AddUIDHash]), operator ids ([Job.AddOperatorID]) or a
// compiled SQL plan. The zero Job has no operators; a nil *Job means the new
// job is not known.
type Job struct {
	// Operators are the new job's operators in the order added, each id
	// once.
	Operators []JobOperator
	// Unpredictable describes operators of the new job whose ids its
	// description cannot give: without a uid Flink hashes the topology
	// (StreamGraphHasherV2.generateDeterministicHash). A snapshot operator
	// that matches none of Operators may be one of them.
	Unpredictable []string
	// Notes are what the description's reading assumed (a plan's notes:
	// the Flink version whose rules were applied); CheckCompat repeats
	// them.
	Notes []string
	// Parallelism and MaxParallelism of the new job's operators when known
	// and not set per operator (JobOperator); 0 when unknown. A plan does
	// not record them. A Job with one of them and no operators (nor
	// Unpredictable) describes the unchanged job at that parallelism
	// (resumectl resolve --flink-parallelism, --flink-max-parallelism
	// alone): CheckCompat takes every snapshot operator as restored and
	// checks only these.
	Parallelism    int
	MaxParallelism int
	// AllUIDs says that Operators are all of the new job's operators: each
	// has a uid, a uid hash or an id given here, none a topology hash
	// Flink generates (pipeline.auto-generate-uids: false enforces that in
	// a DataStream job; AddPlan sets it for a plan whose every operator's
	// id it derives). Then a snapshot operator with state that none
	// matches is dropped; without it, unless the snapshot records its uid
	// (version 5 on), it may be a uid-less operator of the new job and is
	// MatchUnknown. An operator with a uid hash alone (AddUIDHash) still
	// runs under a topology hash: while the snapshot has no state under
	// its hash, unmatched state stays MatchUnknown despite AllUIDs.
	AllUIDs bool

	byID map[string]int // position of each id in Operators (see index)
}

// JobOperator is one operator of the new job.
type JobOperator struct {
	// ID is Flink's operator id: 32 lowercase hex characters.
	ID string
	// UID is the uid the id was derived from; "" when the id or a uid hash
	// was given directly.
	UID string
	// Name is the operator's name when known (from a plan), "" otherwise.
	Name string
	// UIDHash is the uid hash set beside a uid (DataStream .uid(…) and
	// .setUidHash(…)): Flink restores the snapshot's state under the hash
	// when the snapshot has any, and otherwise the state under ID, the
	// uid's (StateAssignmentOperation). "" when none is set. For a uid
	// hash set alone (AddUIDHash) it equals ID, and the operator's
	// generated id, a topology hash, is not known.
	UIDHash string
	// Maybe marks an operator that exists only under conditions the
	// description does not settle (a planner transformation created only
	// for some inputs): it may or may not be in the job.
	Maybe bool
	// Parallelism and MaxParallelism of the operator in the new job when
	// known; 0 means Job.Parallelism / Job.MaxParallelism. A max
	// parallelism given here is taken as configured explicitly.
	Parallelism    int
	MaxParallelism int
	// SinkTopics, for a sink's committer read from a plan, are the topics
	// its Kafka sink writes (the sink table's topic option): named when a
	// lost transaction's partitions are no longer listed. Nil otherwise.
	SinkTopics []string
}

// OperatorID returns the operator id Flink derives from a user-specified
// uid: murmur3_128 with seed 0 over the uid's UTF-8 bytes, the 16 bytes in
// order, as hex (StreamGraphHasherV2.generateUserSpecifiedHash). The same
// holds for the uids the SQL planner sets from a compiled plan.
func OperatorID(uid string) string {
	h := murmur3x64_128([]byte(uid), 0)
	return hex.EncodeToString(h[:])
}

// ParseOperatorID checks that s is an operator id (or a uid hash, which is
// one): 32 hex characters. It returns the id in lowercase, as Flink prints
// ids and as [metadata.Operator.ID] holds them.
func ParseOperatorID(s string) (string, error) {
	if len(s) != 32 {
		return "", fmt.Errorf("flinkckpt: operator id %s: %d characters, want 32 hex characters", redact.Quote(s), len(s))
	}
	if _, err := hex.DecodeString(s); err != nil {
		return "", fmt.Errorf("flinkckpt: operator id %s: not hex", redact.Quote(s))
	}
	return strings.ToLower(s), nil
}

// JobFromUIDs returns a Job whose operators have the given user uids.
func JobFromUIDs(uids ...string) *Job {
	j := &Job{}
	for _, u := range uids {
		j.AddUID(u)
	}
	return j
}

// AddUID adds the operator with the user-specified uid (DataStream
// .uid(…)).
func (j *Job) AddUID(uid string) {
	j.add(JobOperator{ID: OperatorID(uid), UID: uid})
}

// AddSinkUID adds a sink written with sinkTo(…).uid(uid): its writer has
// the uid, and a SinkV2 (or SinkV1) sink with a committer or a global
// committer expands to operators with the uids "Sink Committer: <uid>" and
// "Sink <uid> Global Committer" (SinkTransformationTranslator), added as
// Maybe: whether the sink has them is the connector's choice. Sub-operators
// of a custom pre- or post-commit topology get "<uid>: <their uid>" only
// when the connector sets one, and are not added.
func (j *Job) AddSinkUID(uid string) {
	j.add(JobOperator{ID: OperatorID(uid), UID: uid})
	for _, u := range []string{"Sink Committer: " + uid, "Sink " + uid + " Global Committer"} {
		j.add(JobOperator{ID: OperatorID(u), UID: u, Maybe: true})
	}
}

// AddUIDHash adds an operator whose uid hash was set directly
// (DataStream .setUidHash(…)) without a uid: the hash is its user-defined
// id, under which Flink restores a snapshot's state when the snapshot has
// any (what setUidHash is for: state of an older job). Its generated id is
// a topology hash no description gives, and it is the id the operator runs
// under (StreamConfig's operator id), so the job's own checkpoints hold its
// state there, and Flink restores from it when the snapshot has nothing
// under the hash. So a snapshot operator with state that no operator of
// the job matches may be this one: CheckCompat reports it unknown, not
// dropped, even with Job.AllUIDs (Flink accepts an operator with a uid
// hash alone under pipeline.auto-generate-uids: false). Conformance
// scenario C2 shows both in Flink 1.20's JobGraphs. The operator's ID and
// UIDHash are the hash.
func (j *Job) AddUIDHash(hash string) error {
	id, err := ParseOperatorID(hash)
	if err != nil {
		return err
	}
	j.add(JobOperator{ID: id, UIDHash: id})
	return nil
}

// AddUIDWithHash adds an operator with both a uid and a uid hash
// (.uid(uid).setUidHash(hash)): the hash takes precedence where the
// snapshot has state under it, as in Flink; otherwise the uid's id is
// restored.
func (j *Job) AddUIDWithHash(uid, hash string) error {
	h, err := ParseOperatorID(hash)
	if err != nil {
		return err
	}
	j.add(JobOperator{ID: OperatorID(uid), UID: uid, UIDHash: h})
	return nil
}

// AddOperatorID adds an operator by its id (as printed in Flink's logs and
// web UI): the id it runs under and keeps its state under.
func (j *Job) AddOperatorID(id string) error {
	id, err := ParseOperatorID(id)
	if err != nil {
		return err
	}
	j.add(JobOperator{ID: id})
	return nil
}

// hashOnly returns the operators with a uid hash and no uid (AddUIDHash):
// their generated ids are topology hashes.
func (j *Job) hashOnly() []JobOperator {
	var out []JobOperator
	for _, o := range j.Operators {
		if o.UIDHash != "" && o.UID == "" {
			out = append(out, o)
		}
	}
	return out
}

// Add adds an operator; one already present by id keeps its first entry,
// filled in with a uid, name or parallelism it lacked, and stops being
// Maybe when added for certain.
func (j *Job) Add(op JobOperator) error {
	id, err := ParseOperatorID(op.ID)
	if err != nil {
		return err
	}
	op.ID = id
	j.add(op)
	return nil
}

func (j *Job) add(op JobOperator) {
	if i := j.index(op.ID); i >= 0 {
		o := &j.Operators[i]
		if o.UID == "" {
			o.UID = op.UID
		}
		if o.Name == "" {
			o.Name = op.Name
		}
		if o.UIDHash == "" && (op.UIDHash != o.ID || o.UID == "") {
			o.UIDHash = op.UIDHash // a uid's own id given again as a hash adds nothing
		}
		if o.Parallelism == 0 {
			o.Parallelism = op.Parallelism
		}
		if o.MaxParallelism == 0 {
			o.MaxParallelism = op.MaxParallelism
		}
		o.Maybe = o.Maybe && op.Maybe
		if o.SinkTopics == nil {
			o.SinkTopics = op.SinkTopics
		}
		return
	}
	j.Operators = append(j.Operators, op)
	if j.byID != nil {
		j.byID[op.ID] = len(j.Operators) - 1
	}
}

// index returns the position of the operator with the id in Operators, or
// -1. It keeps a map from id to position, rebuilt when Operators was
// changed other than through add (a length it was not built for, or an
// entry that moved).
func (j *Job) index(id string) int {
	if j.byID == nil || len(j.byID) != len(j.Operators) {
		j.reindex()
	}
	i, ok := j.byID[id]
	if ok && i < len(j.Operators) && j.Operators[i].ID == id {
		return i
	}
	if ok {
		j.reindex()
		if i, ok := j.byID[id]; ok {
			return i
		}
	}
	return -1
}

func (j *Job) reindex() {
	j.byID = make(map[string]int, len(j.Operators))
	for i, o := range j.Operators {
		j.byID[o.ID] = i
	}
}

// Operator returns the new job's operator with the id, if any. It only
// reads the Job (a linear search), so concurrent calls are safe.
func (j *Job) Operator(id string) (JobOperator, bool) {
	if j == nil {
		return JobOperator{}, false
	}
	for _, o := range j.Operators {
		if o.ID == id {
			return o, true
		}
	}
	return JobOperator{}, false
}

// Has reports whether the new job has an operator with the id (certainly or
// maybe).
func (j *Job) Has(id string) bool {
	_, ok := j.Operator(id)
	return ok
}

// JobOfCheckpoint returns the operators of a snapshot as a Job: the
// application's identity for Options.Anchor.
func JobOfCheckpoint(md *metadata.Checkpoint) *Job {
	j := &Job{}
	for _, op := range md.Operators {
		j.add(JobOperator{ID: op.ID, UID: op.UID, Name: op.Name})
	}
	return j
}
