package jobgraph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/resumekit/resumekit/internal/version"
	"github.com/resumekit/resumekit/resume/redact"
)

// planJSON is the part of Flink's ExecNodeGraph JSON the reader needs.
type planJSON struct {
	FlinkVersion string
	Nodes        []planNodeJSON
	Edges        []planEdgeJSON
	byID         map[int64]int
	inputsOf     map[int64][]int64
}

type planEdgeJSON struct {
	Source int64 `json:"source"`
	Target int64 `json:"target"`
}

// planNodeJSON is one node: its identity, its configuration, and the
// fields the conditional transformations depend on. The rest of the node
// is kept raw.
type planNodeJSON struct {
	ID            int64
	Name          string
	Version       int
	Description   string
	Configuration map[string]string
	OutputType    json.RawMessage
	raw           json.RawMessage
}

// decodePlan checks the plan's shape: an object with flinkVersion, nodes
// (each with an integer id, unique, and a type name_version) and edges.
func decodePlan(data []byte) (*planJSON, error) {
	malformed := func(node int, id int64, field, format string, args ...any) error {
		return &PlanError{Node: node, NodeID: id, Field: field, Msg: fmt.Sprintf(format, args...), Err: ErrMalformedPlan}
	}
	var top struct {
		FlinkVersion *string           `json:"flinkVersion"`
		Nodes        []json.RawMessage `json:"nodes"`
		Edges        []json.RawMessage `json:"edges"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&top); err != nil {
		return nil, malformed(-1, 0, "", "not a JSON object with flinkVersion, nodes and edges: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, malformed(-1, 0, "", "data after the plan's JSON object")
	}
	if top.FlinkVersion == nil {
		return nil, malformed(-1, 0, "flinkVersion", "missing: not a compiled plan")
	}
	if top.Nodes == nil {
		return nil, malformed(-1, 0, "nodes", "missing: not a compiled plan")
	}
	p := &planJSON{FlinkVersion: *top.FlinkVersion, byID: make(map[int64]int, len(top.Nodes)), inputsOf: map[int64][]int64{}}
	for i, raw := range top.Nodes {
		var n struct {
			ID            *json.Number               `json:"id"`
			Type          *string                    `json:"type"`
			Description   *string                    `json:"description"`
			Configuration map[string]json.RawMessage `json:"configuration"`
			OutputType    json.RawMessage            `json:"outputType"`
		}
		if err := json.Unmarshal(raw, &n); err != nil {
			return nil, malformed(i, 0, "", "not a node object: %v", err)
		}
		if n.ID == nil {
			return nil, malformed(i, 0, "id", "missing")
		}
		id, err := strconv.ParseInt(n.ID.String(), 10, 32)
		if err != nil {
			return nil, malformed(i, 0, "id", "%s is not an integer node id", redact.Quote(n.ID.String()))
		}
		if prev, dup := p.byID[id]; dup {
			return nil, malformed(i, id, "id", "duplicate of node %d", prev)
		}
		if n.Type == nil {
			return nil, malformed(i, id, "type", "missing")
		}
		name, version, ok := splitNodeType(*n.Type)
		if !ok {
			return nil, malformed(i, id, "type", "%s is not <name>_<version>", redact.Quote(*n.Type))
		}
		node := planNodeJSON{ID: id, Name: name, Version: version, OutputType: n.OutputType, raw: raw}
		if n.Description != nil {
			node.Description = *n.Description
		}
		if len(n.Configuration) > 0 {
			node.Configuration = make(map[string]string, len(n.Configuration))
			for k, v := range n.Configuration {
				s, ok := configValue(v)
				if !ok {
					return nil, malformed(i, id, "configuration."+k, "not a string, number or boolean")
				}
				node.Configuration[k] = s
			}
			if err := validatePlanConfig(node.Configuration, "configuration"); err != nil {
				return nil, &PlanError{Node: i, NodeID: id, Field: "configuration", Msg: err.Error(), Err: ErrMalformedPlan}
			}
		}
		p.byID[id] = i
		p.Nodes = append(p.Nodes, node)
	}
	for i, raw := range top.Edges {
		var e struct {
			Source *int64 `json:"source"`
			Target *int64 `json:"target"`
		}
		if err := json.Unmarshal(raw, &e); err != nil || e.Source == nil || e.Target == nil {
			return nil, malformed(-1, 0, fmt.Sprintf("edges[%d]", i), "not an edge with a source and a target node id")
		}
		for _, end := range []int64{*e.Source, *e.Target} {
			if _, ok := p.byID[end]; !ok {
				return nil, malformed(-1, 0, fmt.Sprintf("edges[%d]", i), "no node with id %d", end)
			}
		}
		p.Edges = append(p.Edges, planEdgeJSON{Source: *e.Source, Target: *e.Target})
		p.inputsOf[*e.Target] = append(p.inputsOf[*e.Target], *e.Source)
	}
	return p, nil
}

// splitNodeType splits "stream-exec-calc_1" (ExecNodeContext: name and
// version joined by an underscore).
func splitNodeType(s string) (string, int, bool) {
	i := strings.LastIndexByte(s, '_')
	if i <= 0 || strings.IndexByte(s[:i], '_') >= 0 {
		return "", 0, false
	}
	v, err := strconv.Atoi(s[i+1:])
	if err != nil || v < 0 {
		return "", 0, false
	}
	return s[:i], v, true
}

func configValue(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return strconv.FormatBool(b), true
	}
	return "", false
}

// inputs returns the ids of a node's inputs in edge order.
func (p *planJSON) inputs(id int64) []int64 {
	return p.inputsOf[id]
}

// legacyUIDFormat is Flink 1.15's fixed <id>_<type>_<version>_<transformation>.
func (v flinkVersion) legacyUIDFormat() bool { return v.Major == 1 && v.Minor == 15 }

// flinkVersion is the Flink version a compiled plan runs on
// (PlanOptions.FlinkVersion, else the plan's flinkVersion), for its uid
// rules. The zero value means unknown.
type flinkVersion struct{ version.Version }

// Table configuration keys the uid rules read.
const (
	keyUIDFormat            = "table.exec.uid.format"
	keyUIDGeneration        = "table.exec.uid.generation"
	keyLegacyUIDs           = "table.exec.legacy-transformation-uids"
	keyTypeLengthEnforcer   = "table.exec.sink.type-length-enforcer"
	keyRowtimeInserter      = "table.exec.sink.rowtime-inserter"
	keyNestedConstraint     = "table.exec.sink.nested-constraint-enforcer"
	defaultUIDFormat        = "<id>_<transformation>"
	legacyUIDFormat         = "<id>_<type>_<version>_<transformation>"
	uidGenerationPlanOnly   = "PLAN_ONLY"
	uidGenerationAlways     = "ALWAYS"
	uidGenerationDisabled   = "DISABLED"
	typeLengthTrimPad       = "TRIM_PAD"
	rowtimeInserterDisabled = "DISABLED"
)

// validatePlanConfig checks the values of the keys the rules read, as
// Flink parses them (enums and booleans case-insensitively).
func validatePlanConfig(c map[string]string, where string) error {
	enum := func(key string, values ...string) error {
		v, ok := c[key]
		if !ok || slices.Contains(values, strings.ToUpper(v)) {
			return nil
		}
		return fmt.Errorf("%s: %s=%s: want one of %s", where, key, redact.Quote(v), strings.Join(values, ", "))
	}
	return errors.Join(
		enum(keyUIDGeneration, uidGenerationPlanOnly, uidGenerationAlways, uidGenerationDisabled),
		enum(keyLegacyUIDs, "TRUE", "FALSE"),
		enum(keyTypeLengthEnforcer, "IGNORE", typeLengthTrimPad),
		enum(keyRowtimeInserter, "ENABLED", rowtimeInserterDisabled),
	)
}
