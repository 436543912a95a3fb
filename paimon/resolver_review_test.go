package paimon_test

import (
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
)

// resolveBy builds a resolver for consumer "job" and resolves it.
func resolveBy(t *testing.T, tbl *paimon.Table, o *paimon.Options) (resume.Candidate, *paimon.Position) {
	t.Helper()
	r, err := paimon.NewResolver(tbl, "job", o)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(bg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := paimon.PositionOf(c.Position)
	if err != nil {
		t.Fatal(err)
	}
	return c, p
}

// hasSub reports whether a reason, or a warning as "code: text", contains
// sub.
func hasSub[T string | resume.Warning](list []T, sub string) bool {
	for _, s := range lines(list) {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// lines returns reasons as they are and warnings as "code: text".
func lines[T string | resume.Warning](list []T) []string {
	out := make([]string, len(list))
	for i, l := range list {
		if w, ok := any(l).(resume.Warning); ok {
			out[i] = w.String()
		} else {
			out[i] = any(l).(string)
		}
	}
	return out
}

// devFromTag builds main snapshots 1..10 with tag t5 at snapshot-5 and branch
// dev created from it, committing at(11) and at(12) as ids 6 and 7.
func devFromTag(t *testing.T) (*paimontest.Table, *paimontest.Table, *paimon.Table) {
	b, tb := newTable(t, 10, nil)
	br := tb.Tag("t5", 5).BranchFromTag("dev", "t5").Commit(at(11), at(12))
	return tb, br, openTable(t, b, tb.Path(), &paimon.TableOptions{Branch: "dev", ConsumerRetryInterval: -1, HintRetryInterval: -1})
}

// TestStartByTimeBranchCreatedFromTagIsNotDataLoss: a branch created from a
// tag at snapshot-5 starts at id 5 without any expiry; a start time before
// its first snapshot skips nothing of the branch: Replay, no loss warning.
func TestStartByTimeBranchCreatedFromTagIsNotDataLoss(t *testing.T) {
	_, _, tbl := devFromTag(t)
	c, p := resolveBy(t, tbl, &paimon.Options{StartTime: at(2)})
	if c.Guarantee != resume.Replay || p.NextSnapshot != 5 || p.Earliest != 5 || p.Latest != 7 {
		t.Fatalf("got %v next %d (%d..%d), want replay next 5 (5..7)\nreasons %q\nwarnings %q", c.Guarantee, p.NextSnapshot, p.Earliest, p.Latest, c.Reasons, c.Warnings)
	}
	if !hasSub(c.Reasons, "branch dev was created from tag t5 at id 5") {
		t.Errorf("no reason names the tag the branch came from: %q", c.Reasons)
	}
	if hasSub(c.Warnings, "loss") {
		t.Errorf("a loss warning for a branch that never had lower ids: %q", c.Warnings)
	}
}

// TestStartByTimeBranchExpiredBelowItsTagIsPossibleLoss: the branch's own
// tag names id 5, but snapshots 5..6 of the branch expired and the tag was
// committed before the start time, so whether id 6 was is unknown:
// DataLoss, worded as a possible loss with the range the tag proves.
func TestStartByTimeBranchExpiredBelowItsTagIsPossibleLoss(t *testing.T) {
	_, br, tbl := devFromTag(t)
	br.ExpireBefore(7)
	c, p := resolveBy(t, tbl, &paimon.Options{StartTime: at(8)})
	if c.Guarantee != resume.DataLoss || p.NextSnapshot != 7 {
		t.Fatalf("got %v next %d, want data-loss next 7\nwarnings %q", c.Guarantee, p.NextSnapshot, c.Warnings)
	}
	if !hasSub(c.Warnings, "paimon.possible-loss: possible loss: snapshots 5..6 of branch dev expired (tag t5 names id 5) and their commit times are unknown") {
		t.Errorf("warnings %q", c.Warnings)
	}
}

// TestStartByTimeBranchExpiredAfterStartTimeIsCertainLoss: as above, but the
// tag shows id 5 was committed after the start time: its records and those
// of id 6 are certainly skipped.
func TestStartByTimeBranchExpiredAfterStartTimeIsCertainLoss(t *testing.T) {
	_, br, tbl := devFromTag(t)
	br.ExpireBefore(7)
	c, _ := resolveBy(t, tbl, &paimon.Options{StartTime: at(2)})
	if c.Guarantee != resume.DataLoss || !hasSub(c.Warnings, "paimon.loss-by-tag: data loss: tag t5 shows that id 5 was committed at 2026-11-29T10:04:00.000Z, at or after 2026-11-29T10:01:00.000Z, and snapshots 5..6 expired") {
		t.Fatalf("got %v, warnings %q", c.Guarantee, c.Warnings)
	}
}

// TestStartByTimeMainTagBeforeStartRulesOutLoss: snapshots 1..4 expired, but
// tag t4 keeps snapshot-4's commit time, before the start time: Paimon would
// start at 5 on the full history too, so nothing is lost (Replay).
func TestStartByTimeMainTagBeforeStartRulesOutLoss(t *testing.T) {
	b, tb := newTable(t, 10, nil)
	tb.Tag("t4", 4).ExpireBefore(5)
	c, p := resolveBy(t, openTable(t, b, tb.Path(), nil), &paimon.Options{StartTime: at(4).Add(30 * time.Second)})
	if c.Guarantee != resume.Replay || p.NextSnapshot != 5 || hasSub(c.Warnings, "loss") {
		t.Fatalf("got %v next %d, warnings %q", c.Guarantee, p.NextSnapshot, c.Warnings)
	}
	if !hasSub(c.Reasons, "tag t4 shows that id 4, the last below snapshot-5, was committed at") {
		t.Errorf("reasons %q", c.Reasons)
	}
}

// TestStartByTimeMainTagAfterStartIsCertainLoss: tag t3 shows snapshot-3,
// now expired, was committed after the start time: snapshots 3..4 are
// certainly skipped.
func TestStartByTimeMainTagAfterStartIsCertainLoss(t *testing.T) {
	b, tb := newTable(t, 10, nil)
	tb.Tag("t3", 3).ExpireBefore(5)
	c, _ := resolveBy(t, openTable(t, b, tb.Path(), nil), &paimon.Options{StartTime: at(2)})
	if c.Guarantee != resume.DataLoss || !hasSub(c.Warnings, "data loss: tag t3 shows that id 3 was committed at") || !hasSub(c.Warnings, "snapshots 3..4 expired") {
		t.Fatalf("got %v, warnings %q", c.Guarantee, c.Warnings)
	}
}

// TestStartByTimeBranchOriginUnknownCannotBeRuledOut: the branch starts at
// id 5 but its tag file is gone, so nothing tells creation from expiry: the
// loss cannot be ruled out (DataLoss), and the warning says what clears it.
func TestStartByTimeBranchOriginUnknownCannotBeRuledOut(t *testing.T) {
	_, br, tbl := devFromTag(t)
	br.DeleteFile("tag/tag-t5")
	c, p := resolveBy(t, tbl, &paimon.Options{StartTime: at(2)})
	if c.Guarantee != resume.DataLoss || p.NextSnapshot != 5 {
		t.Fatalf("got %v next %d, want data-loss next 5\nwarnings %q", c.Guarantee, p.NextSnapshot, c.Warnings)
	}
	for _, w := range []string{"possible loss, cannot be ruled out: branch dev has no ids below 5", "Nothing is lost if the branch was created at id 5"} {
		if !hasSub(c.Warnings, w) {
			t.Errorf("no warning contains %q: %q", w, c.Warnings)
		}
	}
}

// TestStartByTimeBranchTagNotInMainIsNoProof: a tag at the branch's first
// id that the main table does not hold (made in the branch) does not prove
// where the branch began.
func TestStartByTimeBranchTagNotInMainIsNoProof(t *testing.T) {
	tb, _, tbl := devFromTag(t)
	tb.DeleteFile("tag/tag-t5")
	c, _ := resolveBy(t, tbl, &paimon.Options{StartTime: at(2)})
	if c.Guarantee != resume.DataLoss || !hasSub(c.Warnings, "cannot be ruled out") {
		t.Fatalf("got %v, warnings %q", c.Guarantee, c.Warnings)
	}
}

// TestStartByTimeMainExpiredIsPossibleLoss: on the main branch ids below
// the earliest certainly expired, but whether the last of them was committed
// before the start time is unknown: DataLoss, worded as possible.
func TestStartByTimeMainExpiredIsPossibleLoss(t *testing.T) {
	b, tb := newTable(t, 10, nil)
	tb.ExpireBefore(5)
	c, p := resolveBy(t, openTable(t, b, tb.Path(), nil), &paimon.Options{StartTime: at(2)})
	if c.Guarantee != resume.DataLoss || p.NextSnapshot != 5 {
		t.Fatalf("got %v next %d", c.Guarantee, p.NextSnapshot)
	}
	if !hasSub(c.Warnings, "possible loss: snapshots 1..4 expired and their commit times are unknown") ||
		!hasSub(c.Warnings, "nothing is lost if id 4 was committed before") || hasSub(c.Warnings, "are never read") {
		t.Errorf("warnings %q", c.Warnings)
	}
}

// TestConsumerModeIsCaseInsensitive: Paimon parses consumer.mode without
// regard to case, from the schema, Options.Mode, Options.WrittenMode and
// TableOptions alike. The old job's mode (schema, TableOptions,
// WrittenMode) decides the grade; the new job's (Options.Mode, else the
// table's) only the launch.
func TestConsumerModeIsCaseInsensitive(t *testing.T) {
	for _, tc := range []struct {
		name              string
		schema            string
		opts              paimon.Options
		want              resume.Guarantee
		launch, written   string
		writtenAssumption bool
	}{
		{"Schema", "AT-LEAST-ONCE", paimon.Options{}, resume.Replay, "at-least-once", "at-least-once", false},
		{"OptionsModeIsTheNewJobs", "", paimon.Options{Mode: "At-Least-Once"}, resume.ExactInput, "at-least-once", "exactly-once", true},
		{"WrittenMode", "", paimon.Options{WrittenMode: "At-Least-Once"}, resume.Replay, "exactly-once", "at-least-once", false},
		{"TableOptions", "", paimon.Options{TableOptions: map[string]string{"consumer.mode": "AT-LEAST-ONCE"}}, resume.Replay, "at-least-once", "at-least-once", false},
		{"ExactlyOnceUpper", "at-least-once", paimon.Options{WrittenMode: "EXACTLY-ONCE"}, resume.ExactInput, "at-least-once", "exactly-once", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, tb := newTable(t, 10, nil)
			if tc.schema != "" {
				tb.Schema(map[string]string{"consumer.mode": tc.schema}).Commit(at(11))
			}
			// Caught up, where the old job's mode decides the grade.
			next := tb.Latest() + 1
			tb.Consumer("job", next)
			c, p := resolveBy(t, openTable(t, b, tb.Path(), nil), &tc.opts)
			if c.Guarantee != tc.want || p.NextSnapshot != next {
				t.Fatalf("guarantee %v next %d, want %v next %d", c.Guarantee, p.NextSnapshot, tc.want, next)
			}
			if p.Mode != tc.launch || p.WrittenMode != tc.written {
				t.Errorf("position mode %q written %q, want %q and %q", p.Mode, p.WrittenMode, tc.launch, tc.written)
			}
			if got, want := c.Position.Launch().Options["consumer.mode"], map[bool]string{true: "at-least-once"}[tc.launch == "at-least-once"]; got != want {
				t.Errorf("launch consumer.mode %q, want %q", got, want)
			}
			if got := c.HasWarning(paimon.WarnWrittenModeAssumed); got != tc.writtenAssumption {
				t.Errorf("written-mode-assumed warning %v, want %v: %q", got, tc.writtenAssumption, c.Warnings)
			}
		})
	}
	b, tb := newTable(t, 1, nil)
	for _, o := range []paimon.Options{{Mode: "TWICE"}, {WrittenMode: "TWICE"}} {
		if _, err := paimon.NewResolver(openTable(t, b, tb.Path(), nil), "job", &o); err == nil {
			t.Errorf("an unknown mode in capitals was accepted: %+v", o)
		}
	}
}

// TestIdleCheckWithHugeExpirationDoesNotOverflow: an expiration near the
// int64 limit (106751 days) must neither warn "close to" for a fresh
// consumer nor miss an idle time beyond four fifths of it.
func TestIdleCheckWithHugeExpirationDoesNotOverflow(t *testing.T) {
	const huge = "106751 d"
	for _, tc := range []struct {
		name  string
		after time.Duration // Now is the consumer file's time plus this
		close bool
	}{
		{"FreshConsumer", time.Hour, false},
		{"IdleBeyondFourFifths", 250 * 365 * 24 * time.Hour, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, tb := newTable(t, 10, map[string]string{"consumer.expiration-time": huge})
			tb.Consumer("job", 7)
			tbl := openTable(t, b, tb.Path(), nil)
			cons, err := tbl.Consumer(bg, "job")
			if err != nil {
				t.Fatal(err)
			}
			now := cons.ModTime.Add(tc.after)
			c, _ := resolveBy(t, tbl, &paimon.Options{Now: func() time.Time { return now }})
			if got := hasSub(c.Warnings, "paimon.consumer-expiring: consumer idle for") && hasSub(c.Warnings, "close to consumer.expiration-time"); got != tc.close {
				t.Errorf("close-to warning %v, want %v: %q", got, tc.close, c.Warnings)
			}
			if hasSub(c.Warnings, "longer than consumer.expiration-time") {
				t.Errorf("expired warning: %q", c.Warnings)
			}
		})
	}
}
