package paimon_test

import (
	"strings"
	"testing"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
)

// TestWordingTheOptionsCanBack: the reasons and warnings claim only what the
// table's options back. A consumer.expiration-time missing from the
// options does not mean "never expired" (expiry runs with the writer's
// options, and a writer's dynamic option can set it); with Paimon 1.4's
// consumer.changelog-only (effective only with decoupled changelogs)
// consumers pin long-lived changelogs, not snapshots.
func TestWordingTheOptionsCanBack(t *testing.T) {
	changelogOnly := map[string]string{"consumer.changelog-only": "true", "changelog.time-retained": "7 d"}
	for _, tc := range []struct {
		name    string
		schema  map[string]string
		opts    paimon.Options
		byTime  bool
		g       resume.Guarantee
		next    int64
		want    []string // each in some reason or warning
		notWant []string // in none
	}{
		{
			name: "NoExpirationIsNotNeverExpired", g: resume.Replay, next: 7,
			want:    []string{"consumer.expiration-time is not set in the table's options", "a writer's dynamic option can still set it", "it pins snapshot-7 and later"},
			notWant: []string{"never expired"},
		},
		{
			name: "ChangelogOnlyPinsChangelogs", schema: changelogOnly, g: resume.Replay, next: 7,
			want:    []string{"it pins long-lived changelog-7 and later, not snapshots (consumer.changelog-only=true, Paimon 1.4+"},
			notWant: []string{"pins snapshot-7"},
		},
		{
			name: "ChangelogOnlyBeforePaimon14", schema: changelogOnly, opts: paimon.Options{PaimonVersion: "1.3"}, g: resume.Replay, next: 7,
			want:    []string{"it pins snapshot-7 and later"},
			notWant: []string{"changelog-only"},
		},
		{
			name: "ChangelogOnlyWithoutDecoupling", schema: map[string]string{"consumer.changelog-only": "TRUE"}, g: resume.Replay, next: 7,
			want:    []string{"it pins snapshot-7 and later"},
			notWant: []string{"changelog-only"},
		},
		{
			name: "ByTimeBindPinsSnapshot", byTime: true, g: resume.Replay, next: 5,
			want: []string{"so that expiry cannot delete snapshot-5 first", "a consumer created for this job pins snapshots forever once abandoned, unless a writer sets it as a dynamic option"},
		},
		{
			name: "ByTimeBindPinsChangelog", schema: changelogOnly, byTime: true, g: resume.Replay, next: 5,
			want: []string{"so that changelog expiry keeps id 5: with consumer.changelog-only=true (Paimon 1.4+) consumers do not stop snapshot expiry",
				"pins long-lived changelogs (consumer.changelog-only) forever once abandoned"},
			notWant: []string{"cannot delete snapshot-5"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, tb := newTable(t, 10, nil)
			if tc.schema != nil {
				tb.Schema(tc.schema).Commit(at(11))
			}
			if !tc.byTime {
				tb.Consumer("job", 7)
			} else {
				tc.opts.StartTime = at(4).Add(30e9)
			}
			c, p := resolveBy(t, openTable(t, b, tb.Path(), nil), &tc.opts)
			if c.Guarantee != tc.g || p.NextSnapshot != tc.next {
				t.Fatalf("got %v next %d, want %v next %d", c.Guarantee, p.NextSnapshot, tc.g, tc.next)
			}
			all := strings.Join(append(c.Reasons, lines(c.Warnings)...), "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("nothing says %q:\n%s", w, all)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(all, w) {
					t.Errorf("something says %q:\n%s", w, all)
				}
			}
		})
	}
}

// TestResetWordingTheOptionsCanBack: the reset's warning about a missing
// consumer.expiration-time says only what the table's options back (a
// writer's dynamic option can still expire the consumer), and under
// consumer.changelog-only (Paimon 1.4+, decoupled changelogs only) that the
// consumer pins long-lived changelogs, not snapshots.
func TestResetWordingTheOptionsCanBack(t *testing.T) {
	for _, tc := range []struct {
		name    string
		schema  map[string]string
		warn    bool
		want    []string
		notWant []string
	}{
		{
			name: "NoExpiration", warn: true,
			want:    []string{"consumer.expiration-time is not set in the options of table default.t (wh/default.db/t/schema/schema-1)", "unless a writer sets it as a dynamic option", "pins snapshot-5 and every later snapshot forever"},
			notWant: []string{"changelog"},
		},
		{
			name: "ChangelogOnly", schema: map[string]string{"consumer.changelog-only": "true", "changelog.time-retained": "7 d"}, warn: true,
			want:    []string{"pins long-lived changelog-5 and every later changelog", "consumers do not stop snapshot expiry, so snapshot-5 may expire before the job starts"},
			notWant: []string{"pins snapshot-5"},
		},
		{
			name: "ChangelogOnlyWithoutDecoupling", schema: map[string]string{"consumer.changelog-only": "true"}, warn: true,
			want:    []string{"pins snapshot-5 and every later snapshot forever"},
			notWant: []string{"changelog-only"},
		},
		{name: "ExpirationSet", schema: map[string]string{"consumer.expiration-time": "7 d", "consumer.changelog-only": "true", "changelog.time-retained": "7 d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, tb := newTable(t, 10, nil)
			tb.Schema(tc.schema).Commit(at(11))
			plan, err := openTable(t, b, tb.Path(), nil).PlanResetConsumer(bg, "job", 5)
			if err != nil {
				t.Fatal(err)
			}
			if plan.NextSnapshot != 5 || plan.Snapshot.ID != 5 || plan.Written {
				t.Errorf("plan next %d, snapshot %d, written %v", plan.NextSnapshot, plan.Snapshot.ID, plan.Written)
			}
			if got := hasSub(plan.Warnings, paimon.WarnNoConsumerExpiration); got != tc.warn {
				t.Fatalf("%s warning %v, want %v: %q", paimon.WarnNoConsumerExpiration, got, tc.warn, plan.Warnings)
			}
			all := strings.Join(lines(plan.Warnings), "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("no warning says %q:\n%s", w, all)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(all, w) {
					t.Errorf("a warning says %q:\n%s", w, all)
				}
			}
		})
	}
}
