package salvage_test

import (
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// TestKafkaLatestMarkerSalvage (issue 33 item 7): partition 1 is still at
// the latest marker (KafkaSource before FLINK-28303). Resolved against
// the snapshot's time, the records written after it (offsets 3..4) are
// skipped by a start at today's end offset: data-loss naming them, by the
// same livecheck rule a restore grades it with.
func TestKafkaLatestMarkerSalvage(t *testing.T) {
	before := time.Now().Add(-time.Hour)
	l := savepoints(t, "")
	dir := savepoint(t, l, "savepoint-aaaaaa-000000000061", 3, flinkckpttest.KafkaSource("k", "topic", 7, sourcestate.OffsetLatest))
	k := kafkaoffsettest.New(t, nil)
	k.CreateTopic(kafkaoffsettest.Topic{Name: "topic", Partitions: 2})
	k.Produce("topic", 0, before, before, before, before, before, before, before, before)
	k.Produce("topic", 1, before, before, before)
	live := &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: k.Client}}

	c := salvaged(t, l, &salvage.Options{Snapshot: dir, Live: live})
	if c.Guarantee != resume.ExactInput || c.HasWarning(salvage.WarnDataLoss) {
		t.Fatalf("nothing written since the snapshot: guarantee %s, warnings %v", c.Guarantee, c.Warnings)
	}

	later := time.Now().Add(time.Hour) // written while the job was down
	k.Produce("topic", 1, later, later)
	c = salvaged(t, l, &salvage.Options{Snapshot: dir, Live: live})
	p1 := kafkaStarts(t, c)[1]
	if p1.Marker != sourcestate.MarkerLatest || !p1.Resolved || p1.Offset != 5 || p1.Lost != 2 {
		t.Errorf("topic/1: %+v, want latest resolved to 5, 2 lost", p1)
	}
	if w := warning(c, salvage.WarnDataLoss); c.Guarantee != resume.DataLoss || !strings.Contains(w, "topic/1: latest (the old job had read nothing of it): 2 records written since the snapshot (offsets 3..4) skipped") {
		t.Errorf("guarantee %s, data-loss warning %q", c.Guarantee, w)
	}
}
