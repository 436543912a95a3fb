package jobgraph_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// plan1000 is a compiled plan of 1,000 nodes: a source, 998 stateful
// group aggregates and calcs in turn, and a sink; snapshot1000 is the
// savepoint of a job running it, every operator with 4 subtasks and keyed
// or operator state on the stateful ones.
func plan1000(b *testing.B) ([]byte, *metadata.Checkpoint) {
	b.Helper()
	nodes := []testNode{{1, "stream-exec-table-source-scan_1", rowA}}
	for i := 2; i < 1000; i++ {
		typ := "stream-exec-calc_1"
		if i%2 == 0 {
			typ = "stream-exec-group-aggregate_1"
		}
		nodes = append(nodes, testNode{i, typ, rowA})
	}
	nodes = append(nodes, testNode{1000, "stream-exec-sink_1", sinkFields(`{"name": "a", "dataType": "INT"}`, `"INSERT"`)})
	plan := []byte(testPlan("1.20", nodes))
	cp := &metadata.Checkpoint{Version: 4, CheckpointID: 1}
	for _, n := range nodes {
		t := strings.TrimSuffix(strings.TrimPrefix(n.typ, "stream-exec-"), "_1")
		switch t {
		case "table-source-scan":
			t = "source"
		}
		op := metadata.Operator{ID: jobgraph.OperatorID(fmt.Sprintf("%d_%s", n.id, t)), Parallelism: 4, MaxParallelism: 128}
		for s := 0; s < 4; s++ {
			st := metadata.SubtaskState{Index: int32(s)}
			switch t {
			case "group-aggregate":
				st.ManagedKeyed = &metadata.KeyedHandle{Type: metadata.TypeKeyGroupsV2}
			case "source", "sink":
				st.ManagedOperator = opHandle
			}
			op.SubtaskStates = append(op.SubtaskStates, st)
		}
		cp.Operators = append(cp.Operators, op)
	}
	return plan, cp
}

// BenchmarkCheckCompat1000Operators measures the check alone: a 1,000-operator
// savepoint against the job of its plan (every operator restored), and
// against the plan with a different uid format (every stateful operator
// dropped).
func BenchmarkCheckCompat1000Operators(b *testing.B) {
	plan, cp := plan1000(b)
	same, err := jobgraph.JobFromPlan(bytes.NewReader(plan), nil)
	if err != nil {
		b.Fatal(err)
	}
	other, err := jobgraph.JobFromPlan(bytes.NewReader(plan), &jobgraph.PlanOptions{Config: map[string]string{"table.exec.uid.format": "v2_<id>_<transformation>"}})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		job     *jobgraph.Job
		dropped int
	}{{"restored", same, 0}, {"dropped", other, 501}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c := jobgraph.CheckCompat(cp, tc.job)
				if len(c.Dropped) != tc.dropped {
					b.Fatalf("dropped %d, want %d", len(c.Dropped), tc.dropped)
				}
			}
		})
	}
}

// BenchmarkJobFromPlan1000Nodes measures reading the 1,000-node plan and
// deriving its uids and operator ids.
func BenchmarkJobFromPlan1000Nodes(b *testing.B) {
	plan, _ := plan1000(b)
	b.SetBytes(int64(len(plan)))
	b.ReportAllocs()
	for b.Loop() {
		j, err := jobgraph.JobFromPlan(bytes.NewReader(plan), nil)
		if err != nil || len(j.Operators) != 1002 {
			b.Fatalf("%v, %d operators", err, len(j.Operators))
		}
	}
}
