package kafkaoffset_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// LogOffsets lists log start and end offsets of the partitions asked for
// (one request per broker each); a partition that does not exist fails
// alone, naming itself.
func TestLogOffsets(t *testing.T) {
	e := newEnv(t, 2, 3, []string{"orders"})
	e.produceN(t, "orders", 0, 10)
	e.produceN(t, "orders", 2, 7)
	e.deleteRecords(t, "orders", 2, 3)
	start, end, err := kafkaoffset.LogOffsets(context.Background(), e.cl, "orders", []int32{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[int32]int64{0: 0, 1: 0, 2: 3}, start); diff != "" {
		t.Errorf("start (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[int32]int64{0: 10, 1: 0, 2: 7}, end); diff != "" {
		t.Errorf("end (-want +got):\n%s", diff)
	}
	start, _, err = (kafkaoffset.Log{Client: e.cl}).LogOffsets(context.Background(), "orders", []int32{0, 9})
	if !errors.Is(err, kerr.UnknownTopicOrPartition) || len(start) != 1 {
		t.Errorf("partition 9: err %v, start %v", err, start)
	}
	if _, _, err := kafkaoffset.LogOffsets(context.Background(), e.cl, "bad/topic", []int32{0}); err == nil {
		t.Error("invalid topic accepted")
	}
}

// The checker interfaces a Flink snapshot's source positions are checked
// with (package livecheck) are implemented by Log.
var (
	_ livecheck.KafkaLog     = kafkaoffset.Log{}
	_ livecheck.KafkaCommits = kafkaoffset.Log{}
)

var _ livecheck.KafkaRetention = kafkaoffset.Log{}
