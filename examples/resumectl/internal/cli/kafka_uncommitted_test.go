package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
)

// TestResolveKafkaUncommittedPartitionTruncated: partition 1 has no commit
// and its first 100 records were deleted (conformance scenario K2): the
// old job may never have read them, so resolve grades data-loss, refuses
// it by default and, allowed, shows the warning and the loss in text and
// JSON.
func TestResolveKafkaUncommittedPartitionTruncated(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{{Name: "t", Partitions: 2}}})
	k.Produce("t", 0, t0, t0.Add(time.Second))
	times := make([]time.Time, 105)
	for i := range times {
		times[i] = t0.Add(time.Duration(i) * time.Millisecond)
	}
	k.Produce("t", 1, times...)
	k.Commit("job", "t", map[int32]int64{0: 2})
	k.DeleteRecords("t", 1, 100)
	addr := k.Addrs()[0]
	args := []string{"resolve", "--kafka-brokers", addr, "--kafka-topic", "t", "--kafka-group", "job", "--kafka-commit-source", "checkpoint"}

	code, out, errOut := runCLI(args...)
	if code != ExitRefused || !strings.Contains(out, "rejected (data-loss)") {
		t.Errorf("default policy: exit %d, want %d\n%s%s", code, ExitRefused, out, errOut)
	}
	code, out, errOut = runCLI(append(args, "--min-guarantee", "data-loss")...)
	if code != ExitOK {
		t.Fatalf("--min-guarantee data-loss: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"data-loss", "[kafka.uncommitted-partition-truncated]", "t/1 (100 offsets (0..99))", "t/1: no commit, up to 100 offsets (0..99) deleted, possibly never read"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(append(args, "--min-guarantee", "data-loss", "--json")...)
	if code != ExitOK {
		t.Fatalf("--json: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{`"guarantee": "data-loss"`, `"code": "kafka.uncommitted-partition-truncated"`, "data loss on 1 partition(s), 100 records: t/1 (no commit: up to 100 offsets 0..99 deleted below log start 100)"} {
		if !strings.Contains(out, want) {
			t.Errorf("JSON lacks %s:\n%s", want, out)
		}
	}
}
