package jobgraph_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/internal/fixtures"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// planPair reads one folder of the flink-plans fixtures.
func planPair(t *testing.T, name string) ([]byte, *metadata.Checkpoint) {
	t.Helper()
	dir := filepath.Join(fixtures.PlansDir(t), name)
	plan, err := os.ReadFile(filepath.Join(dir, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "savepoint", "_metadata"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cp, err := metadata.Read(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return plan, cp
}

func jobFromPlan(t *testing.T, plan []byte, opts *jobgraph.PlanOptions) *jobgraph.Job {
	t.Helper()
	j, err := jobgraph.JobFromPlan(bytes.NewReader(plan), opts)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// statefulIDs returns the ids of the snapshot's operators with state,
// sorted.
func statefulIDs(cp *metadata.Checkpoint, keep func(metadata.Operator) bool) []string {
	var out []string
	for _, op := range cp.Operators {
		if jobgraph.HasState(&op) && (keep == nil || keep(op)) {
			out = append(out, op.ID)
		}
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

// TestPlanFixturesRestoreCompletely checks every real plan against the
// savepoint taken from it: compatible, every operator restored, and the
// plan's certain operators are exactly the savepoint's (no operator
// invented, none missed).
func TestPlanFixturesRestoreCompletely(t *testing.T) {
	fixtures.PlansDir(t)
	for _, name := range fixtures.PlanPairs {
		t.Run(name, func(t *testing.T) {
			plan, cp := planPair(t, name)
			job := jobFromPlan(t, plan, nil)
			c := jobgraph.CheckCompat(cp, job)
			if !c.Compatible || len(c.Dropped) != 0 || len(c.NewWithoutState) != 0 {
				t.Fatalf("compatible=%v dropped=%v new without state=%v", c.Compatible, c.Dropped, c.NewWithoutState)
			}
			stateful := 0
			for _, o := range c.Operators {
				if o.Match != jobgraph.MatchRestored || o.Maybe || o.UID == "" {
					t.Errorf("operator %s: match %s maybe %v uid %q", o.ID, o.Match, o.Maybe, o.UID)
				}
				if o.HasState {
					stateful++
				}
			}
			if stateful == 0 {
				t.Fatal("no stateful operator: the fixture proves nothing")
			}
			var certain, snapshot []string
			for _, o := range job.Operators {
				if !o.Maybe {
					certain = append(certain, o.ID)
				}
			}
			for _, o := range cp.Operators {
				snapshot = append(snapshot, o.ID)
			}
			if diff := cmp.Diff(sorted(snapshot), sorted(certain)); diff != "" {
				t.Errorf("plan's certain operators vs savepoint's (-savepoint +plan):\n%s", diff)
			}
		})
	}
}

// editPlan decodes a plan, lets edit change it, and encodes it again.
func editPlan(t *testing.T, plan []byte, edit func(p map[string]any)) []byte {
	t.Helper()
	var p map[string]any
	dec := json.NewDecoder(bytes.NewReader(plan))
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		t.Fatal(err)
	}
	edit(p)
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func nodeID(n any) int64 {
	id, _ := n.(map[string]any)["id"].(json.Number).Int64()
	return id
}

// TestPlanPerturbedReportsDroppedState changes the plans the way refactors
// do and checks that exactly the operators whose uids change are reported
// as dropping state.
func TestPlanPerturbedReportsDroppedState(t *testing.T) {
	fixtures.PlansDir(t)
	for _, name := range fixtures.PlanPairs {
		t.Run(name, func(t *testing.T) {
			plan, cp := planPair(t, name)
			all := statefulIDs(cp, nil)

			t.Run("NodeIDsShifted", func(t *testing.T) {
				shifted := editPlan(t, plan, func(p map[string]any) {
					for _, n := range p["nodes"].([]any) {
						n.(map[string]any)["id"] = nodeID(n) + 1000
					}
					for _, e := range p["edges"].([]any) {
						m := e.(map[string]any)
						for _, k := range []string{"source", "target"} {
							v, _ := m[k].(json.Number).Int64()
							m[k] = v + 1000
						}
					}
				})
				c := jobgraph.CheckCompat(cp, jobFromPlan(t, shifted, nil))
				if c.Compatible || !cmp.Equal(sorted(c.Dropped), all) {
					t.Errorf("compatible=%v dropped=%v, want %v", c.Compatible, c.Dropped, all)
				}
			})

			t.Run("DifferentUIDFormat", func(t *testing.T) {
				c := jobgraph.CheckCompat(cp, jobFromPlan(t, plan, &jobgraph.PlanOptions{Config: map[string]string{"table.exec.uid.format": "<type>_<id>_<transformation>"}}))
				if !cmp.Equal(sorted(c.Dropped), all) {
					t.Errorf("dropped=%v, want %v", c.Dropped, all)
				}
			})

			t.Run("OperatorRemoved", func(t *testing.T) {
				// Remove the first node with state that is not a source and
				// not a sink (or the sink when there is none).
				victim := removableNode(t, plan, cp)
				removed := editPlan(t, plan, func(p map[string]any) {
					p["nodes"] = slices.DeleteFunc(p["nodes"].([]any), func(n any) bool { return nodeID(n) == victim })
					// Rewire: the victim's inputs feed its outputs.
					var ins []any
					var edges []any
					for _, e := range p["edges"].([]any) {
						m := e.(map[string]any)
						if v, _ := m["target"].(json.Number).Int64(); v == victim {
							ins = append(ins, m["source"])
						}
					}
					for _, e := range p["edges"].([]any) {
						m := e.(map[string]any)
						s, _ := m["source"].(json.Number).Int64()
						d, _ := m["target"].(json.Number).Int64()
						switch {
						case d == victim:
						case s == victim:
							for _, in := range ins {
								edges = append(edges, map[string]any{"source": in, "target": m["target"]})
							}
						default:
							edges = append(edges, e)
						}
					}
					p["edges"] = edges
				})
				job := jobFromPlan(t, removed, nil)
				// Exactly the removed node's operators with state: taken
				// from the unedited plan, not from the job under test.
				victimIDs := map[string]bool{}
				orig, err := jobgraph.ParsePlan(plan, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range orig.Nodes {
					for _, op := range n.Operators {
						if n.ID == victim && op.ID != "" {
							victimIDs[op.ID] = true
						}
					}
				}
				want := statefulIDs(cp, func(op metadata.Operator) bool { return victimIDs[op.ID] })
				if len(want) == 0 {
					t.Fatal("the removed node held no state: the test proves nothing")
				}
				c := jobgraph.CheckCompat(cp, job)
				if !cmp.Equal(sorted(c.Dropped), want) {
					t.Errorf("dropped=%v, want %v", c.Dropped, want)
				}
				for _, id := range c.Dropped {
					o := c.Operators[slices.IndexFunc(c.Operators, func(o jobgraph.CompatOperator) bool { return o.ID == id })]
					if !o.HasState || o.Match != jobgraph.MatchDropped {
						t.Errorf("dropped %s: %+v", id, o)
					}
				}
			})

			t.Run("PerNodeUIDFormat", func(t *testing.T) {
				// A format set in one node's configuration changes that
				// node's uids only.
				victim := removableNode(t, plan, cp)
				edited := editPlan(t, plan, func(p map[string]any) {
					for _, n := range p["nodes"].([]any) {
						if nodeID(n) == victim {
							m := n.(map[string]any)
							cfg, _ := m["configuration"].(map[string]any)
							if cfg == nil {
								cfg = map[string]any{}
							}
							cfg["table.exec.uid.format"] = "renamed_<id>_<transformation>"
							m["configuration"] = cfg
						}
					}
				})
				p, err := jobgraph.ParsePlan(edited, nil)
				if err != nil {
					t.Fatal(err)
				}
				job := &jobgraph.Job{}
				job.AddPlan(p)
				var want []string
				for _, n := range p.Nodes {
					if n.ID != victim {
						continue
					}
					for _, op := range n.Operators {
						old := jobgraph.OperatorID(op.UID[len("renamed_"):])
						if slices.Contains(statefulIDs(cp, nil), old) {
							want = append(want, old)
						}
					}
				}
				c := jobgraph.CheckCompat(cp, job)
				if len(want) == 0 || !cmp.Equal(sorted(c.Dropped), sorted(want)) {
					t.Errorf("dropped=%v, want %v", c.Dropped, want)
				}
			})
		})
	}
}

// removableNode picks a node of the plan whose operators hold state in the
// savepoint, preferring an inner node to a source or sink.
func removableNode(t *testing.T, plan []byte, cp *metadata.Checkpoint) int64 {
	t.Helper()
	p, err := jobgraph.ParsePlan(plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	stateful := statefulIDs(cp, nil)
	pick := int64(-1)
	for _, n := range p.Nodes {
		for _, op := range n.Operators {
			if slices.Contains(stateful, op.ID) {
				if n.Type != "stream-exec-table-source-scan" && n.Type != "stream-exec-sink" {
					return n.ID
				}
				if pick < 0 || n.Type == "stream-exec-sink" {
					pick = n.ID
				}
			}
		}
	}
	if pick < 0 {
		t.Fatal("no node with state")
	}
	return pick
}
