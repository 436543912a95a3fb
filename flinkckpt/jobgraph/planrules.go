package jobgraph

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/resumekit/resumekit/resume/redact"
)

// inputType is the output type of the node's only input (the type the
// node's translation reads), or nil.
func (c *nodeContext) inputType() json.RawMessage {
	in := c.d.plan.inputs(c.n.ID)
	if len(in) != 1 {
		return nil
	}
	return c.d.plan.Nodes[c.d.plan.byID[in[0]]].OutputType
}

// sink follows CommonExecSink.createSinkTransformation: a constraint
// validator when the sink's physical columns need one, a partitioner
// (virtual) for a keyed shuffle, the upsert materializer when the plan says
// it is required and the input has updates, a row-kind setter for
// row-level delete or update, a timestamp inserter when the input has a
// rowtime attribute and the connector's provider inserts it, then the sink;
// a SinkV2 sink with a committer expands to "Sink Committer: <uid>" and
// "Sink <uid> Global Committer" (SinkTransformationTranslator), which the
// plan cannot tell (Maybe). A connector's own sub-operators
// (DataStreamSinkProvider, WithPreCommitTopology) are not in the plan.
func (c *nodeContext) sink() ([]PlanOperator, []string) {
	var spec struct {
		DynamicTableSink *struct {
			Table struct {
				ResolvedTable *struct {
					Schema struct {
						Columns []struct {
							Name     string          `json:"name"`
							DataType json.RawMessage `json:"dataType"`
							Kind     string          `json:"kind"`
						} `json:"columns"`
						PrimaryKey json.RawMessage `json:"primaryKey"`
					} `json:"schema"`
				} `json:"resolvedTable"`
			} `json:"table"`
			Abilities []struct {
				Type               string `json:"type"`
				RowLevelDeleteMode string `json:"rowLevelDeleteMode"`
				RowLevelUpdateMode string `json:"rowLevelUpdateMode"`
			} `json:"abilities"`
		} `json:"dynamicTableSink"`
		InputChangelogMode       []string `json:"inputChangelogMode"`
		RequireUpsertMaterialize bool     `json:"requireUpsertMaterialize"`
	}
	readable := c.decode(&spec) && spec.DynamicTableSink != nil
	var out []PlanOperator

	// constraint-validator (ConstraintEnforcer): NOT NULL columns are
	// always enforced (ERROR or DROP); CHAR/BINARY lengths with TRIM_PAD.
	cv := c.op("constraint-validator")
	switch {
	case !readable || spec.DynamicTableSink.Table.ResolvedTable == nil:
		out = append(out, c.maybe(cv, "the plan does not hold the sink table's schema"))
	default:
		trimPad := strings.EqualFold(c.get(keyTypeLengthEnforcer), typeLengthTrimPad)
		nested := c.get(keyNestedConstraint) != "" && !strings.EqualFold(c.get(keyNestedConstraint), "IGNORE")
		why, maybeWhy := "", ""
		for _, col := range spec.DynamicTableSink.Table.ResolvedTable.Schema.Columns {
			if col.Kind != "" && col.Kind != "PHYSICAL" {
				continue
			}
			t, ok := parseLogicalType(col.DataType)
			switch {
			case !ok:
				maybeWhy = fmt.Sprintf("the type of column %s is not readable", col.Name)
			case t.NotNull:
				why = fmt.Sprintf("column %s is NOT NULL", col.Name)
			case trimPad && t.lengthConstrained():
				why = fmt.Sprintf("column %s has a length enforced by %s=TRIM_PAD", col.Name, keyTypeLengthEnforcer)
			case nested && t.NestedNotNull:
				maybeWhy = fmt.Sprintf("column %s has nested NOT NULL types and %s is set", col.Name, keyNestedConstraint)
			}
			if why != "" {
				break
			}
		}
		switch {
		case why != "":
			out = append(out, c.because(cv, why))
		case maybeWhy != "":
			out = append(out, c.maybe(cv, maybeWhy))
		}
	}

	insertOnly := len(spec.InputChangelogMode) > 0
	for _, m := range spec.InputChangelogMode {
		insertOnly = insertOnly && m == "INSERT"
	}
	materialize := spec.RequireUpsertMaterialize && !insertOnly
	hasPK := readable && spec.DynamicTableSink.Table.ResolvedTable != nil &&
		len(spec.DynamicTableSink.Table.ResolvedTable.Schema.PrimaryKey) > 0 &&
		string(spec.DynamicTableSink.Table.ResolvedTable.Schema.PrimaryKey) != "null"
	switch {
	case materialize:
		out = append(out, c.because(c.op("partitioner"), "keyed by the primary key for the upsert materializer"))
	case hasPK || !readable:
		out = append(out, c.maybe(c.op("partitioner"), "a keyed shuffle when the sink's parallelism differs from its input's (table.exec.sink.keyed-shuffle)"))
	}
	switch {
	case materialize && len(spec.InputChangelogMode) > 0:
		out = append(out, c.because(c.op("upsert-materialize"), "the plan requires upsert materialization and the input has updates"))
	case materialize || (!readable && spec.RequireUpsertMaterialize):
		out = append(out, c.maybe(c.op("upsert-materialize"), "the plan requires upsert materialization; the input's changelog mode is not recorded"))
	}

	if readable {
		for _, a := range spec.DynamicTableSink.Abilities {
			switch {
			case a.Type == "RowLevelDelete" && a.RowLevelDeleteMode == "DELETED_ROWS",
				a.Type == "RowLevelUpdate" && a.RowLevelUpdateMode == "UPDATED_ROWS":
				out = append(out, c.because(c.op("row-kind-setter"), "row-level "+strings.TrimPrefix(a.Type, "RowLevel")+" of the affected rows only"))
			case a.Type == "RowLevelDelete" || a.Type == "RowLevelUpdate":
				if a.RowLevelDeleteMode == "" && a.RowLevelUpdateMode == "" {
					out = append(out, c.maybe(c.op("row-kind-setter"), "row-level modification of unrecorded mode"))
				}
			default:
				continue
			}
			break
		}
	}

	if !strings.EqualFold(c.get(keyRowtimeInserter), rowtimeInserterDisabled) {
		fields, ok := rowFields(c.inputType())
		rowtimes := 0
		for _, f := range fields {
			if f.Rowtime {
				rowtimes++
			}
		}
		switch {
		case !ok:
			out = append(out, c.maybe(c.op("timestamp-inserter"), "the input's type is not readable"))
		case rowtimes > 0:
			out = append(out, c.maybe(c.op("timestamp-inserter"), "the input has a rowtime attribute: inserted for DataStream and Sink connectors (not SinkFunction ones)"))
		}
	}

	sink := c.op("sink")
	out = append(out, sink)
	if sink.UID != "" {
		committer := PlanOperator{Transformation: "committer", UID: "Sink Committer: " + sink.UID, Maybe: true,
			Why: "a SinkV2 sink with a committer (SinkTransformationTranslator)"}
		global := PlanOperator{Transformation: "global-committer", UID: "Sink " + sink.UID + " Global Committer", Maybe: true,
			Why: "a SinkV2 sink with a global committer (SinkTransformationTranslator)"}
		committer.ID, global.ID = OperatorID(committer.UID), OperatorID(global.UID)
		out = append(out, committer, global)
	}
	return out, nil
}

// lookupJoin follows StreamExecLookupJoin: with upsert materialization
// required a partitioner (virtual) and a keyed lookup-join-materialize
// operator replace lookup-join.
func (c *nodeContext) lookupJoin() ([]PlanOperator, []string) {
	var spec struct {
		RequireUpsertMaterialize *bool `json:"requireUpsertMaterialize"`
	}
	if !c.decode(&spec) {
		return []PlanOperator{
			c.maybe(c.op("lookup-join"), "the node's fields are not readable"),
			c.maybe(c.op("partitioner"), "the node's fields are not readable"),
			c.maybe(c.op("lookup-join-materialize"), "the node's fields are not readable"),
		}, nil
	}
	if spec.RequireUpsertMaterialize != nil && *spec.RequireUpsertMaterialize {
		why := "the plan requires upsert materialization"
		return []PlanOperator{c.because(c.op("partitioner"), why), c.because(c.op("lookup-join-materialize"), why)}, nil
	}
	return []PlanOperator{c.op("lookup-join")}, nil
}

// match follows CommonExecMatch.translateOrder: a timestamp inserter when
// the first order key is a rowtime attribute.
func (c *nodeContext) match() ([]PlanOperator, []string) {
	var spec struct {
		MatchSpec *struct {
			OrderBy *struct {
				Fields []struct {
					Index *int `json:"index"`
				} `json:"fields"`
			} `json:"orderBy"`
		} `json:"matchSpec"`
	}
	var out []PlanOperator
	t, ok := c.firstKeyType(c.decode(&spec) && spec.MatchSpec != nil && spec.MatchSpec.OrderBy != nil, func() []*int {
		var idx []*int
		for _, f := range spec.MatchSpec.OrderBy.Fields {
			idx = append(idx, f.Index)
		}
		return idx
	})
	switch {
	case !ok:
		out = append(out, c.maybe(c.op("timestamp-inserter"), "the order key's type is not readable"))
	case t.Rowtime:
		out = append(out, c.because(c.op("timestamp-inserter"), "ordered by a rowtime attribute"))
	}
	return append(out, c.op("match")), nil
}

// firstKeyType returns the input type of the first of a node's sort keys.
func (c *nodeContext) firstKeyType(readable bool, keys func() []*int) (logicalType, bool) {
	if !readable {
		return logicalType{}, false
	}
	idx := keys()
	if len(idx) == 0 || idx[0] == nil {
		return logicalType{}, false
	}
	in := c.inputType()
	if in == nil {
		in = c.n.OutputType
	}
	fields, ok := rowFields(in)
	if !ok || *idx[0] < 0 || *idx[0] >= len(fields) {
		return logicalType{}, false
	}
	return fields[*idx[0]], true
}

// temporalSort follows StreamExecTemporalSort: sorting by processing time
// alone forwards the input (no operator).
func (c *nodeContext) temporalSort() ([]PlanOperator, []string) {
	var spec struct {
		SortSpec *struct {
			Fields []struct {
				Index *int `json:"index"`
			} `json:"fields"`
		} `json:"sortSpec"`
	}
	readable := c.decode(&spec) && spec.SortSpec != nil
	t, ok := c.firstKeyType(readable, func() []*int {
		var idx []*int
		for _, f := range spec.SortSpec.Fields {
			idx = append(idx, f.Index)
		}
		return idx
	})
	switch {
	case !ok:
		return []PlanOperator{c.maybe(c.op("temporal-sort"), "the sort key's type is not readable; sorting by processing time alone creates no operator")}, nil
	case t.Proctime && len(spec.SortSpec.Fields) == 1:
		return nil, []string{"sorts by processing time only: Flink forwards the input, no operator"}
	}
	return []PlanOperator{c.op("temporal-sort")}, nil
}

// intervalJoin follows StreamExecIntervalJoin: when the time bounds can
// never match (a negative window) two stateless operators per join type
// replace interval-join — and Flink 1.20 sets their uids only when the
// deprecated table.exec.legacy-transformation-uids is true (an inverted
// check), so by default they get topology hashes.
func (c *nodeContext) intervalJoin() ([]PlanOperator, []string) {
	var spec struct {
		IntervalJoinSpec *struct {
			JoinSpec *struct {
				JoinType string `json:"joinType"`
			} `json:"joinSpec"`
			WindowBounds *struct {
				LeftLowerBound *int64 `json:"leftLowerBound"`
				LeftUpperBound *int64 `json:"leftUpperBound"`
			} `json:"windowBounds"`
		} `json:"intervalJoinSpec"`
	}
	negative := func(t string) PlanOperator {
		op := PlanOperator{Transformation: t}
		if c.legacy {
			op.UID = c.uid(t)
			op.ID = OperatorID(op.UID)
			op.Why = "the window can never match; uid set because table.exec.legacy-transformation-uids=true (Flink's inverted check)"
		} else {
			op.Why = "the window can never match; Flink sets no uid here unless table.exec.legacy-transformation-uids=true (inverted check)"
		}
		return op
	}
	if !c.decode(&spec) || spec.IntervalJoinSpec == nil || spec.IntervalJoinSpec.JoinSpec == nil ||
		spec.IntervalJoinSpec.WindowBounds == nil || spec.IntervalJoinSpec.WindowBounds.LeftLowerBound == nil ||
		spec.IntervalJoinSpec.WindowBounds.LeftUpperBound == nil {
		why := "the join's window bounds are not readable"
		out := []PlanOperator{c.maybe(c.op("interval-join"), why)}
		for _, t := range []string{"filter-left", "filter-right", "pad-left", "pad-right"} {
			out = append(out, c.maybe(negative(t), why))
		}
		return out, nil
	}
	b := spec.IntervalJoinSpec.WindowBounds
	if *b.LeftUpperBound >= *b.LeftLowerBound {
		return []PlanOperator{c.op("interval-join")}, nil
	}
	var pair []string
	switch spec.IntervalJoinSpec.JoinSpec.JoinType {
	case "INNER":
		pair = []string{"filter-left", "filter-right"}
	case "LEFT":
		pair = []string{"pad-left", "filter-right"}
	case "RIGHT":
		pair = []string{"filter-left", "pad-right"}
	case "FULL":
		pair = []string{"pad-left", "pad-right"}
	default:
		return nil, []string{fmt.Sprintf("join type %s with a negative window: Flink refuses to translate it", redact.Quote(spec.IntervalJoinSpec.JoinSpec.JoinType))}
	}
	return []PlanOperator{negative(pair[0]), negative(pair[1])}, nil
}
