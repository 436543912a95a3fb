package kafkaoffset_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume"
)

// TestResolveUncommittedPartitionTruncated: a partition without a commit
// (KafkaSource's async commit for it never sent) whose log start is above
// 0 had records deleted that the old job may never have read: data loss of
// the offsets below the log start. Log start 0 deletes nothing: replay.
func TestResolveUncommittedPartitionTruncated(t *testing.T) {
	for _, logStart := range []int64{0, 1, 100} {
		t.Run(fmt.Sprint("logStart=", logStart), func(t *testing.T) {
			e := newEnv(t, 1, 2, []string{"t"})
			e.produceN(t, "t", 0, 3)
			e.produceN(t, "t", 1, int(logStart)+5)
			e.commit(t, "job", "t", map[int32]int64{0: 3})
			if logStart > 0 {
				e.deleteRecords(t, "t", 1, logStart)
			}
			c, err := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job"}).Resolve(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			p := c.Position.(*kafkaoffset.Position)
			if got := p.Partitions[1]; got.From != kafkaoffset.FromLogStart || got.Offset != logStart || got.Committed != nil {
				t.Errorf("t/1: from %s offset %d, want log-start %d", got.From, got.Offset, logStart)
			}
			var codes []string
			for _, w := range c.Warnings {
				codes = append(codes, string(w.Code))
			}
			hasTrunc := strings.Contains(strings.Join(codes, " "), kafkaoffset.WarnUncommittedTruncated)
			if logStart == 0 {
				if c.Guarantee != resume.Replay {
					t.Errorf("guarantee %s, want replay: %v", c.Guarantee, c.Reasons)
				}
				if hasTrunc || len(p.Facts()) != 0 {
					t.Errorf("log start 0: warnings %v, facts %v", codes, p.Facts())
				}
				contains(t, "warnings", c.Warnings, "kafka.uncommitted-partitions: 1 partitions have no commit", "t/1 (5 records)")
				return
			}
			if c.Guarantee != resume.DataLoss {
				t.Errorf("guarantee %s, want data-loss: %v", c.Guarantee, c.Reasons)
			}
			offs := fmt.Sprintf("%d offsets (0..%d)", logStart, logStart-1)
			if logStart == 1 {
				offs = "1 offset (0)"
			}
			contains(t, "warnings", c.Warnings, "kafka.uncommitted-partition-truncated: 1 partitions have no commit and records deleted", "t/1 ("+offs+")")
			contains(t, "reasons", c.Reasons, fmt.Sprintf("data loss on 1 partition(s), %d records: t/1 (no commit: up to %d offsets 0..%d deleted below log start %d)", logStart, logStart, logStart-1, logStart))
			facts := p.Facts()
			if len(facts) != 1 || facts[0].Label != resume.FactLoss || facts[0].Text != "t/1: no commit, up to "+offs+" deleted, possibly never read" {
				t.Errorf("facts %+v", facts)
			}
		})
	}
}
