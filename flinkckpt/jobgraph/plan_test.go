package jobgraph_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// testPlan builds a compiled plan: nodes are JSON objects without the
// surrounding braces' id and type, chained by edges in order unless edges
// is given.
type testNode struct {
	id     int
	typ    string
	fields string // more JSON fields, without braces
}

func testPlan(version string, nodes []testNode, edges ...[2]int) string {
	var ns, es []string
	for _, n := range nodes {
		f := ""
		if n.fields != "" {
			f = ", " + n.fields
		}
		ns = append(ns, fmt.Sprintf(`{"id": %d, "type": %q, "description": "node %d"%s}`, n.id, n.typ, n.id, f))
	}
	if edges == nil {
		for i := 1; i < len(nodes); i++ {
			edges = append(edges, [2]int{nodes[i-1].id, nodes[i].id})
		}
	}
	for _, e := range edges {
		es = append(es, fmt.Sprintf(`{"source": %d, "target": %d, "shuffle": {"type": "FORWARD"}, "shuffleMode": "PIPELINED"}`, e[0], e[1]))
	}
	return fmt.Sprintf(`{"flinkVersion": %q, "nodes": [%s], "edges": [%s]}`, version, strings.Join(ns, ", "), strings.Join(es, ", "))
}

// simplePlan: source 1 → calc 2 → group-aggregate 3 → sink 4.
func simplePlan(version string, aggFields string) string {
	return testPlan(version, []testNode{
		{1, "stream-exec-table-source-scan_1", `"outputType": "ROW<` + "`a` INT, `b` BIGINT" + `>"`},
		{2, "stream-exec-calc_1", rowA},
		{3, "stream-exec-group-aggregate_1", join(rowA, aggFields)},
		{4, "stream-exec-sink_1", sinkFields(`{"name": "a", "dataType": "INT"}`, `"INSERT"`)},
	})
}

const rowA = `"outputType": "ROW<` + "`a` INT" + `>"`

func join(fields ...string) string {
	var out []string
	for _, f := range fields {
		if f != "" {
			out = append(out, f)
		}
	}
	return strings.Join(out, ", ")
}

func sinkFields(columns string, changelog string) string {
	return `"dynamicTableSink": {"table": {"identifier": "t", "resolvedTable": {"schema": {"columns": [` + columns +
		`], "watermarkSpecs": []}, "partitionKeys": []}}}, "inputChangelogMode": [` + changelog + `]`
}

// uidsOf returns every operator of the plan as "uid" (maybe ones as
// "uid?", without a uid as "<transformation of node N>"), leaving out
// virtual transformations.
func uidsOf(t *testing.T, plan string, opts *jobgraph.PlanOptions) []string {
	t.Helper()
	p, err := jobgraph.ParsePlan([]byte(plan), opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range p.Nodes {
		for _, op := range n.Operators {
			s := op.UID
			if s == "" {
				s = fmt.Sprintf("<%s of node %d>", op.Transformation, n.ID)
			} else if op.ID != jobgraph.OperatorID(op.UID) {
				t.Errorf("%s: id %s is not the uid's", op.UID, op.ID)
			}
			if op.Virtual {
				continue
			}
			if op.Maybe {
				s += "?"
			}
			out = append(out, s)
		}
	}
	return out
}

var sinkV2Maybe = []string{"Sink Committer: 4_sink?", "Sink 4_sink Global Committer?"}

func TestPlanUIDFormat(t *testing.T) {
	for _, tc := range []struct {
		name string
		plan string
		opts *jobgraph.PlanOptions
		want []string
	}{
		{"Default", simplePlan("1.19", ""), nil,
			append([]string{"1_source", "2_calc", "3_group-aggregate", "4_sink"}, sinkV2Maybe...)},
		{"FormatOption", simplePlan("1.20", ""),
			&jobgraph.PlanOptions{Config: map[string]string{"table.exec.uid.format": "job-a/<type>/<version>/<id>/<transformation>"}},
			[]string{"job-a/stream-exec-table-source-scan/1/1/source", "job-a/stream-exec-calc/1/2/calc",
				"job-a/stream-exec-group-aggregate/1/3/group-aggregate", "job-a/stream-exec-sink/1/4/sink",
				"Sink Committer: job-a/stream-exec-sink/1/4/sink?", "Sink job-a/stream-exec-sink/1/4/sink Global Committer?"}},
		{"PerNodeOverride", simplePlan("1.19", `"configuration": {"table.exec.uid.format": "agg-<id>"}`),
			&jobgraph.PlanOptions{Config: map[string]string{"table.exec.uid.format": "x<id>_<transformation>"}},
			[]string{"x1_source", "x2_calc", "agg-3", "x4_sink", "Sink Committer: x4_sink?", "Sink x4_sink Global Committer?"}},
		{"PlaceholdersReplacedOnce", simplePlan("1.19", `"configuration": {"table.exec.uid.format": "<transformation>:<id>"}`), nil,
			[]string{"1_source", "2_calc", "group-aggregate:3", "4_sink", sinkV2Maybe[0], sinkV2Maybe[1]}},
		{"Flink115", simplePlan("1.15", ""), nil,
			[]string{"1_stream-exec-table-source-scan_1_source", "2_stream-exec-calc_1_calc",
				"3_stream-exec-group-aggregate_1_group-aggregate", "4_stream-exec-sink_1_sink",
				"Sink Committer: 4_stream-exec-sink_1_sink?", "Sink 4_stream-exec-sink_1_sink Global Committer?"}},
		{"Flink115PlanRunOn120", simplePlan("1.15", ""), &jobgraph.PlanOptions{FlinkVersion: "1.20.1"},
			append([]string{"1_source", "2_calc", "3_group-aggregate", "4_sink"}, sinkV2Maybe...)},
		{"Flink115IgnoresFormatOption", simplePlan("1.15", ""), &jobgraph.PlanOptions{Config: map[string]string{"table.exec.uid.format": "<id>"}},
			[]string{"1_stream-exec-table-source-scan_1_source", "2_stream-exec-calc_1_calc",
				"3_stream-exec-group-aggregate_1_group-aggregate", "4_stream-exec-sink_1_sink",
				"Sink Committer: 4_stream-exec-sink_1_sink?", "Sink 4_stream-exec-sink_1_sink Global Committer?"}},
		{"GenerationDisabled", simplePlan("1.19", ""), &jobgraph.PlanOptions{Config: map[string]string{"table.exec.uid.generation": "disabled"}},
			[]string{"<source of node 1>", "<calc of node 2>", "<group-aggregate of node 3>", "<sink of node 4>"}},
		{"GenerationDisabledForOneNode", simplePlan("1.19", `"configuration": {"table.exec.uid.generation": "DISABLED"}`), nil,
			append([]string{"1_source", "2_calc", "<group-aggregate of node 3>", "4_sink"}, sinkV2Maybe...)},
		{"GenerationAlwaysBeatsLegacy", simplePlan("1.19", ""),
			&jobgraph.PlanOptions{Config: map[string]string{"table.exec.uid.generation": "ALWAYS", "table.exec.legacy-transformation-uids": "true"}},
			append([]string{"1_source", "2_calc", "3_group-aggregate", "4_sink"}, sinkV2Maybe...)},
		{"LegacyFlagDisablesPlanOnly", simplePlan("1.19", ""),
			&jobgraph.PlanOptions{Config: map[string]string{"table.exec.legacy-transformation-uids": "TRUE"}},
			[]string{"<source of node 1>", "<calc of node 2>", "<group-aggregate of node 3>", "<sink of node 4>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, uidsOf(t, tc.plan, tc.opts)); diff != "" {
				t.Errorf("uids (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlanFlink115Note(t *testing.T) {
	p, err := jobgraph.ParsePlan([]byte(simplePlan("1.15", "")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.RunVersion != "1.15" || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "pass the version that will run it") {
		t.Errorf("run version %s, notes %q", p.RunVersion, p.Notes)
	}
}

// TestPlanDisabledUIDsAreUnpredictable: without planner uids the operators
// get topology hashes; the job says so and a check cannot match them.
func TestPlanDisabledUIDsAreUnpredictable(t *testing.T) {
	j, err := jobgraph.JobFromPlan(strings.NewReader(simplePlan("1.19", "")), &jobgraph.PlanOptions{Config: map[string]string{"table.exec.uid.generation": "DISABLED"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Operators) != 0 || len(j.Unpredictable) != 4 || !strings.Contains(j.Unpredictable[2], "group-aggregate of node 3") {
		t.Errorf("operators %v, unpredictable %q", j.Operators, j.Unpredictable)
	}
}

func TestPlanSinkV2(t *testing.T) {
	j, err := jobgraph.JobFromPlan(strings.NewReader(simplePlan("1.19", "")), nil)
	if err != nil {
		t.Fatal(err)
	}
	for uid, maybe := range map[string]bool{"4_sink": false, "Sink Committer: 4_sink": true, "Sink 4_sink Global Committer": true} {
		o, ok := j.Operator(jobgraph.OperatorID(uid))
		if !ok || o.UID != uid || o.Maybe != maybe {
			t.Errorf("%s: %+v %v", uid, o, ok)
		}
	}
}

func TestPlanUnknownNodeType(t *testing.T) {
	plan := testPlan("2.1", []testNode{
		{1, "stream-exec-table-source-scan_1", ""},
		{2, "stream-exec-process-table-function_1", ""},
		{3, "stream-exec-calc_7", ""},
		{4, "stream-exec-sink_1", sinkFields(`{"name": "a", "dataType": "INT"}`, `"INSERT"`)},
	})
	p, err := jobgraph.ParsePlan([]byte(plan), nil)
	if !errors.Is(err, jobgraph.ErrUnknownNodeType) || errors.Is(err, jobgraph.ErrMalformedPlan) {
		t.Fatalf("error %v", err)
	}
	var pe *jobgraph.PlanError
	if !errors.As(err, &pe) || pe.Node != 1 || pe.NodeID != 2 || pe.Field != "type" || !strings.Contains(err.Error(), "stream-exec-calc_7") {
		t.Errorf("error %#v / %v", pe, err)
	}
	if p == nil || p.Nodes[1].Err == nil || p.Nodes[2].Err == nil || len(p.Nodes[1].Operators) != 0 || len(p.Nodes[0].Operators) != 2 {
		t.Fatalf("plan %+v", p)
	}
	j, err := jobgraph.JobFromPlan(strings.NewReader(plan), nil)
	if !errors.Is(err, jobgraph.ErrUnknownNodeType) || j == nil || !j.Has(jobgraph.OperatorID("4_sink")) || len(j.Unpredictable) != 3 ||
		!strings.Contains(j.Unpredictable[0], "nodes 1, 4") || !strings.Contains(j.Unpredictable[1], "node 2 (stream-exec-process-table-function_1)") {
		t.Errorf("job %+v, error %v", j, err)
	}
}

func TestPlanMalformed(t *testing.T) {
	for _, tc := range []struct {
		name, plan, field string
	}{
		{"NotJSON", `{"flinkVersion": "1.19", "nodes": [`, ""},
		{"Array", `[1, 2]`, ""},
		{"Trailing", `{"flinkVersion": "1.19", "nodes": []} {}`, ""},
		{"NoVersion", `{"nodes": []}`, "flinkVersion"},
		{"BadVersion", `{"flinkVersion": "next", "nodes": []}`, "flinkVersion"},
		{"NoNodes", `{"flinkVersion": "1.19"}`, "nodes"},
		{"NodeNotObject", `{"flinkVersion": "1.19", "nodes": [7]}`, ""},
		{"NoID", `{"flinkVersion": "1.19", "nodes": [{"type": "stream-exec-calc_1"}]}`, "id"},
		{"FractionalID", `{"flinkVersion": "1.19", "nodes": [{"id": 1.5, "type": "stream-exec-calc_1"}]}`, "id"},
		{"HugeID", `{"flinkVersion": "1.19", "nodes": [{"id": 99999999999, "type": "stream-exec-calc_1"}]}`, "id"},
		{"DuplicateID", `{"flinkVersion": "1.19", "nodes": [{"id": 1, "type": "stream-exec-calc_1"}, {"id": 1, "type": "stream-exec-calc_1"}]}`, "id"},
		{"NoType", `{"flinkVersion": "1.19", "nodes": [{"id": 1}]}`, "type"},
		{"TypeWithoutVersion", `{"flinkVersion": "1.19", "nodes": [{"id": 1, "type": "stream-exec-calc"}]}`, "type"},
		{"BadConfigValue", `{"flinkVersion": "1.19", "nodes": [{"id": 1, "type": "stream-exec-calc_1", "configuration": {"k": [1]}}]}`, "configuration.k"},
		{"BadGeneration", `{"flinkVersion": "1.19", "nodes": [{"id": 1, "type": "stream-exec-calc_1", "configuration": {"table.exec.uid.generation": "SOMETIMES"}}]}`, "configuration"},
		{"EdgeToNowhere", `{"flinkVersion": "1.19", "nodes": [{"id": 1, "type": "stream-exec-calc_1"}], "edges": [{"source": 1, "target": 2}]}`, "edges[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := jobgraph.ParsePlan([]byte(tc.plan), nil)
			var pe *jobgraph.PlanError
			if p != nil || !errors.Is(err, jobgraph.ErrMalformedPlan) || !errors.As(err, &pe) || pe.Field != tc.field {
				t.Fatalf("plan %v, error %v (%#v)", p, err, pe)
			}
		})
	}
	if _, err := jobgraph.ParsePlan([]byte(simplePlan("1.19", "")), &jobgraph.PlanOptions{MaxSize: 10}); !errors.Is(err, jobgraph.ErrPlanTooLarge) {
		t.Errorf("size limit: %v", err)
	}
	if _, err := jobgraph.ParsePlan([]byte(simplePlan("1.14", "")), nil); !errors.Is(err, jobgraph.ErrMalformedPlan) || !strings.Contains(err.Error(), "Flink 1.15 or later") {
		t.Errorf("1.14: %v", err)
	}
	for _, opts := range []*jobgraph.PlanOptions{
		{Config: map[string]string{"table.exec.uid.generation": "maybe"}},
		{Config: map[string]string{"table.exec.sink.type-length-enforcer": "CUT"}},
		{FlinkVersion: "twenty"},
		{FlinkVersion: "1.13"},
	} {
		if _, err := jobgraph.ParsePlan([]byte(simplePlan("1.19", "")), opts); err == nil || errors.Is(err, jobgraph.ErrMalformedPlan) {
			t.Errorf("options %+v: %v", opts, err)
		}
	}
}

func TestPlanUIDCollision(t *testing.T) {
	_, err := jobgraph.ParsePlan([]byte(simplePlan("1.19", "")), &jobgraph.PlanOptions{Config: map[string]string{"table.exec.uid.format": "<transformation>"}})
	if err != nil {
		t.Fatalf("distinct transformations must not collide: %v", err)
	}
	plan := testPlan("1.19", []testNode{{1, "stream-exec-calc_1", ""}, {2, "stream-exec-calc_1", ""}})
	p, err := jobgraph.ParsePlan([]byte(plan), &jobgraph.PlanOptions{Config: map[string]string{"table.exec.uid.format": "<transformation>"}})
	if !errors.Is(err, jobgraph.ErrUIDCollision) || p == nil || !strings.Contains(err.Error(), `"calc"`) {
		t.Errorf("plan %v, error %v", p, err)
	}
}

// TestPlanConnectorOperatorsAndNotes: what a plan cannot tell reaches the
// check. A connector's own operators (DataStreamScanProvider …) are named
// once as unpredictable — the hint on dropped state — and a uid the user
// knows for one of them restores its state; the plan's notes (the Flink
// version whose rules were applied) are the check's notes.
func TestPlanConnectorOperatorsAndNotes(t *testing.T) {
	const plan = `{"flinkVersion": "2.1", "nodes": [
	  {"id": 1, "type": "stream-exec-table-source-scan_1"},
	  {"id": 2, "type": "stream-exec-sink_1"}], "edges": [{"source": 1, "target": 2}]}`
	j, err := jobgraph.JobFromPlan(strings.NewReader(plan), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Unpredictable) != 1 || !strings.Contains(j.Unpredictable[0], "nodes 1, 2") || !strings.Contains(j.Unpredictable[0], "ProviderContext.generateUid") {
		t.Fatalf("unpredictable %q", j.Unpredictable)
	}
	// The snapshot: the plan's source and a connector operator of node 1
	// (uid 1_monitor) holding state.
	cp := &metadata.Checkpoint{CheckpointID: 4, Operators: []metadata.Operator{
		withState(jobgraph.OperatorID("1_source")), withState(jobgraph.OperatorID("1_monitor"))}}
	c := jobgraph.CheckCompat(cp, j)
	if c.Compatible || len(c.Dropped) != 1 || c.Dropped[0] != jobgraph.OperatorID("1_monitor") {
		t.Fatalf("compatible %v dropped %v", c.Compatible, c.Dropped)
	}
	notes := strings.Join(c.Notes, "\n")
	if !strings.Contains(notes, "could take dropped state: operators a connector adds itself") || !strings.Contains(notes, "Flink 2.1 may add transformations") {
		t.Errorf("notes %q", c.Notes)
	}
	j.AddUID("1_monitor")
	if c := jobgraph.CheckCompat(cp, j); !c.Compatible {
		t.Errorf("with the connector's uid: dropped %v", c.Dropped)
	}
}

func withState(id string) metadata.Operator {
	return metadata.Operator{ID: id, Parallelism: 1, MaxParallelism: 128, SubtaskStates: []metadata.SubtaskState{{Index: 0,
		ManagedOperator: &metadata.OperatorHandle{Type: metadata.TypeOperatorStream,
			Stream: &metadata.StreamHandle{Type: metadata.TypeByteStream, Data: []byte{0, 0, 0, 6, 0}}}}}}
}
