package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
)

// resolve with a KafkaSink committer and no sink broker: the restore keeps
// its grade with flink.sink-not-checked and an assumed valid_until of the
// snapshot's time + --kafka-sink-transaction-timeout; --flink-sink-committed
// asserts it committed on the restore path too.
func TestResolveSinkFlags(t *testing.T) {
	dir, b := tempBucket(t)
	root := "file://" + filepath.ToSlash(dir) + "/"
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: root}
	if _, err := l.Checkpoint(context.Background(), flinkTestJob, 8, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{
		flinkckpttest.KafkaSource("src", "orders", 10, 10),
		{UID: "Sink Committer: sink", Parallelism: 1, ListStates: []flinkckpttest.ListState{{Name: sinkstate.CommitterStateName,
			Elements: []flinkckpttest.ListElement{{Data: flinkckpttest.KafkaCommitterElement(8, "orders-sink-0-8", 7, 0)}}}}},
	}}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	// flink sources lists the committer beside the sources, per checkpoint.
	out, errOut, code := runFlinkCLI(t, "flink", "sources", filepath.Join(dir, "ck", flinkTestJob, "chk-8"), "--json")
	var src struct {
		Sinks []struct {
			Type    string
			Pending []struct {
				CheckpointID int64 `json:"checkpoint_id"`
				Kafka        []struct {
					TransactionalID string `json:"transactional_id"`
				}
			}
		}
	}
	_ = json.Unmarshal([]byte(out), &src)
	if code != ExitOK || len(src.Sinks) != 1 || src.Sinks[0].Type != "kafka" || len(src.Sinks[0].Pending) != 1 || src.Sinks[0].Pending[0].CheckpointID != 8 ||
		len(src.Sinks[0].Pending[0].Kafka) != 1 || src.Sinks[0].Pending[0].Kafka[0].TransactionalID != "orders-sink-0-8" {
		t.Errorf("flink sources --json: exit %d %s\n%s", code, errOut, out)
	}
	out, _, _ = runFlinkCLI(t, "flink", "sources", filepath.Join(dir, "ck", flinkTestJob, "chk-8"))
	if !strings.Contains(out, "kafka sink committer") || !strings.Contains(out, "checkpoint 8: 1 committable(s) pending: transactional ids orders-sink-0-8 (producer id 7, epoch 0)") {
		t.Errorf("flink sources:\n%s", out)
	}
	type doc struct {
		Chosen *struct {
			At                string `json:"at"`
			ValidUntil        string `json:"valid_until"`
			ValidUntilAssumed bool   `json:"valid_until_assumed"`
			Guarantee         string `json:"guarantee"`
			Warnings          []struct{ Code string }
		} `json:"chosen"`
	}
	resolve := func(extra ...string) doc {
		t.Helper()
		out, errOut, code := runFlinkCLI(t, append([]string{"resolve", "--flink-checkpoints", filepath.Join(dir, "ck"), "--json"}, extra...)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", extra, code, errOut)
		}
		var d doc
		if err := json.Unmarshal([]byte(out), &d); err != nil || d.Chosen == nil {
			t.Fatalf("%v: %v\n%s", extra, err, out)
		}
		return d
	}
	codes := func(d doc) string {
		var cs []string
		for _, w := range d.Chosen.Warnings {
			cs = append(cs, w.Code)
		}
		return strings.Join(cs, " ")
	}
	d := resolve("--kafka-sink-transaction-timeout", "2m")
	at, _ := time.Parse(time.RFC3339Nano, d.Chosen.At)
	until, _ := time.Parse(time.RFC3339Nano, d.Chosen.ValidUntil)
	if d.Chosen.Guarantee != "exactly-once" || !d.Chosen.ValidUntilAssumed || !until.Equal(at.Add(2*time.Minute)) || !strings.Contains(codes(d), "flink.sink-not-checked") {
		t.Errorf("timeout: %+v (%s)", *d.Chosen, codes(d))
	}
	d = resolve("--flink-sink-committed")
	if d.Chosen.ValidUntilAssumed || !strings.Contains(codes(d), "flink.sink-committed-asserted") || strings.Contains(codes(d), "flink.sink-not-checked") {
		t.Errorf("asserted: %+v (%s)", *d.Chosen, codes(d))
	}
}

// TestResolveKafkaSinkTopicFlag: --kafka-sink-topic belongs to the sink
// group: without a Flink snapshot or Kafka source it is refused by name.
func TestResolveKafkaSinkTopicFlag(t *testing.T) {
	_, errOut, code := runFlinkCLI(t, "resolve", "--paimon-table", "/nowhere", "--paimon-consumer", "c", "--kafka-sink-topic", "out")
	if code != ExitUsage || !strings.Contains(errOut, "--kafka-sink-topic") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}
