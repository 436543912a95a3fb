package flinkckpt

import (
	"io"

	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// The new job's description moved to package jobgraph (issue 24). The names
// below keep code written against flinkckpt compiling for one release, the
// way gocloud kept gcerrors stable across moves; the sentinel errors are in
// errors.go.

// Job describes the job that will restore a snapshot.
//
// Deprecated: use jobgraph.Job; kept for one release.
type Job = jobgraph.Job

// JobOperator is one operator of the new job.
//
// Deprecated: use jobgraph.JobOperator; kept for one release.
type JobOperator = jobgraph.JobOperator

// Plan is a compiled SQL plan read for its operators.
//
// Deprecated: use jobgraph.Plan; kept for one release.
type Plan = jobgraph.Plan

// PlanNode is one ExecNode of a compiled plan.
//
// Deprecated: use jobgraph.PlanNode; kept for one release.
type PlanNode = jobgraph.PlanNode

// PlanOperator is one stateful operator a plan node runs.
//
// Deprecated: use jobgraph.PlanOperator; kept for one release.
type PlanOperator = jobgraph.PlanOperator

// PlanOptions tunes ReadPlan.
//
// Deprecated: use jobgraph.PlanOptions; kept for one release.
type PlanOptions = jobgraph.PlanOptions

// PlanError is a problem with one node or field of a compiled plan.
//
// Deprecated: use jobgraph.PlanError; kept for one release.
type PlanError = jobgraph.PlanError

// Match is what a restore does with one operator of a snapshot.
//
// Deprecated: use jobgraph.Match; kept for one release.
type Match = jobgraph.Match

// Compat is the result of CheckCompat.
//
// Deprecated: use jobgraph.Compat; kept for one release.
type Compat = jobgraph.Compat

// CompatOperator is one operator of a snapshot in a Compat.
//
// Deprecated: use jobgraph.CompatOperator; kept for one release.
type CompatOperator = jobgraph.CompatOperator

// CompatProblem is a restore failure or risk other than dropped state.
//
// Deprecated: use jobgraph.CompatProblem; kept for one release.
type CompatProblem = jobgraph.CompatProblem

// Matches of CompatOperator.Match.
//
// Deprecated: use jobgraph.MatchRestored and the others; kept for one
// release.
const (
	MatchRestored  = jobgraph.MatchRestored
	MatchDropped   = jobgraph.MatchDropped
	MatchStateless = jobgraph.MatchStateless
	MatchUnknown   = jobgraph.MatchUnknown
)

// Problem codes of CompatProblem.
//
// Deprecated: use jobgraph.ProblemMaxParallelismChanged and
// jobgraph.ProblemParallelismAboveMaxPar; kept for one release.
const (
	ProblemMaxParallelismChanged  = jobgraph.ProblemMaxParallelismChanged
	ProblemParallelismAboveMaxPar = jobgraph.ProblemParallelismAboveMaxPar
)

// DefaultMaxPlanSize bounds a compiled plan when PlanOptions.MaxSize is 0.
//
// Deprecated: use jobgraph.DefaultMaxPlanSize; kept for one release.
const DefaultMaxPlanSize = jobgraph.DefaultMaxPlanSize

// OperatorID returns the operator id Flink derives from a uid.
//
// Deprecated: use jobgraph.OperatorID; kept for one release.
func OperatorID(uid string) string { return jobgraph.OperatorID(uid) }

// ParseOperatorID checks an operator id or uid hash.
//
// Deprecated: use jobgraph.ParseOperatorID; kept for one release.
func ParseOperatorID(s string) (string, error) { return jobgraph.ParseOperatorID(s) }

// JobFromUIDs returns a job of the operators with these uids.
//
// Deprecated: use jobgraph.JobFromUIDs; kept for one release.
func JobFromUIDs(uids ...string) *Job { return jobgraph.JobFromUIDs(uids...) }

// JobFromPlan reads a compiled plan and returns the job that runs it.
//
// Deprecated: use jobgraph.JobFromPlan; kept for one release.
func JobFromPlan(r io.Reader, opts *PlanOptions) (*Job, error) { return jobgraph.JobFromPlan(r, opts) }

// JobOfCheckpoint returns the operators of a snapshot as a Job.
//
// Deprecated: use jobgraph.JobOfCheckpoint; kept for one release.
func JobOfCheckpoint(md *metadata.Checkpoint) *Job { return jobgraph.JobOfCheckpoint(md) }

// ReadPlan reads a compiled plan.
//
// Deprecated: use jobgraph.ReadPlan; kept for one release.
func ReadPlan(r io.Reader, opts *PlanOptions) (*Plan, error) { return jobgraph.ReadPlan(r, opts) }

// ParsePlan parses a compiled plan.
//
// Deprecated: use jobgraph.ParsePlan; kept for one release.
func ParsePlan(data []byte, opts *PlanOptions) (*Plan, error) { return jobgraph.ParsePlan(data, opts) }

// CheckCompat checks what restoring a snapshot into a job does with each
// operator's state.
//
// Deprecated: use jobgraph.CheckCompat; kept for one release.
func CheckCompat(cp *metadata.Checkpoint, job *Job) *Compat { return jobgraph.CheckCompat(cp, job) }

// HasState reports whether a snapshot operator carries state.
//
// Deprecated: use jobgraph.HasState; kept for one release.
func HasState(op *metadata.Operator) bool { return jobgraph.HasState(op) }

// describeOperator names a snapshot operator for compatgrade's messages.
func describeOperator(o CompatOperator) string { return o.Describe() }
