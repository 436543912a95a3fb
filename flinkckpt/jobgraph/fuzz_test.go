package jobgraph_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/internal/fixtures"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// planSeeds are hand-made plans covering every rule; the committed corpus
// in testdata/fuzz/FuzzReadPlan is generated from them
// (TestFuzzPlanSeedCorpus).
func planSeeds() map[string]string {
	return map[string]string{
		"simple":              simplePlan("1.19", ""),
		"per-node-format":     simplePlan("1.20", `"configuration": {"table.exec.uid.format": "<type>-<id>-<version>-<transformation>"}`),
		"flink-1.15":          simplePlan("1.15", ""),
		"sink-not-null":       sinkPlan(rowA, sinkFields(`{"name": "a", "dataType": "INT NOT NULL"}`, `"INSERT", "UPDATE_AFTER"`)+`, "requireUpsertMaterialize": true`),
		"sink-rowtime-object": sinkPlan(rowRowtimeObject, sinkFields(`{"name": "a", "dataType": {"type": "CHAR", "length": 3}}`, `"INSERT"`)),
		"match-rowtime":       matchPlan(rowRowtimeString, 1),
		"temporal-sort":       temporalSortPlan(rowProctime, `{"index": 1}`),
		"interval-negative":   intervalJoinPlan("RIGHT", 10, 5),
		"unknown-node":        testPlan("2.1", []testNode{{1, "stream-exec-process-table-function_1", ""}}),
	}
}

// FuzzReadPlan checks that no input panics the plan reader, that it
// returns a plan only with no error or with unknown nodes or colliding
// uids, that every id it gives is the uid's, and that the job and the
// check accept what it returns.
func FuzzReadPlan(f *testing.F) {
	if dir := fixtures.PlansDirNoSkip(); dir != "" {
		for _, name := range fixtures.PlanPairs {
			if data, err := os.ReadFile(filepath.Join(dir, name, "plan.json")); err == nil {
				f.Add(data)
			}
		}
	}
	for _, s := range planSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := jobgraph.ParsePlan(data, &jobgraph.PlanOptions{MaxSize: 1 << 20})
		partial := errors.Is(err, jobgraph.ErrUnknownNodeType) || errors.Is(err, jobgraph.ErrUIDCollision)
		switch {
		case err == nil && p == nil:
			t.Fatal("no plan and no error")
		case err != nil && !partial && p != nil:
			t.Fatalf("a plan with error %v", err)
		case err != nil && partial && p == nil:
			t.Fatalf("no plan with error %v", err)
		case err != nil && !partial && !errors.Is(err, jobgraph.ErrMalformedPlan) && !errors.Is(err, jobgraph.ErrPlanTooLarge):
			t.Fatalf("error of no kind: %v", err)
		}
		if p == nil {
			return
		}
		for _, n := range p.Nodes {
			for _, op := range n.Operators {
				if (op.UID == "") != (op.ID == "") || (op.UID != "" && op.ID != jobgraph.OperatorID(op.UID)) {
					t.Fatalf("node %d %s: uid %q id %q", n.ID, op.Transformation, op.UID, op.ID)
				}
			}
		}
		j := &jobgraph.Job{}
		j.AddPlan(p)
		cp := &metadata.Checkpoint{}
		for _, o := range j.Operators {
			cp.Operators = append(cp.Operators, metadata.Operator{ID: o.ID})
		}
		c := jobgraph.CheckCompat(cp, j)
		if !c.Compatible || len(c.NewWithoutState) != 0 {
			t.Fatalf("a job does not restore its own snapshot: %+v", c)
		}
	})
}

var writeSeeds = os.Getenv("FLINKCKPT_WRITE_SEEDS") != ""

// TestFuzzPlanSeedCorpus keeps testdata/fuzz/FuzzReadPlan in step with
// planSeeds (FLINKCKPT_WRITE_SEEDS=1 rewrites it).
func TestFuzzPlanSeedCorpus(t *testing.T) {
	for name, plan := range planSeeds() {
		want := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(plan))
		path := filepath.Join("testdata", "fuzz", "FuzzReadPlan", name)
		if writeSeeds {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s is stale (run with FLINKCKPT_WRITE_SEEDS=1)", path)
		}
	}
}
