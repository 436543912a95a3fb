package paimon_test

import (
	"testing"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
)

// TestChangelogDecoupledByOptions: whether a streaming read continues below
// the earliest snapshot from long-lived changelogs is decided by the
// table's options as Paimon decides it (CoreOptions.changelogLifecycleDecoupled,
// with Paimon's defaults; in 0.8 also changelog-producer not none), not by
// the files in changelog/. Snapshots 1..5 expired into changelogs; the
// consumer is at 3.
func TestChangelogDecoupledByOptions(t *testing.T) {
	type want struct {
		g         resume.Guarantee
		next      int64
		decoupled bool
		warnings  []resume.WarningCode // codes that must be present
		absent    []resume.WarningCode // codes that must not be
	}
	lost := want{g: resume.DataLoss, next: 6, warnings: []resume.WarningCode{paimon.WarnChangelogIgnored, paimon.WarnExpiredBeforeRead}}
	kept := want{g: resume.Replay, next: 3, decoupled: true, absent: []resume.WarningCode{paimon.WarnChangelogIgnored, paimon.WarnVersionAssumed}}
	for _, tc := range []struct {
		name   string
		schema map[string]string
		opts   paimon.Options
		want   want
	}{
		{"DefaultsAreNotDecoupled", nil, paimon.Options{}, lost},
		{"ChangelogTimeRetainedLonger", map[string]string{"changelog.time-retained": "7 d", "changelog-producer": "input"}, paimon.Options{}, kept},
		{"ChangelogNumRetainedMaxLarger", map[string]string{"snapshot.num-retained.max": "100", "changelog.num-retained.max": "200", "changelog-producer": "lookup"}, paimon.Options{}, kept},
		{"ChangelogNumRetainedMinLarger", map[string]string{"changelog.num-retained.min": "20", "changelog-producer": "lookup"}, paimon.Options{}, kept},
		{"SnapshotRetentionLonger", map[string]string{"snapshot.time-retained": "30 d", "changelog.time-retained": "7 d"}, paimon.Options{}, lost},
		{"EqualToTheDefault", map[string]string{"changelog.num-retained.max": "2147483647", "changelog.time-retained": "1 h"}, paimon.Options{}, lost},
		{"OverriddenByTableOptions", nil, paimon.Options{TableOptions: map[string]string{"changelog.time-retained": "7 d"}, PaimonVersion: "1.2"}, kept},
		{"OverrideTakesItBack", map[string]string{"changelog.time-retained": "7 d"}, paimon.Options{TableOptions: map[string]string{"snapshot.time-retained": "30 d"}}, lost},
		// Paimon 0.8 reads them only when changelog-producer is not none.
		{"Paimon08ProducerNone", map[string]string{"changelog.time-retained": "7 d"}, paimon.Options{PaimonVersion: "0.8.2"}, lost},
		{"Paimon08ProducerLookup", map[string]string{"changelog.time-retained": "7 d", "changelog-producer": "LOOKUP"}, paimon.Options{PaimonVersion: "0.8"}, kept},
		{"Paimon09ProducerNone", map[string]string{"changelog.time-retained": "7 d"}, paimon.Options{PaimonVersion: "0.9.0"}, kept},
		{"Paimon07HasNoLongLivedChangelogs", map[string]string{"changelog.time-retained": "7 d", "changelog-producer": "input"}, paimon.Options{PaimonVersion: "0.7"}, lost},
		// No version declared: the newest behaviour, said out loud where
		// 0.8 would grade differently.
		{"VersionAssumed", map[string]string{"changelog.time-retained": "7 d"}, paimon.Options{},
			want{g: resume.Replay, next: 3, decoupled: true, warnings: []resume.WarningCode{paimon.WarnVersionAssumed}}},
		// An option Paimon cannot parse: not decoupled, said out loud.
		{"UnreadableRetention", map[string]string{"changelog.time-retained": "a week"}, paimon.Options{},
			want{g: resume.DataLoss, next: 6, warnings: []resume.WarningCode{paimon.WarnOptionUnreadable, paimon.WarnChangelogIgnored}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, tb := newTable(t, 10, nil)
			if tc.schema != nil {
				tb.Schema(tc.schema).Commit(at(11))
			}
			tb.Consumer("job", 3).ExpireKeepChangelog(6)
			c, p := resolveBy(t, openTable(t, b, tb.Path(), nil), &tc.opts)
			if c.Guarantee != tc.want.g || p.NextSnapshot != tc.want.next || p.ChangelogDecoupled != tc.want.decoupled {
				t.Fatalf("got %v next %d decoupled %v, want %v next %d decoupled %v\nreasons %q\nwarnings %q",
					c.Guarantee, p.NextSnapshot, p.ChangelogDecoupled, tc.want.g, tc.want.next, tc.want.decoupled, c.Reasons, c.Warnings)
			}
			for _, code := range tc.want.warnings {
				if !c.HasWarning(code) {
					t.Errorf("no %s warning: %q", code, c.Warnings)
				}
			}
			for _, code := range tc.want.absent {
				if c.HasWarning(code) {
					t.Errorf("unexpected %s warning: %q", code, c.Warnings)
				}
			}
			if (p.EarliestChangelog != 0) != tc.want.decoupled {
				t.Errorf("EarliestChangelog %d with decoupled %v", p.EarliestChangelog, tc.want.decoupled)
			}
		})
	}
}

// TestChangelogOptionsChangedAcrossSchemas: changelogs were kept while
// schema-1 decoupled them; ALTER TABLE ... RESET wrote schema-2 without.
// The newest schema decides: Paimon no longer reads them.
func TestChangelogOptionsChangedAcrossSchemas(t *testing.T) {
	b, tb := newTable(t, 10, map[string]string{"changelog.time-retained": "7 d", "consumer.expiration-time": "1 d"})
	tb.Consumer("job", 3).ExpireKeepChangelog(6)
	tb.AlterOptions(nil, "changelog.time-retained") // schema-2: consumer.expiration-time only
	if got := tb.Options(); len(got) != 1 || got["consumer.expiration-time"] != "1 d" || tb.SchemaID() != 2 {
		t.Fatalf("schema-%d options %v", tb.SchemaID(), got)
	}
	tbl := openTable(t, b, tb.Path(), nil)
	c, p := resolveBy(t, tbl, nil)
	if c.Guarantee != resume.DataLoss || p.NextSnapshot != 6 || p.ChangelogDecoupled || !c.HasWarning(paimon.WarnChangelogIgnored) {
		t.Fatalf("got %v next %d decoupled %v, want data-loss at 6 with %s\nwarnings %q", c.Guarantee, p.NextSnapshot, p.ChangelogDecoupled, paimon.WarnChangelogIgnored, c.Warnings)
	}
	if !hasSub(c.Reasons, "schema-2") {
		t.Errorf("the options do not come from schema-2: %q", c.Reasons)
	}
	// schema-3 sets it again: the changelogs are read again.
	tb.AlterOptions(map[string]string{"changelog.time-retained": "3 d"})
	c, p = resolveBy(t, tbl, &paimon.Options{PaimonVersion: "1.4"})
	if c.Guarantee != resume.Replay || p.NextSnapshot != 3 || !p.ChangelogDecoupled || c.HasWarning(paimon.WarnChangelogIgnored) {
		t.Fatalf("schema-3: got %v next %d decoupled %v\nwarnings %q", c.Guarantee, p.NextSnapshot, p.ChangelogDecoupled, c.Warnings)
	}
}

// TestStartByTimeChangelogsNotDecoupled: without a consumer, a start by
// time before every snapshot reads changelogs only when the options say
// so; otherwise it starts at the earliest snapshot.
func TestStartByTimeChangelogsNotDecoupled(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts map[string]string
		next int64
		g    resume.Guarantee
		code resume.WarningCode
	}{
		{"NotDecoupled", nil, 6, resume.DataLoss, paimon.WarnChangelogIgnored},
		{"Decoupled", decoupled, 4, resume.Replay, paimon.WarnChangelogOnlyStart},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, tb := newTable(t, 10, nil)
			tb.ExpireKeepChangelog(6)
			c, p := resolveBy(t, openTable(t, b, tb.Path(), nil), &paimon.Options{StartTime: at(3).Add(30e9), TableOptions: tc.opts, PaimonVersion: "1.4"})
			if c.Guarantee != tc.g || p.NextSnapshot != tc.next || !c.HasWarning(tc.code) {
				t.Fatalf("got %v next %d, want %v next %d with %s\nwarnings %q", c.Guarantee, p.NextSnapshot, tc.g, tc.next, tc.code, c.Warnings)
			}
		})
	}
}
