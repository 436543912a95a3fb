package paimon_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
)

// TestLaunchFallbackScanSnapshotID: every launch carries
// scan.snapshot-id=<where the job starts>. The consumer file wins over it
// while it exists; when the next writer commit deletes a consumer idle past
// consumer.expiration-time, the job starts at scan.snapshot-id instead of
// scan.mode's default (latest-full: a full re-read).
func TestLaunchFallbackScanSnapshotID(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema map[string]string
		build  func(*testing.T, *paimontest.Table)
		opts   paimon.Options
		g      resume.Guarantee
		next   int64
		launch map[string]string
		code   resume.WarningCode // a warning code that must be present
		text   string             // in some warning
	}{
		{
			name:  "ConsumerPresent",
			build: func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 7) },
			g:     resume.Replay, next: 7,
			launch: map[string]string{"consumer-id": "job", "scan.snapshot-id": "7"},
		},
		{
			// The consumer is about to be deleted by expiry: the fallback
			// starts at the same snapshot.
			name:   "ConsumerIdlePastExpiration",
			schema: map[string]string{"consumer.expiration-time": "1 h"},
			build:  func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 7) },
			opts:   paimon.Options{Now: func() time.Time { return tNow.Add(3 * time.Hour) }},
			g:      resume.Replay, next: 7,
			launch: map[string]string{"consumer-id": "job", "scan.snapshot-id": "7"},
			code:   paimon.WarnConsumerExpired,
		},
		{
			// The consumer fell behind expiry: Paimon moves it up to the
			// earliest snapshot, and so does the fallback.
			name:  "ConsumerBehindExpiry",
			build: func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 2).ExpireBefore(5) },
			g:     resume.DataLoss, next: 5,
			launch: map[string]string{"consumer-id": "job", "scan.snapshot-id": "5"},
			code:   paimon.WarnExpiredBeforeRead,
		},
		{
			name:  "AtLeastOnceNewJob",
			build: func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 7) },
			opts:  paimon.Options{Mode: "at-least-once", WrittenMode: "exactly-once"},
			g:     resume.Replay, next: 7,
			launch: map[string]string{"consumer-id": "job", "scan.snapshot-id": "7", "consumer.mode": "at-least-once"},
		},
		{
			// scan.mode=latest in the table's options would make Paimon
			// refuse scan.snapshot-id (SchemaValidation): the launch sets
			// scan.mode=from-snapshot.
			name:   "TableScanModeLatest",
			schema: map[string]string{"scan.mode": "latest"},
			build:  func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 7) },
			g:      resume.Replay, next: 7,
			launch: map[string]string{"consumer-id": "job", "scan.snapshot-id": "7", "scan.mode": "from-snapshot"},
		},
		{
			// scan.mode=from-timestamp needs scan.timestamp-millis in the
			// same options, which Paimon refuses beside scan.snapshot-id and
			// no hint can unset: the job would not start. Said in a warning;
			// the grade of the consumer's start is unchanged.
			name:   "TableStartsByTime",
			schema: map[string]string{"scan.mode": "from-timestamp", "scan.timestamp-millis": "1795946400000"},
			build:  func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 7) },
			g:      resume.Replay, next: 7,
			launch: map[string]string{"consumer-id": "job", "scan.snapshot-id": "7", "scan.mode": "from-snapshot"},
			code:   paimon.WarnScanOptionConflict,
			text:   "the table's options set scan.timestamp-millis, which Paimon refuses beside the launch's scan.snapshot-id",
		},
		{
			name:   "TableTagName",
			schema: map[string]string{"scan.tag-name": "daily", "scan.watermark": "5"},
			build:  func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 7) },
			g:      resume.Replay, next: 7,
			launch: map[string]string{"consumer-id": "job", "scan.snapshot-id": "7"},
			code:   paimon.WarnScanOptionConflict,
			text:   "ALTER TABLE default.t RESET ('scan.tag-name', 'scan.watermark')",
		},
		{
			name:   "TableScanModeFromSnapshot",
			schema: map[string]string{"scan.mode": "from-snapshot"},
			build:  func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 7) },
			g:      resume.Replay, next: 7,
			launch: map[string]string{"consumer-id": "job", "scan.snapshot-id": "7"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, tb := newTable(t, 10, nil)
			if tc.schema != nil {
				tb.Schema(tc.schema).Commit(at(11))
			}
			tc.build(t, tb)
			c, p := resolveBy(t, openTable(t, b, tb.Path(), nil), &tc.opts)
			if c.Guarantee != tc.g || p.NextSnapshot != tc.next {
				t.Fatalf("got %v next %d, want %v next %d\nwarnings %q", c.Guarantee, p.NextSnapshot, tc.g, tc.next, c.Warnings)
			}
			if diff := cmp.Diff(tc.launch, c.Position.Launch().Options); diff != "" {
				t.Errorf("launch options (-want +got):\n%s", diff)
			}
			if want := "/*+ OPTIONS(" + resume.HintOptions(tc.launch) + ") */"; p.SQLHint != want {
				t.Errorf("SQL hint %q, want %q", p.SQLHint, want)
			}
			if tc.code != "" && !c.HasWarning(tc.code) {
				t.Errorf("no %s warning: %q", tc.code, c.Warnings)
			}
			if tc.text != "" && !hasSub(c.Warnings, tc.text) {
				t.Errorf("no warning says %q: %q", tc.text, c.Warnings)
			}
			if tc.code != paimon.WarnScanOptionConflict && c.HasWarning(paimon.WarnScanOptionConflict) {
				t.Errorf("a %s warning without a conflicting option: %q", paimon.WarnScanOptionConflict, c.Warnings)
			}
			if tc.schema["scan.mode"] == "latest" && !strings.Contains(strings.Join(c.Reasons, "\n"), "would refuse scan.snapshot-id") {
				t.Errorf("no reason for the scan.mode override: %q", c.Reasons)
			}
		})
	}
}
