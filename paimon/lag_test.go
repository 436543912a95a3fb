package paimon_test

import (
	"strconv"
	"testing"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
)

// TestConsumerFileLagsTheOldJobsOutput is the conformance finding P1m (a
// Flink SQL reader with consumer c1 in consumer.mode exactly-once, SIGKILLed
// mid-stream: the consumer file said 3 while the sink had committed the ids
// of snapshots up to 25, and the new reader read 2,300 ids again). Paimon's
// MonitorSource writes the file in its own notifyCheckpointComplete, apart
// from the sink's commit, and the job reads on past it between checkpoints:
// a stateless start at nextSnapshot re-reads what the old job emitted from
// snapshots nextSnapshot..latest. So the grade is replay, bounded by that
// range, even when the old job's mode is known to be exactly-once; only a
// consumer that has read every snapshot leaves nothing to read again.
func TestConsumerFileLagsTheOldJobsOutput(t *testing.T) {
	for _, tc := range []struct {
		name    string
		next    int64
		opts    paimon.Options
		g       resume.Guarantee
		reason  string // in some reason
		warning string // in some warning; "" none with the lag code
	}{
		{"MidStream", 3, paimon.Options{WrittenMode: "exactly-once"}, resume.Replay,
			"replay: snapshots 3..43 may be read again", "duplicates possible: snapshots 3..43 may be read again"},
		{"MidStreamModeFromTheTable", 3, paimon.Options{TableOptions: map[string]string{"consumer.mode": "exactly-once"}}, resume.Replay,
			"replay: snapshots 3..43 may be read again", "nothing below snapshot-3 is lost"},
		{"OneSnapshotBehind", 43, paimon.Options{WrittenMode: "exactly-once"}, resume.Replay,
			"replay: snapshot-43 may be read again", "duplicates possible: snapshot-43 may be read again"},
		{"CaughtUp", 44, paimon.Options{WrittenMode: "exactly-once"}, resume.ExactInput,
			"no snapshot at or above 44 exists: the old job emitted nothing past its consumer file", ""},
		{"AtLeastOnceStaysReplay", 3, paimon.Options{WrittenMode: "at-least-once"}, resume.Replay,
			"nextSnapshot 3 is the snapshot its slowest reader was still reading", "duplicates possible: snapshots 3..43"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, tb := newTable(t, 43, map[string]string{"consumer.expiration-time": "1 h"})
			tb.Consumer("c1", tc.next)
			r, err := paimon.NewResolver(openTable(t, b, tb.Path(), nil), "c1", &tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			c, err := r.Resolve(bg)
			if err != nil {
				t.Fatal(err)
			}
			p, _ := paimon.PositionOf(c.Position)
			if c.Guarantee != tc.g || p.NextSnapshot != tc.next || p.Latest != 43 || c.Position.Launch().Options["scan.snapshot-id"] != strconv.FormatInt(tc.next, 10) {
				t.Fatalf("got %v next %d latest %d launch %v, want %v next %d\nreasons %q\nwarnings %q",
					c.Guarantee, p.NextSnapshot, p.Latest, c.Position.Launch().Options, tc.g, tc.next, c.Reasons, c.Warnings)
			}
			if !hasSub(c.Reasons, tc.reason) {
				t.Errorf("no reason says %q: %q", tc.reason, c.Reasons)
			}
			if got := c.HasWarning(paimon.WarnConsumerLagsOutput); got != (tc.warning != "") {
				t.Errorf("%s warning %v, want %v: %q", paimon.WarnConsumerLagsOutput, got, tc.warning != "", c.Warnings)
			}
			if tc.warning != "" && !hasSub(c.Warnings, tc.warning) {
				t.Errorf("no warning says %q: %q", tc.warning, c.Warnings)
			}
			if c.HasWarning(paimon.WarnWrittenModeAssumed) {
				t.Errorf("the mode was given, yet assumed: %q", c.Warnings)
			}
		})
	}
}
