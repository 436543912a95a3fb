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

// realLines are the frozen exports of real Flink 1.20.3 and 2.2.0 runs.
var realLines = []string{"conformance", "conformance-2.x"}

// realPlan reads the compiled plan real Flink wrote for a conformance
// scenario (flinkckpt/testdata/<line>/<scenario>/<file>)
// and edits its Paimon sink table's options: set adds or replaces, a ""
// value removes. KP1 is the Kafka→Paimon job (connector kafka → rk_pace →
// connector paimon, table sink) without sink.operator-uid.suffix, KP1s
// with it set to v1.
func realPlan(t *testing.T, line, scenario, file string, set map[string]string) *jobgraph.Job {
	t.Helper()
	return realPlanEdit(t, line, scenario, file, "stream-exec-sink_", "dynamicTableSink", set)
}

// realPlanEdit is realPlan editing the table options of the nodes whose
// type starts with typePrefix (their table under field).
func realPlanEdit(t *testing.T, line, scenario, file, typePrefix, field string, set map[string]string) *jobgraph.Job {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", line, scenario, file))
	if err != nil {
		t.Fatal(err)
	}
	if len(set) > 0 {
		var plan map[string]any
		if err := json.Unmarshal(data, &plan); err != nil {
			t.Fatal(err)
		}
		for _, n := range plan["nodes"].([]any) {
			node := n.(map[string]any)
			if !strings.HasPrefix(node["type"].(string), typePrefix) {
				continue
			}
			o := node[field].(map[string]any)["table"].(map[string]any)["resolvedTable"].(map[string]any)["options"].(map[string]any)
			for k, v := range set {
				if v == "" {
					delete(o, k)
				} else {
					o[k] = v
				}
			}
		}
		if data, err = json.Marshal(plan); err != nil {
			t.Fatal(err)
		}
	}
	job, err := jobgraph.JobFromPlan(strings.NewReader(string(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// realCheckpoint reads the newest checkpoint of a conformance scenario's
// export (its only job dir under ck/).
func realCheckpoint(t *testing.T, line, scenario string) *metadata.Checkpoint {
	t.Helper()
	mds, err := filepath.Glob(filepath.Join("..", "testdata", line, scenario, "ck", "*", "chk-*", "_metadata"))
	if err != nil || len(mds) != 1 {
		t.Fatalf("%s: want one checkpoint, found %v (%v)", scenario, mds, err)
	}
	data, err := os.ReadFile(mds[0])
	if err != nil {
		t.Fatal(err)
	}
	cp, err := metadata.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// TestPlanPaimonSinkWithoutSuffixClaimsNoUIDs: the real plans (Flink
// 1.20.3 and 2.2.0) of a Kafka→Paimon job without
// sink.operator-uid.suffix (conformance KP1):
// Paimon adds its Writer and Global Committer under topology hashes, so
// the plan does not name every operator. In that job's own real
// checkpoint the Kafka source and the calc match the plan's uids
// (<id>_source: the planner's uid over the connector's <id>_kafka), and
// Paimon's two operators are unknown, never dropped: Flink restores the
// checkpoint with the same plan (the harness's trial), and before the fix
// resumekit refused it (exit 5).
func TestPlanPaimonSinkWithoutSuffixClaimsNoUIDs(t *testing.T) {
	for _, line := range realLines {
		t.Run(line, func(t *testing.T) {
			job := realPlan(t, line, "KP1", "plan.json", nil)
			if job.AllUIDs {
				t.Fatalf("AllUIDs set for a plan with Paimon's unnamed sink operators; unpredictable %q", job.Unpredictable)
			}
			if !strings.Contains(strings.Join(job.Unpredictable, "\n"), "Paimon's Writer and Global Committer of table sink: topology hashes (sink.operator-uid.suffix not set)") {
				t.Fatalf("unpredictable %q", job.Unpredictable)
			}
			c := jobgraph.CheckCompat(realCheckpoint(t, line, "KP1"), job)
			if len(c.Dropped) != 0 || len(c.Unknown) != 2 {
				t.Fatalf("dropped %v unknown %v: want Paimon's Writer and Global Committer unknown, nothing dropped", c.Dropped, c.Unknown)
			}
			kafkaSourceMatched(t, job, c)
			// the advice names what the plan cannot name, never --flink-all-uids as a fix
			notes := strings.Join(c.Notes, "\n")
			if !strings.Contains(notes, "Paimon's Writer and Global Committer of table sink") || !strings.Contains(notes, "--flink-all-uids would call their state dropped") || strings.Contains(notes, "say so (--flink-all-uids)") {
				t.Errorf("notes %q", c.Notes)
			}
		})
	}
}

// kafkaSourceMatched checks that the real checkpoint's Kafka source state
// is matched by the plan's <id>_source, and that no <id>_kafka (the uid
// KafkaDynamicSource asks ProviderContext.generateUid for, which the
// planner's TransformationMetadata.fill replaces) is in the plan. Flink
// 2.x's _metadata records the uid itself: <id>_source.
func kafkaSourceMatched(t *testing.T, job *jobgraph.Job, c *jobgraph.Compat) {
	t.Helper()
	for _, op := range job.Operators {
		if strings.HasSuffix(op.UID, "_kafka") {
			t.Errorf("the plan names the Kafka source %s: %+v", op.UID, job.Operators)
		}
	}
	sourceMatched(t, job, c)
}

// TestPlanPaimonSinkSuffixNamesItsOperators: the real plan of the same job
// with sink.operator-uid.suffix v1 (conformance KP1s): Paimon names its
// Writer and Global Committer Writer_sink_v1 and Global Committer_sink_v1,
// the plan names every operator, and every operator with state in the
// job's own real checkpoint matches it. The plan with the suffix v2 drops
// Paimon's state, as Flink refuses it (the harness's trial of KP1s stage
// stateless). Without a fixed bucket count (dynamic bucket assigner,
// compaction operators) or with changelog.precommit-compact the plan does
// not name every operator.
func TestPlanPaimonSinkSuffixNamesItsOperators(t *testing.T) {
	for _, line := range realLines {
		t.Run(line, func(t *testing.T) {
			job := realPlan(t, line, "KP1s", "plan.json", nil)
			if !job.AllUIDs {
				t.Fatalf("AllUIDs not set; unpredictable %q", job.Unpredictable)
			}
			for _, uid := range []string{"Writer_sink_v1", "Global Committer_sink_v1"} {
				if !hasUID(job, uid) {
					t.Errorf("no operator %q in %+v", uid, job.Operators)
				}
			}
			cp := realCheckpoint(t, line, "KP1s")
			c := jobgraph.CheckCompat(cp, job)
			if !c.Compatible || len(c.Dropped)+len(c.Unknown) != 0 {
				t.Errorf("the job's own checkpoint: compatible %v, dropped %v, unknown %v", c.Compatible, c.Dropped, c.Unknown)
			}
			kafkaSourceMatched(t, job, c)
			v2 := realPlan(t, line, "KP1s", "plan-suffix-v2.json", nil)
			if c := jobgraph.CheckCompat(cp, v2); c.Compatible || len(c.Dropped) != 2 {
				t.Errorf("suffix v2: compatible %v, dropped %v, want Paimon's two operators dropped", c.Compatible, c.Dropped)
			}
			for name, opts := range map[string]map[string]string{
				"dynamic bucket":    {"bucket": ""},
				"precommit compact": {"changelog.precommit-compact": "true"},
			} {
				if j := realPlan(t, line, "KP1s", "plan.json", opts); j.AllUIDs {
					t.Errorf("%s: AllUIDs set; unpredictable %q", name, j.Unpredictable)
				}
			}
		})
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

// TestPlanPaimonSource: the real plans (Flink 1.20.3 and 2.2.0) of a
// Paimon→Paimon SQL job reading its source table as a streaming FLIP-27
// source (conformance PS1: source.operator-uid.suffix not set; PS1s: v1;
// both with sink.operator-uid.suffix v1). The planner's uid <id>_source
// goes on Paimon's source over the one the suffix gives (Source_src_v1),
// so the plan names every operator, and the job's own real checkpoint
// matches it, the source's state under <id>_source: Flink restored it with
// the same plan, and with the plan whose suffix is v2 (PS1s stage
// suffix-v2: the suffix names nothing). A consumer source in exactly-once
// consumer mode adds a Monitor no uid names: the plan then does not claim
// all uids; in at-least-once mode it does.
func TestPlanPaimonSource(t *testing.T) {
	const scan, field = "stream-exec-table-source-scan_", "scanTableSource"
	for _, line := range realLines {
		t.Run(line, func(t *testing.T) {
			for _, tc := range []struct{ scenario, file string }{
				{"PS1", "plan.json"}, {"PS1s", "plan.json"}, {"PS1s", "plan-suffix-v2.json"},
			} {
				job := realPlan(t, line, tc.scenario, tc.file, nil)
				if !job.AllUIDs || hasUID(job, "Source_src_v1") || hasUID(job, "Source_src_v2") {
					t.Errorf("%s %s: AllUIDs %v, operators %+v, unpredictable %q", tc.scenario, tc.file, job.AllUIDs, job.Operators, job.Unpredictable)
				}
				c := jobgraph.CheckCompat(realCheckpoint(t, line, tc.scenario), job)
				if !c.Compatible || len(c.Dropped)+len(c.Unknown) != 0 {
					t.Errorf("%s %s: the job's own checkpoint: compatible %v, dropped %v, unknown %v", tc.scenario, tc.file, c.Compatible, c.Dropped, c.Unknown)
				}
				sourceMatched(t, job, c)
			}
			for name, opts := range map[string]map[string]string{
				"at-least-once consumer": {"consumer-id": "job", "consumer.mode": "at-least-once"},
			} {
				if j := realPlanEdit(t, line, "PS1s", "plan.json", scan, field, opts); !j.AllUIDs {
					t.Errorf("%s: AllUIDs not set; unpredictable %q", name, j.Unpredictable)
				}
			}
			j := realPlanEdit(t, line, "PS1s", "plan.json", scan, field, map[string]string{"consumer-id": "job"})
			if j.AllUIDs || !strings.Contains(strings.Join(j.Unpredictable, "\n"), "the Monitor of Paimon's consumer source of table src") {
				t.Errorf("consumer: AllUIDs %v; unpredictable %q", j.AllUIDs, j.Unpredictable)
			}
		})
	}
}

// sourceMatched checks that the plan's <id>_source operator holds state in
// the checkpoint and is matched (restored) by it.
func sourceMatched(t *testing.T, job *jobgraph.Job, c *jobgraph.Compat) {
	t.Helper()
	var source string
	for _, op := range job.Operators {
		if strings.HasSuffix(op.UID, "_source") {
			source = op.ID
		}
	}
	for _, op := range c.Operators {
		if op.ID == source && op.HasState && op.Match == jobgraph.MatchRestored {
			return
		}
	}
	t.Errorf("the source's state is not matched by the plan's <id>_source (%s): %+v", source, c.Operators)
}

// TestPlanKafkaSinkTopics: a plan whose sink table is a Kafka one
// (KP1's real plan, its sink made connector kafka with topic out, or
// upsert-kafka with two topics) gives the sink's committer the topics
// (JobOperator.SinkTopics: named when a lost transaction's partitions are
// no longer listed); a Paimon sink gives none.
func TestPlanKafkaSinkTopics(t *testing.T) {
	for _, tc := range []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"connector": "kafka", "topic": "out"}, "out"},
		{map[string]string{"connector": "upsert-kafka", "topic": "a; b"}, "a,b"},
		{nil, ""},
	} {
		job := realPlan(t, "conformance", "KP1", "plan.json", tc.set)
		got := "none"
		for _, op := range job.Operators {
			if strings.HasPrefix(op.UID, "Sink Committer: ") {
				got = strings.Join(op.SinkTopics, ",")
			}
		}
		if tc.want == "" && got != "none" && got != "" || tc.want != "" && got != tc.want {
			t.Errorf("%v: committer topics %q, want %q", tc.set, got, tc.want)
		}
	}
}
