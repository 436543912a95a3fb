package jobgraph_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// paimonPlan is the compiled plan real Flink 1.20 wrote for conformance S1
// (flinkckpt/testdata/conformance/S1/plan.json) with its sink node's table
// made a Paimon table (connector paimon, path …/db.db/sink) with the given
// extra options. No compiled plan of a Paimon job is committed: the
// harness's SqlPlanJob has no Paimon connector.
func paimonPlan(t *testing.T, opts map[string]string) *jobgraph.Job {
	t.Helper()
	return paimonPlanOf(t, "stream-exec-sink_", "dynamicTableSink", opts)
}

// paimonPlanOf edits the node of the given type prefix and table field.
func paimonPlanOf(t *testing.T, typePrefix, field string, opts map[string]string) *jobgraph.Job {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "conformance", "S1", "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	var plan map[string]any
	if err := json.Unmarshal(data, &plan); err != nil {
		t.Fatal(err)
	}
	sinks := 0
	for _, n := range plan["nodes"].([]any) {
		node := n.(map[string]any)
		if !strings.HasPrefix(node["type"].(string), typePrefix) {
			continue
		}
		sinks++
		table := node[field].(map[string]any)["table"].(map[string]any)
		table["identifier"] = "`default_catalog`.`default_database`.`sink`"
		o := map[string]any{"connector": "paimon", "path": "file:///warehouse/db.db/sink"}
		for k, v := range opts {
			o[k] = v
		}
		table["resolvedTable"].(map[string]any)["options"] = o
	}
	if sinks != 1 {
		t.Fatalf("S1's plan has %d %s nodes", sinks, typePrefix)
	}
	edited, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	job, err := jobgraph.JobFromPlan(strings.NewReader(string(edited)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// readRealPaimonCheckpoint is chk-2 of the job real Flink 1.20.3 ran
// writing a Paimon 1.3.1 table (datagen → INSERT INTO sink): its Writer
// and Global Committer under the topology hashes Paimon leaves them.
func readRealPaimonCheckpoint(t *testing.T) *metadata.Checkpoint {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "metadata", "sinkstate", "testdata", "paimon-sink", "chk-2", "_metadata"))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := metadata.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// TestPlanPaimonSinkWithoutSuffixClaimsNoUIDs: Paimon's sink adds its
// Writer and Global Committer under topology hashes when
// sink.operator-uid.suffix is not set, so a plan with it does not name
// every operator: the real checkpoint's state is unknown, never dropped
// (it was dropped, and the job's own checkpoint refused, before).
func TestPlanPaimonSinkWithoutSuffixClaimsNoUIDs(t *testing.T) {
	job := paimonPlan(t, nil)
	if job.AllUIDs {
		t.Fatalf("AllUIDs set for a plan with Paimon's unnamed sink operators; unpredictable %q", job.Unpredictable)
	}
	if !strings.Contains(strings.Join(job.Unpredictable, "\n"), "Paimon's Writer and Global Committer of table sink: topology hashes (sink.operator-uid.suffix not set)") {
		t.Fatalf("unpredictable %q", job.Unpredictable)
	}
	c := jobgraph.CheckCompat(readRealPaimonCheckpoint(t), job)
	if len(c.Dropped) != 0 || len(c.Unknown) == 0 {
		t.Fatalf("dropped %v unknown %v: Paimon's state said dropped", c.Dropped, c.Unknown)
	}
}

// TestPlanPaimonSinkSuffixNamesItsOperators: with sink.operator-uid.suffix
// (and a fixed bucket count) Paimon gives its Writer and Global Committer
// the uids <Writer|Global Committer>_<table>_<suffix>; the plan then names
// every operator. Without a fixed bucket count (dynamic bucket assigner,
// compaction operators) or with changelog.precommit-compact it does not.
func TestPlanPaimonSinkSuffixNamesItsOperators(t *testing.T) {
	job := paimonPlan(t, map[string]string{"sink.operator-uid.suffix": "v1", "bucket": "4"})
	if !job.AllUIDs {
		t.Fatalf("AllUIDs not set; unpredictable %q", job.Unpredictable)
	}
	for _, uid := range []string{"Writer_sink_v1", "Global Committer_sink_v1"} {
		if !hasUID(job, uid) {
			t.Errorf("no operator %q in %+v", uid, job.Operators)
		}
	}
	// The real checkpoint's Paimon operators have topology hashes: a job
	// that newly sets the suffix does not restore them.
	if c := jobgraph.CheckCompat(readRealPaimonCheckpoint(t), job); len(c.Dropped) == 0 {
		t.Errorf("suffix newly set: nothing dropped (%+v)", c)
	}
	for name, opts := range map[string]map[string]string{
		"dynamic bucket":    {"sink.operator-uid.suffix": "v1"},
		"precommit compact": {"sink.operator-uid.suffix": "v1", "bucket": "4", "changelog.precommit-compact": "true"},
	} {
		if j := paimonPlan(t, opts); j.AllUIDs {
			t.Errorf("%s: AllUIDs set; unpredictable %q", name, j.Unpredictable)
		}
	}
}

func hasUID(j *jobgraph.Job, uid string) bool {
	for _, o := range j.Operators {
		if o.UID == uid {
			return true
		}
	}
	return false
}

// TestPlanPaimonSource: the planner's uid <id>_source goes on Paimon's
// FLIP-27 source over the one source.operator-uid.suffix gives, so the
// plan names it; a consumer source in exactly-once consumer mode adds a
// Monitor no uid names, and the plan then does not claim all uids.
func TestPlanPaimonSource(t *testing.T) {
	const scan, field = "stream-exec-table-source-scan_", "scanTableSource"
	for name, opts := range map[string]map[string]string{
		"no suffix":              nil,
		"suffix":                 {"source.operator-uid.suffix": "v1"},
		"at-least-once consumer": {"consumer-id": "job", "consumer.mode": "at-least-once"},
	} {
		j := paimonPlanOf(t, scan, field, opts)
		if !j.AllUIDs || !hasUID(j, "1_source") || hasUID(j, "Source_sink_v1") {
			t.Errorf("%s: AllUIDs %v, operators %+v, unpredictable %q", name, j.AllUIDs, j.Operators, j.Unpredictable)
		}
	}
	j := paimonPlanOf(t, scan, field, map[string]string{"source.operator-uid.suffix": "v1", "consumer-id": "job"})
	if j.AllUIDs || !strings.Contains(strings.Join(j.Unpredictable, "\n"), "the Monitor of Paimon's consumer source of table sink") {
		t.Errorf("consumer: AllUIDs %v; unpredictable %q", j.AllUIDs, j.Unpredictable)
	}
}
