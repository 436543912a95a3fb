package flinkckpt_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// TestRestoreKafkaLatestMarker (issue 33 item 7): partition 1 is still at
// the latest marker (a KafkaSource before FLINK-28303 checkpoints a split
// so until it reads a record). The restored reader seeks today's end
// offset and skips the 5 records written after the checkpoint: resolved
// against the checkpoint's time (ListOffsets by time), they are lost, the
// restore data-loss naming offsets 100..104. Before them nothing is lost.
func TestRestoreKafkaLatestMarker(t *testing.T) {
	ctx := context.Background()
	k := liveKafka(t) // 100 records per partition, a day before today
	b := memblob.OpenBucket(nil)
	defer b.Close()
	liveCheckpoint(t, b, 1, flinkckpttest.KafkaSource("orders-source", "orders", 10, sourcestate.OffsetLatest))
	r := liveResolver(t, b, &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: k.Client}})
	c, err := r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Guarantee != resume.ExactlyOnce || c.HasWarning(flinkckpt.WarnSourceDataLoss) {
		t.Fatalf("nothing written since the checkpoint: guarantee %s warnings %v", c.Guarantee, c.Warnings)
	}

	later := time.Now().Add(time.Hour) // written while the job was down
	k.Produce("orders", 1, later, later, later, later, later)
	c, err = r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pos, err := flinkckpt.PositionOf(c.Position)
	if err != nil {
		t.Fatal(err)
	}
	want := []flinkckpt.KafkaCheck{
		{Topic: "orders", Partition: 0, Offset: 10, LogStart: 0, LogEnd: 100},
		{Topic: "orders", Partition: 1, Offset: sourcestate.OffsetLatest, LogStart: 0, LogEnd: 105, Lost: 5},
	}
	if pos.Live == nil || len(pos.Live.Sources) != 1 {
		t.Fatalf("live check %+v", pos.Live)
	}
	if diff := cmp.Diff(want, pos.Live.Sources[0].Kafka); diff != "" {
		t.Errorf("partitions (-want +got):\n%s", diff)
	}
	if w := warningText(c, flinkckpt.WarnSourceDataLoss); c.Guarantee != resume.DataLoss || !strings.Contains(w, "latest marker") || !strings.Contains(w, "orders/1: 5 records (offsets 100..104)") {
		t.Errorf("guarantee %s, data-loss warning %q", c.Guarantee, w)
	}
}
