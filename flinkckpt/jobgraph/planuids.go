package jobgraph

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// execNode is one row of Flink's table of stream ExecNodes (execnodes.go,
// generated from flink-execnode-uids.tsv): the transformations a node type
// translates to, in translation order, and which of them are virtual
// (PartitionTransformation: a uid, never an operator).
type execNode struct {
	Class           string
	Transformations []string
	Virtual         []string
}

func (e execNode) virtual(t string) bool {
	for _, v := range e.Virtual {
		if v == t {
			return true
		}
	}
	return false
}

// deriver applies the planner's uid rules to the nodes of one plan.
type deriver struct {
	plan *planJSON
	opts PlanOptions
	run  flinkVersion
}

// nodeContext is one node under translation: its configuration (the
// node's own over the job's, as ExecNodeConfig.get reads it) and the uid
// format in effect.
type nodeContext struct {
	d      *deriver
	n      *planNodeJSON
	table  execNode
	format string
	setUID bool
	legacy bool
}

// node derives the operators of the i-th node.
func (d *deriver) node(i int) (PlanNode, error) {
	n := &d.plan.Nodes[i]
	out := PlanNode{ID: n.ID, Type: n.Name, Version: n.Version, Description: n.Description}
	key := n.Name + "_" + strconv.Itoa(n.Version)
	en, ok := execNodes[key]
	if !ok {
		err := &PlanError{Node: i, NodeID: n.ID, Field: "type", Msg: fmt.Sprintf("%s is not a stream ExecNode type and version in resumekit's table (Flink 1.20): its operators are not guessed", key),
			Err: ErrUnknownNodeType}
		out.Err = err
		return out, err
	}
	c := &nodeContext{d: d, n: n, table: en}
	c.legacy = strings.EqualFold(c.get(keyLegacyUIDs), "true")
	c.setUID = c.shouldSetUID()
	c.format = c.uidFormat()
	out.UIDs = c.setUID
	if c.setUID {
		out.UIDFormat = c.format
	}
	rule, ok := nodeRules[n.Name]
	if !ok {
		rule = (*nodeContext).plain
	}
	out.Operators, out.Notes = rule(c)
	c.connector(&out)
	return out, nil
}

// nodeRules are the node types whose transformations depend on the plan;
// every other type translates to its table row as is.
var nodeRules = map[string]func(*nodeContext) ([]PlanOperator, []string){
	"stream-exec-sink":          (*nodeContext).sink,
	"stream-exec-lookup-join":   (*nodeContext).lookupJoin,
	"stream-exec-match":         (*nodeContext).match,
	"stream-exec-interval-join": (*nodeContext).intervalJoin,
	"stream-exec-temporal-sort": (*nodeContext).temporalSort,
	"stream-exec-table-source-scan": func(c *nodeContext) ([]PlanOperator, []string) {
		return []PlanOperator{c.op("source"),
			c.maybe(c.op("partitioner"), "only for an upsert source with a configured parallelism")}, nil
	},
}

// get reads a table option: the node's configuration first, then the
// job's (PlanOptions.Config); "" when neither sets it.
func (c *nodeContext) get(key string) string {
	if v, ok := c.n.Configuration[key]; ok {
		return v
	}
	return c.d.opts.Config[key]
}

// shouldSetUID mirrors ExecNodeConfig.shouldSetUid for a plan being
// translated (isCompiled is true): PLAN_ONLY sets uids unless the
// deprecated legacy flag is on, ALWAYS sets them, DISABLED never. Flink
// 1.15 had no table.exec.uid.generation.
func (c *nodeContext) shouldSetUID() bool {
	if c.d.run.legacyUIDFormat() {
		return !c.legacy
	}
	switch strings.ToUpper(c.get(keyUIDGeneration)) {
	case uidGenerationAlways:
		return true
	case uidGenerationDisabled:
		return false
	default:
		return !c.legacy
	}
}

// uidFormat is table.exec.uid.format, or Flink 1.15's fixed format.
func (c *nodeContext) uidFormat() string {
	if c.d.run.legacyUIDFormat() {
		return legacyUIDFormat
	}
	if f, ok := c.n.Configuration[keyUIDFormat]; ok {
		return f
	}
	if f, ok := c.d.opts.Config[keyUIDFormat]; ok {
		return f
	}
	return defaultUIDFormat
}

// uid is ExecNodeContext.generateUid: the placeholders replaced in one
// left-to-right pass, as commons-lang StringUtils.replaceEach does (a
// replacement is never scanned again).
func (c *nodeContext) uid(transformation string) string {
	f := c.format
	var b strings.Builder
	for {
		i := strings.IndexByte(f, '<')
		if i < 0 {
			b.WriteString(f)
			return b.String()
		}
		b.WriteString(f[:i])
		f = f[i:]
		switch {
		case strings.HasPrefix(f, "<id>"):
			b.WriteString(strconv.FormatInt(c.n.ID, 10))
			f = f[len("<id>"):]
		case strings.HasPrefix(f, "<type>"):
			b.WriteString(c.n.Name)
			f = f[len("<type>"):]
		case strings.HasPrefix(f, "<version>"):
			b.WriteString(strconv.Itoa(c.n.Version))
			f = f[len("<version>"):]
		case strings.HasPrefix(f, "<transformation>"):
			b.WriteString(transformation)
			f = f[len("<transformation>"):]
		default:
			b.WriteByte('<')
			f = f[1:]
		}
	}
}

// op is a transformation of the node, with its uid when the planner sets
// one.
func (c *nodeContext) op(transformation string) PlanOperator {
	op := PlanOperator{Transformation: transformation, Virtual: c.table.virtual(transformation)}
	if c.setUID {
		op.UID = c.uid(transformation)
		op.ID = OperatorID(op.UID)
	}
	return op
}

func (c *nodeContext) maybe(op PlanOperator, why string) PlanOperator {
	op.Maybe, op.Why = true, why
	return op
}

func (c *nodeContext) because(op PlanOperator, why string) PlanOperator {
	op.Why = why
	return op
}

// plain translates the node to its table row.
func (c *nodeContext) plain() ([]PlanOperator, []string) {
	var out []PlanOperator
	for _, t := range c.table.Transformations {
		out = append(out, c.op(t))
	}
	return out, nil
}

// decode reads the node's own fields into v; false when they do not fit
// (the conditional transformations then become Maybe).
func (c *nodeContext) decode(v any) bool {
	return json.Unmarshal(c.n.raw, v) == nil
}
