package cli

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// resolve --flink-sources with --kafka-group (no --kafka-topic): the
// salvaged start begins a partition the old job had not started reading
// from its group's commit (the committed marker) at the group's commit.
func TestResolveSalvageCommittedMarker(t *testing.T) {
	addr, _ := kafkaCluster(t) // topic t: group "job" committed 3 on partition 0
	dir, b := tempBucket(t)
	l := &flinkckpttest.Layout{Bucket: b, Root: "file://" + dir + "/"}
	if _, err := l.Savepoint(context.Background(), "savepoint-aaaaaa-000000000001", 3, &flinkckpttest.Checkpoint{
		Sources: []flinkckpttest.Source{flinkckpttest.KafkaSource("k", "t", sourcestate.OffsetCommitted, 0)}}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runFlinkCLI(t, "resolve", "--flink-savepoints", dir, "--flink-sources", "--kafka-brokers", addr,
		"--kafka-group", "job", "--min-guarantee", "data-loss", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	// The salvage candidate (passed over for the savepoint, which restores
	// state) starts partition 0 at the group's commit 3.
	if !strings.Contains(out, `"scan.startup.specific-offsets": "partition:0,offset:3;partition:1,offset:0"`) ||
		!regexp.MustCompile(`"offset": 3,\s+"marker": "committed",\s+"resolved": true`).MatchString(out) {
		t.Errorf("salvage candidate does not start partition 0 at the group's commit:\n%s", out)
	}
}
