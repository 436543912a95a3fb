package jobgraph

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/resumekit/resumekit/internal/version"
	"github.com/resumekit/resumekit/resume/redact"
)

// DefaultMaxPlanSize bounds a compiled plan when PlanOptions.MaxSize is 0.
// Real plans are kilobytes to a few megabytes.
const DefaultMaxPlanSize = 64 << 20

// ErrMalformedPlan is wrapped by every error about the content of a
// compiled plan that is not a plan (check with errors.Is); the error is a
// [*PlanError].
var ErrMalformedPlan = errors.New("flinkckpt: malformed compiled plan")

// ErrPlanTooLarge is wrapped when a plan is larger than PlanOptions.MaxSize.
var ErrPlanTooLarge = errors.New("flinkckpt: compiled plan too large")

// ErrUnknownNodeType is wrapped (in a [*PlanError]) for every node whose
// type and version resumekit's table of ExecNodes does not know: the
// operators it creates are not guessed. Check with errors.Is.
var ErrUnknownNodeType = errors.New("flinkckpt: unknown ExecNode type")

// ErrUIDCollision is wrapped (in a [*PlanError]) when two transformations
// of a plan get the same uid, as a table.exec.uid.format without <id>
// makes them: Flink refuses such a job ("Hash collision on user-specified
// ID").
var ErrUIDCollision = errors.New("flinkckpt: uid collision")

// PlanError says which node of a compiled plan, and which of its fields, is
// wrong.
type PlanError struct {
	// Node is the node's index in the plan's "nodes" array; -1 for the plan
	// itself.
	Node int
	// NodeID is the node's "id" when it was read (0 otherwise).
	NodeID int64
	// Field is the JSON field ("type", "configuration.table.exec.uid.format").
	Field string
	// Msg says what is wrong.
	Msg string
	// Err is ErrMalformedPlan, ErrUnknownNodeType or ErrUIDCollision.
	Err error
}

// Error names the kind of problem, the node, the field and what is wrong:
// "flinkckpt: unknown ExecNode type: node 1 (id 2), type: …".
func (e *PlanError) Error() string {
	kind := "compiled plan"
	if e.Err != nil {
		kind = strings.TrimPrefix(e.Err.Error(), "flinkckpt: ")
	}
	var where []string
	if e.Node >= 0 {
		n := fmt.Sprintf("node %d", e.Node)
		if e.NodeID != 0 {
			n = fmt.Sprintf("node %d (id %d)", e.Node, e.NodeID)
		}
		where = append(where, n)
	}
	if e.Field != "" {
		where = append(where, e.Field)
	}
	if len(where) == 0 {
		return fmt.Sprintf("flinkckpt: %s: %s", kind, e.Msg)
	}
	return fmt.Sprintf("flinkckpt: %s: %s: %s", kind, strings.Join(where, ", "), e.Msg)
}

// Unwrap returns the sentinel.
func (e *PlanError) Unwrap() error { return e.Err }

// PlanOptions configures [ReadPlan]. A nil *PlanOptions means defaults.
type PlanOptions struct {
	// Config is the job's table configuration where it matters for uids,
	// by Flink key: table.exec.uid.format, table.exec.uid.generation
	// (PLAN_ONLY, ALWAYS, DISABLED), the deprecated
	// table.exec.legacy-transformation-uids, and the sink options
	// table.exec.sink.type-length-enforcer, table.exec.sink.rowtime-inserter
	// and table.exec.sink.nested-constraint-enforcer. A node's own
	// "configuration" in the plan takes precedence, as in Flink's
	// ExecNodeConfig. Other keys are ignored.
	Config map[string]string
	// FlinkVersion is the Flink version that will run the plan ("1.20",
	// "2.1"); "" means the plan's flinkVersion. Flink 1.15 formed uids as
	// <id>_<type>_<version>_<transformation>; later versions use
	// table.exec.uid.format (default <id>_<transformation>), so a plan
	// compiled by 1.15 gets other uids when a later version runs it.
	FlinkVersion string
	// MaxSize bounds the plan in bytes; DefaultMaxPlanSize when 0.
	MaxSize int64
}

// Plan is what a compiled plan (COMPILE PLAN / COMPILE AND EXECUTE PLAN,
// Flink 1.15 to 2.x) says about the operators of the job that runs it:
// every node with the transformations the planner translates it to and the
// uid it sets on each.
type Plan struct {
	// FlinkVersion is the plan's flinkVersion: the version that compiled
	// it.
	FlinkVersion string
	// RunVersion is the Flink version whose rules were applied
	// (PlanOptions.FlinkVersion, or FlinkVersion).
	RunVersion string
	// Nodes in plan order.
	Nodes []PlanNode
	// Notes are assumptions the reading made, to be said to the user.
	Notes []string
}

// PlanNode is one ExecNode of a plan.
type PlanNode struct {
	// ID is the node's id in the plan: the <id> of its uids.
	ID int64
	// Type is the node's type name ("stream-exec-calc") and Version its
	// version (1).
	Type    string
	Version int
	// Description is the plan's description of the node.
	Description string
	// UIDFormat is the table.exec.uid.format in effect for the node; ""
	// when the planner sets no uids on it (UIDs false).
	UIDFormat string
	// UIDs reports whether the planner sets uids on this node's
	// transformations (table.exec.uid.generation and the legacy flag).
	UIDs bool
	// Operators are the node's transformations in translation order, the
	// conditional ones the plan settles left out.
	Operators []PlanOperator
	// Notes say what the node does that is not an operator (a sort by
	// processing time that passes its input through).
	Notes []string
	// Err is set for a node whose operators could not be derived (an
	// unknown type); Operators is then empty.
	Err error
	// Connector is the "connector" option of a source or sink node's
	// table, as the plan records it ("" when it records none).
	Connector string
	// SinkTopics are the topics a Kafka sink node's table writes
	// (connector kafka or upsert-kafka, option topic, ';'-separated), as
	// the plan records them; nil for any other node.
	SinkTopics []string
	// Unnamed are operators the node's connector adds itself that no uid
	// names (Paimon's without its uid suffix options, or a connector the
	// plan does not name): they run under topology hashes.
	Unnamed []string
}

// PlanOperator is one transformation of a node.
type PlanOperator struct {
	// Transformation is the planner's name for it ("calc", "sink",
	// "constraint-validator"), or "committer" / "global-committer" for the
	// SinkV2 sub-operators a sink may expand to.
	Transformation string
	// UID is the uid the planner sets; "" when it sets none: the operator
	// then gets a topology hash that the plan cannot predict.
	UID string
	// ID is the operator id (OperatorID(UID)); "" without a uid.
	ID string
	// Maybe marks a transformation that exists only under conditions the
	// plan does not settle; Why says which.
	Maybe bool
	// Virtual marks a partitioning transformation (exchange, partitioner):
	// it has a uid but never becomes an operator, so no state has its id.
	Virtual bool
	// Why says why a conditional transformation is there, or may be.
	Why string
}

// ReadPlan reads a compiled plan JSON from r (at most opts.MaxSize bytes)
// and derives every operator and uid the planner sets when it translates
// the plan. It returns a *PlanError wrapping ErrMalformedPlan for input
// that is not a plan, ErrPlanTooLarge past the size limit, and an error
// for bad options. For nodes of an unknown type it returns the plan with
// those nodes' Err set together with their errors joined (each a
// *PlanError wrapping ErrUnknownNodeType); the same for uids that collide
// (ErrUIDCollision).
func ReadPlan(r io.Reader, opts *PlanOptions) (*Plan, error) {
	max := int64(DefaultMaxPlanSize)
	if opts != nil && opts.MaxSize > 0 {
		max = opts.MaxSize
	}
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("flinkckpt: read compiled plan: %w", err)
	}
	return ParsePlan(data, opts)
}

// ParsePlan is ReadPlan over bytes already read.
func ParsePlan(data []byte, opts *PlanOptions) (*Plan, error) {
	var o PlanOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxSize == 0 {
		o.MaxSize = DefaultMaxPlanSize
	}
	if int64(len(data)) > o.MaxSize {
		return nil, fmt.Errorf("flinkckpt: compiled plan of more than %d bytes: %w", o.MaxSize, ErrPlanTooLarge)
	}
	if err := validatePlanConfig(o.Config, "PlanOptions.Config"); err != nil {
		return nil, fmt.Errorf("flinkckpt: %w", err)
	}
	var runVersion flinkVersion
	if o.FlinkVersion != "" {
		v, err := version.ParseFlink(o.FlinkVersion)
		if err != nil {
			return nil, fmt.Errorf("flinkckpt: PlanOptions.FlinkVersion: %w", err)
		}
		runVersion = flinkVersion{v}
	}
	raw, err := decodePlan(data)
	if err != nil {
		return nil, err
	}
	p := &Plan{FlinkVersion: raw.FlinkVersion}
	if runVersion == (flinkVersion{}) {
		parsed, err := version.ParseFlink(raw.FlinkVersion)
		if err != nil {
			return nil, &PlanError{Node: -1, Field: "flinkVersion", Msg: err.Error(), Err: ErrMalformedPlan}
		}
		v := flinkVersion{parsed}
		runVersion = v
		if v.legacyUIDFormat() {
			p.Notes = append(p.Notes, fmt.Sprintf("the plan was compiled by Flink %s and is assumed to run on it (uids <id>_<type>_<version>_<transformation>); a later Flink forms uids with table.exec.uid.format: pass the version that will run it", raw.FlinkVersion))
		}
	}
	if runVersion.Less(1, 15) {
		if o.FlinkVersion != "" {
			return nil, fmt.Errorf("flinkckpt: PlanOptions.FlinkVersion %s: compiled plans need Flink 1.15 or later", runVersion)
		}
		return nil, &PlanError{Node: -1, Field: "flinkVersion", Msg: fmt.Sprintf("%s: compiled plans need Flink 1.15 or later", runVersion), Err: ErrMalformedPlan}
	}
	p.RunVersion = runVersion.String()
	d := &deriver{plan: raw, opts: o, run: runVersion}
	var errs []error
	for i := range raw.Nodes {
		n, err := d.node(i)
		if err != nil {
			var pe *PlanError
			if !errors.As(err, &pe) || !errors.Is(err, ErrUnknownNodeType) {
				return nil, err
			}
			errs = append(errs, err)
		}
		p.Nodes = append(p.Nodes, n)
	}
	errs = append(errs, uidCollisions(p)...)
	if runVersion.AtLeast(2, 0) && o.FlinkVersion == "" {
		p.Notes = append(p.Notes, fmt.Sprintf("transformation names are Flink 1.20's; Flink %s may add transformations to some node types", runVersion))
	}
	return p, errors.Join(errs...)
}

// JobFromPlan reads a compiled plan and returns the job that runs it: every
// operator with a uid, the conditional ones marked Maybe, and those without
// a predictable id in Job.Unpredictable. Errors are ReadPlan's; for unknown
// node types the job of the other nodes is returned with the error.
func JobFromPlan(r io.Reader, opts *PlanOptions) (*Job, error) {
	p, err := ReadPlan(r, opts)
	if p == nil {
		return nil, err
	}
	j := &Job{}
	j.AddPlan(p)
	return j, err
}

// AddPlan adds the operators of a plan read with ReadPlan: operators with a
// uid (the conditional ones as Maybe; virtual transformations never), and,
// in Unpredictable, those whose ids the plan cannot give.
//
// A connector that returns DataStream transformations
// (DataStreamScanProvider, DataStreamSinkProvider, TransformationScanProvider
// …; Paimon's source and sink do) may add operators of its own, which the
// plan does not list: the planner gives them a uid of
// table.exec.uid.format with the name the connector passes to
// ProviderContext.generateUid(name), or, when it does not call it, a
// topology hash. They are named once in Unpredictable; add the uids you
// know with AddUID ("<id>_<name>" with the default format). Paimon's
// source and sink (connector paimon in the plan's table options) are
// modelled: with sink.operator-uid.suffix the sink's Writer and Global
// Committer get the uids Paimon gives (Writer_<table>_<suffix>, Global
// Committer_<table>_<suffix>); the source takes the planner's <id>_source
// over Paimon's uid. Without the suffix, or with operators Paimon adds
// unnamed (a consumer source's Monitor in exactly-once mode, a dynamic
// bucket assigner, changelog compaction), they are listed in
// Unpredictable (PlanNode.Unnamed). The plan's Notes go
// to Job.Notes. When the plan gives every operator's id (none in
// Unpredictable but a connector's own that no option says it adds
// unnamed), AddPlan sets Job.AllUIDs.
func (j *Job) AddPlan(p *Plan) {
	// A plan describes every operator the planner creates: when it derives
	// every id, a snapshot operator none matches is dropped (AllUIDs).
	uidLess := false
	defer func() {
		if !uidLess && len(j.Operators) > 0 {
			j.AllUIDs = true
		}
	}()
	j.Notes = append(j.Notes, p.Notes...)
	var connectors []string
	for _, n := range p.Nodes {
		if n.Err == nil && n.UIDs && len(n.Unnamed) == 0 && n.Connector != paimonConnectorName && (n.Type == "stream-exec-table-source-scan" || n.Type == "stream-exec-sink") {
			connectors = append(connectors, strconv.FormatInt(n.ID, 10))
		}
	}
	if len(connectors) > 0 {
		j.Unpredictable = append(j.Unpredictable, fmt.Sprintf("operators a connector adds itself beside those of nodes %s (DataStreamScanProvider, DataStreamSinkProvider …): uid <id>_<name> when it calls ProviderContext.generateUid(name), a topology hash otherwise",
			strings.Join(connectors, ", ")))
	}
	for _, n := range p.Nodes {
		for _, u := range n.Unnamed {
			uidLess = true
			j.Unpredictable = append(j.Unpredictable, fmt.Sprintf("node %d (%s): %s", n.ID, n.Type, u))
		}
		if n.Err != nil {
			uidLess = true
			j.Unpredictable = append(j.Unpredictable, fmt.Sprintf("node %d (%s_%d): %v", n.ID, n.Type, n.Version, n.Err))
			continue
		}
		for _, op := range n.Operators {
			switch {
			case op.Virtual:
			case op.ID == "":
				uidLess = true
				what := fmt.Sprintf("%s of node %d (%s): no uid, a topology hash", op.Transformation, n.ID, n.Type)
				if op.Why != "" {
					what += " (" + op.Why + ")"
				}
				j.Unpredictable = append(j.Unpredictable, what)
			default:
				jo := JobOperator{ID: op.ID, UID: op.UID, Name: fmt.Sprintf("%s of node %d (%s)", op.Transformation, n.ID, n.Type), Maybe: op.Maybe}
				if op.Transformation == "committer" {
					jo.SinkTopics = n.SinkTopics
				}
				j.add(jo)
			}
		}
	}
}

// uidCollisions reports uids that two operators (not virtual, not maybe)
// share: Flink's StreamGraphHasherV2 refuses the job.
func uidCollisions(p *Plan) []error {
	seen := map[string]int64{}
	var errs []error
	for i, n := range p.Nodes {
		for _, op := range n.Operators {
			if op.Virtual || op.Maybe || op.UID == "" {
				continue
			}
			if prev, dup := seen[op.UID]; dup && prev != n.ID {
				errs = append(errs, &PlanError{Node: i, NodeID: n.ID, Msg: fmt.Sprintf("%s has uid %s, as does node %d: Flink refuses the job (check table.exec.uid.format)",
					op.Transformation, redact.Quote(op.UID), prev), Err: ErrUIDCollision})
				continue
			}
			seen[op.UID] = n.ID
		}
	}
	return errs
}
