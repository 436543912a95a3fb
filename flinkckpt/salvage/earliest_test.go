package salvage_test

import (
	"context"
	"fmt"
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

// TestKafkaEarliestOnTruncatedPartition: partition 1 is at the earliest
// marker — a reader split that had not started (Assigned) or a partition
// the enumerator had not handed out (Unassigned, which a new job starts at
// earliest). The old job read none of its records, so once retention or
// DeleteRecords moved its log start above 0 the records below were
// deleted unread: data loss of up to that many offsets, as kafkaoffset
// grades the same partition without a commit
// (kafka.uncommitted-partition-truncated). Log start 0 loses nothing.
func TestKafkaEarliestOnTruncatedPartition(t *testing.T) {
	ctx := context.Background()
	times := make([]time.Time, 20)
	for i := range times {
		times[i] = time.Date(2026, 12, 1, 10, 0, i, 0, time.UTC)
	}
	sources := map[string]flinkckpttest.Source{
		"Assigned": flinkckpttest.KafkaSource("k", "topic", 7, sourcestate.OffsetEarliest),
		"Unassigned": func() flinkckpttest.Source {
			s := flinkckpttest.KafkaSource("k", "topic", 7) // one reader split: partition 0
			co, err := flinkckpttest.KafkaEnumerator(sourcestate.KafkaEnumerator{Version: 2, InitialDiscoveryFinished: true, Partitions: []sourcestate.KafkaPartition{
				{Topic: "topic", Partition: 0, Status: sourcestate.StatusAssigned},
				{Topic: "topic", Partition: 1, Status: sourcestate.StatusUnassigned},
			}})
			if err != nil {
				t.Fatal(err)
			}
			s.Coordinator = co
			return s
		}(),
	}
	for name, src := range sources {
		for _, logStart := range []int64{0, 1, 4} {
			t.Run(fmt.Sprintf("%s/logStart=%d", name, logStart), func(t *testing.T) {
				l := savepoints(t, "")
				dir := savepoint(t, l, "savepoint-aaaaaa-000000000061", 3, src)
				k := kafkaoffsettest.New(t, nil)
				k.CreateTopic(kafkaoffsettest.Topic{Name: "topic", Partitions: 2})
				for p := range int32(2) {
					k.Produce("topic", p, times...)
				}
				if logStart > 0 {
					k.DeleteRecords("topic", 1, logStart)
				}
				c := salvaged(t, l, &salvage.Options{Snapshot: dir, Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: k.Client}}})
				p1 := kafkaStarts(t, c)[1]
				if p1.Marker != sourcestate.MarkerEarliest || !p1.Resolved || p1.Offset != logStart || p1.Lost != logStart {
					t.Errorf("topic/1: %+v, want earliest resolved to %d, %d lost", p1, logStart, logStart)
				}
				if got, want := c.Position.Launch().Options["scan.startup.specific-offsets"], fmt.Sprintf("partition:0,offset:7;partition:1,offset:%d", logStart); got != want {
					t.Errorf("specific offsets %q, want %q", got, want)
				}

				// kafkaoffset on the same log, partition 1 without a
				// commit: the two agree on the grade and the count.
				k.Commit("job", "topic", map[int32]int64{0: 7})
				kr, err := kafkaoffset.NewResolver(k.Client, []string{"topic"}, &kafkaoffset.Options{Group: "job"})
				if err != nil {
					t.Fatal(err)
				}
				kc, err := kr.Resolve(ctx)
				if err != nil {
					t.Fatal(err)
				}
				kp := kc.Position.(*kafkaoffset.Position).Partitions[1]
				if logStart == 0 {
					if c.Guarantee != resume.ExactInput || c.HasWarning(salvage.WarnDataLoss) {
						t.Errorf("log start 0: guarantee %s, warnings %v", c.Guarantee, c.Warnings)
					}
					if kc.Guarantee == resume.DataLoss {
						t.Errorf("kafkaoffset at log start 0: %s", kc.Guarantee)
					}
					return
				}
				offs := fmt.Sprintf("%d offsets (0..%d)", logStart, logStart-1)
				if logStart == 1 {
					offs = "1 offset (0)"
				}
				if c.Guarantee != resume.DataLoss || !strings.Contains(warning(c, salvage.WarnDataLoss), "topic/1: earliest (the old job had read nothing of it), up to "+offs+" deleted, possibly never read") {
					t.Errorf("guarantee %s, data loss warning %q", c.Guarantee, warning(c, salvage.WarnDataLoss))
				}
				if kc.Guarantee != resume.DataLoss || !kc.HasWarning(kafkaoffset.WarnUncommittedTruncated) || kp.From != kafkaoffset.FromLogStart || kp.Offset != p1.Offset {
					t.Errorf("kafkaoffset: guarantee %s, partition 1 %+v, warnings %v", kc.Guarantee, kp, kc.Warnings)
				}
			})
		}
	}
}
