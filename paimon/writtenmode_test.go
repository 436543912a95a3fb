package paimon_test

import (
	"testing"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
)

// TestWrittenModeDecidesTheGrade: the old job's consumer.mode decides what
// its consumer file means (exactly-once: every snapshot below nextSnapshot
// fully read; at-least-once: the slowest reader's snapshot, read again,
// Replay). It decides the grade of a consumer that has read every snapshot
// (exactly-once: ExactInput); behind the latest snapshot both modes are
// Replay, since the old job may have read on past its file. consumer.mode
// is usually a SQL hint that never reaches the schema: when neither the
// schema, TableOptions nor Options.WrittenMode says, exactly-once is
// assumed, with a coded warning where that decides the grade. The new job's
// mode (Options.Mode) shapes the launch only.
func TestWrittenModeDecidesTheGrade(t *testing.T) {
	for _, tc := range []struct {
		name     string
		schema   string // the table's consumer.mode ("" none)
		opts     paimon.Options
		g        resume.Guarantee // of a caught-up consumer
		written  string
		assumed  bool
		launchAL bool // the launch carries consumer.mode=at-least-once
	}{
		{"NothingSays", "", paimon.Options{}, resume.ExactInput, "exactly-once", true, false},
		{"NewJobModeIsNotTheOldJobs", "", paimon.Options{Mode: "at-least-once"}, resume.ExactInput, "exactly-once", true, true},
		{"SchemaExactlyOnce", "exactly-once", paimon.Options{}, resume.ExactInput, "exactly-once", false, false},
		{"SchemaAtLeastOnce", "at-least-once", paimon.Options{}, resume.Replay, "at-least-once", false, true},
		{"TableOptionsAtLeastOnce", "", paimon.Options{TableOptions: map[string]string{"consumer.mode": "at-least-once"}}, resume.Replay, "at-least-once", false, true},
		{"CallerAtLeastOnce", "", paimon.Options{WrittenMode: "at-least-once"}, resume.Replay, "at-least-once", false, false},
		{"CallerOverridesSchema", "at-least-once", paimon.Options{WrittenMode: "exactly-once", Mode: "exactly-once"}, resume.ExactInput, "exactly-once", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, tb := newTable(t, 10, nil)
			if tc.schema != "" {
				tb.Schema(map[string]string{"consumer.mode": tc.schema}).Commit(at(11))
			}
			tb.Consumer("job", 7)
			c, p := resolveBy(t, openTable(t, b, tb.Path(), nil), &tc.opts)
			if c.Guarantee != resume.Replay || p.NextSnapshot != 7 || !c.At.Equal(at(6)) || !c.HasWarning(paimon.WarnConsumerLagsOutput) || c.HasWarning(paimon.WarnWrittenModeAssumed) {
				t.Fatalf("behind: got %v next %d at %v, want replay next 7 at %v, lag warning, no assumption\nwarnings %q", c.Guarantee, p.NextSnapshot, c.At, at(6), c.Warnings)
			}
			if p.WrittenMode != tc.written {
				t.Errorf("behind: WrittenMode %q, want %q", p.WrittenMode, tc.written)
			}
			next := tb.Latest() + 1
			tb.Consumer("job", next)
			c, p = resolveBy(t, openTable(t, b, tb.Path(), nil), &tc.opts)
			if c.Guarantee != tc.g || p.NextSnapshot != next || c.HasWarning(paimon.WarnConsumerLagsOutput) {
				t.Fatalf("caught up: got %v next %d, want %v next %d, no lag warning\nwarnings %q", c.Guarantee, p.NextSnapshot, tc.g, next, c.Warnings)
			}
			if p.WrittenMode != tc.written {
				t.Errorf("WrittenMode %q, want %q", p.WrittenMode, tc.written)
			}
			if c.HasWarning(paimon.WarnWrittenModeAssumed) != tc.assumed {
				t.Errorf("written-mode-assumed %v, want %v: %q", !tc.assumed, tc.assumed, c.Warnings)
			}
			if got := c.Position.Launch().Options["consumer.mode"] == "at-least-once"; got != tc.launchAL {
				t.Errorf("launch consumer.mode=at-least-once %v, want %v", got, tc.launchAL)
			}
		})
	}
	// Without a consumer file there is no old job's mode to assume.
	b, tb := newTable(t, 10, nil)
	c, p := resolveBy(t, openTable(t, b, tb.Path(), nil), &paimon.Options{StartTime: at(4).Add(30e9)})
	if c.Guarantee != resume.Replay || p.NextSnapshot != 5 || p.WrittenMode != "" || c.HasWarning(paimon.WarnWrittenModeAssumed) {
		t.Errorf("by time: %v next %d written %q warnings %q", c.Guarantee, p.NextSnapshot, p.WrittenMode, c.Warnings)
	}
}
