package salvage_test

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// TestLegacyFlinkKafkaConsumerSalvage (#29 item 4): a 1.20 savepoint of a
// FlinkKafkaConsumer job (its "topic-partition-offset-states", in the
// bytes Flink 1.20.3's serializers wrote: the last offsets read, 41 and
// 9) salvages into a KafkaSource launch with scan.startup.specific-offsets
// at the next offsets (42, 10), checked against a live kfake cluster —
// the way across to Flink 2.x, which has no FlinkKafkaConsumer.
func TestLegacyFlinkKafkaConsumerSalvage(t *testing.T) {
	el := func(h string) []byte {
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	src := flinkckpttest.Source{UID: "kafka-in", Parallelism: 2, ListStates: []flinkckpttest.ListState{{Name: "topic-partition-offset-states",
		Elements: []flinkckpttest.ListElement{
			{Subtask: 0, Data: el("5701899998ff0800016f72646572f30000000000000029")}, // orders-0, last read 41
			{Subtask: 1, Data: el("5701879998ff0802016f72646572f30000000000000009")}, // orders-1, last read 9
		}}}}
	l := savepoints(t, "")
	dir := savepoint(t, l, "savepoint-aaaaaa-000000000001", 3, src)
	cl := kafkaCluster(t, 2, 60, "orders")
	c := salvaged(t, l, &salvage.Options{Snapshot: dir, Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: cl}}})
	if c.Guarantee != resume.ExactInput || c.HasWarning(salvage.WarnDataLoss) {
		t.Errorf("guarantee %s warnings %v", c.Guarantee, c.Warnings)
	}
	o := c.Position.Launch().Options
	if got := o["scan.startup.specific-offsets"]; got != "partition:0,offset:42;partition:1,offset:10" || o["scan.startup.mode"] != "specific-offsets" {
		t.Errorf("launch options %q", o)
	}
	if !strings.Contains(strings.Join(c.Reasons, "\n"), `OffsetsInitializer.offsets(Map.of(new TopicPartition("orders", 0), 42L, new TopicPartition("orders", 1), 10L))`) {
		t.Errorf("no KafkaSource start in the reasons: %q", c.Reasons)
	}
}

// TestLegacyFlinkKafkaConsumerStopSavepoint (conformance U4, Flink
// 1.20.3): the savepoint of a stop-with-savepoint (SUSPEND, TERMINATE)
// holds the FlinkKafkaConsumer's offsets of the checkpoint before the stop
// — Flink stops the source first, and a closed FlinkKafkaConsumer
// snapshots nothing new — while the job's committed output ran to the
// stop: the salvage reads those records again, replay with
// salvage.legacy-stop-offsets. A savepoint of a running job (NONE) stays
// exact-input, and so does a KafkaSource's stop-with-savepoint.
func TestLegacyFlinkKafkaConsumerStopSavepoint(t *testing.T) {
	el, err := hex.DecodeString("5701899998ff0800016f72646572f30000000000000029") // orders-0, last read 41
	if err != nil {
		t.Fatal(err)
	}
	legacy := flinkckpttest.Source{UID: "kafka-in", ListStates: []flinkckpttest.ListState{{Name: "topic-partition-offset-states",
		Elements: []flinkckpttest.ListElement{{Data: el}}}}}
	for _, tc := range []struct {
		action metadata.PostCheckpointAction
		src    flinkckpttest.Source
		want   resume.Guarantee
	}{
		{metadata.ActionSuspend, legacy, resume.Replay},
		{metadata.ActionTerminate, legacy, resume.Replay},
		{metadata.ActionNone, legacy, resume.ExactInput},
		{metadata.ActionSuspend, flinkckpttest.KafkaSource("kafka-in", "orders", 42), resume.ExactInput},
	} {
		l := savepoints(t, "")
		w, err := l.Savepoint(context.Background(), "savepoint-aaaaaa-000000000001", 3, &flinkckpttest.Checkpoint{Action: tc.action,
			Drained: tc.action == metadata.ActionTerminate, Sources: []flinkckpttest.Source{tc.src}})
		if err != nil {
			t.Fatal(err)
		}
		c := salvaged(t, l, &salvage.Options{Snapshot: w.Dir})
		if c.Guarantee != tc.want || c.HasWarning(salvage.WarnLegacyStopOffsets) != (tc.want == resume.Replay) {
			t.Errorf("%s, legacy %v: guarantee %s, warnings %v", tc.action, len(tc.src.ListStates) > 0, c.Guarantee, c.Warnings)
		}
		for _, wn := range c.Warnings {
			if wn.Code == salvage.WarnLegacyStopOffsets && (!strings.Contains(wn.Text, "checkpoint before the stop") || !strings.Contains(wn.Text, string(tc.action))) {
				t.Errorf("%s: %s", tc.action, wn.Text)
			}
		}
	}
}
