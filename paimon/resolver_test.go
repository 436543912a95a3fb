package paimon_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
)

func at(i int) time.Time { return t0.Add(time.Duration(i-1) * time.Minute) } // commit time of snapshot i

// decoupled are table options under which Paimon reads long-lived
// changelogs: changelog.time-retained 7 d > snapshot.time-retained 1 h.
var decoupled = map[string]string{"changelog.time-retained": "7 d"}

func TestResolve(t *testing.T) {
	future := tNow.Add(time.Hour) // after the consumer file's time
	type want struct {
		g        resume.Guarantee
		next     int64
		at       time.Time
		options  map[string]string
		warnings []string // substrings, each must appear in some warning
		absent   []resume.WarningCode
		err      string // substring of the error; set for failures
		errIs    error
	}
	for _, tc := range []struct {
		name  string
		build func(t *testing.T, tb *paimontest.Table)
		opts  paimon.Options
		want  want
	}{
		{
			// The old job may have read on past its consumer file (the file
			// is written on a completed checkpoint, apart from the sink's
			// commit): snapshots 7..10 may be read again.
			name:  "ConsumerPresent",
			build: func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 7) },
			want: want{g: resume.Replay, next: 7, at: at(6), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "7"},
				warnings: []string{"paimon.no-state-restore: start the job without -s", "paimon.consumer-lags-output: duplicates possible: snapshots 7..10 may be read again", "nothing below snapshot-7 is lost"},
				absent:   []resume.WarningCode{paimon.WarnWrittenModeAssumed}},
		},
		{
			name:  "PythonStyleConsumer",
			build: func(t *testing.T, tb *paimontest.Table) { tb.ConsumerPython("job", 3) },
			want:  want{g: resume.Replay, next: 3, at: at(2), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "3"}},
		},
		{
			name: "AtLeastOnceFromTableOption",
			build: func(t *testing.T, tb *paimontest.Table) {
				tb.Schema(map[string]string{"consumer.mode": "at-least-once"}).Commit(at(11)).Consumer("job", 7)
			},
			want: want{g: resume.Replay, next: 7, at: at(6), options: map[string]string{"consumer-id": "job", "consumer.mode": "at-least-once", "scan.snapshot-id": "7"}},
		},
		{
			// Options.Mode is the new job's mode: the launch only. The old
			// job's mode is unknown, so exactly-once is assumed, out loud,
			// where it decides the grade (a caught-up consumer).
			name:  "AtLeastOnceNewJobOnly",
			build: func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 11) },
			opts:  paimon.Options{Mode: "at-least-once"},
			want: want{g: resume.ExactInput, next: 11, at: at(10), options: map[string]string{"consumer-id": "job", "consumer.mode": "at-least-once", "scan.snapshot-id": "11"},
				warnings: []string{"paimon.written-mode-assumed: assumed: the old job wrote the consumer file in exactly-once mode"}},
		},
		{
			name:  "AtLeastOnceWritten",
			build: func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 7) },
			opts:  paimon.Options{WrittenMode: "AT-LEAST-ONCE"},
			want: want{g: resume.Replay, next: 7, at: at(6), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "7"},
				warnings: []string{"paimon.consumer-lags-output: duplicates possible: snapshots 7..10"}},
		},
		{
			// Nothing at or above 11 exists: the old job emitted nothing
			// past its consumer file.
			name:  "CaughtUp",
			build: func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 11) },
			want: want{g: resume.ExactInput, next: 11, at: at(10), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "11"},
				warnings: []string{"paimon.written-mode-assumed: "}, absent: []resume.WarningCode{paimon.WarnConsumerLagsOutput}},
		},
		{
			name:  "CaughtUpAtLeastOnce",
			build: func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 11) },
			opts:  paimon.Options{WrittenMode: "at-least-once"},
			want: want{g: resume.Replay, next: 11, at: at(10), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "11"},
				absent: []resume.WarningCode{paimon.WarnConsumerLagsOutput, paimon.WarnWrittenModeAssumed}},
		},
		{
			// One snapshot past the consumer: the bound names it alone.
			name:  "OneBehind",
			build: func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 10) },
			opts:  paimon.Options{WrittenMode: "exactly-once"},
			want: want{g: resume.Replay, next: 10, at: at(9), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "10"},
				warnings: []string{"paimon.consumer-lags-output: duplicates possible: snapshot-10 may be read again"}},
		},
		{
			name:  "BehindEarliest",
			build: func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 2).ExpireBefore(5) },
			want: want{g: resume.DataLoss, next: 5, at: at(5), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "5"},
				warnings: []string{"paimon.expired-before-read: data loss: snapshots 2..4 expired"},
				absent:   []resume.WarningCode{paimon.WarnConsumerLagsOutput, paimon.WarnWrittenModeAssumed}},
		},
		{
			name:  "BehindEarliestSnapshotButChangelogKept",
			build: func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 3).ExpireKeepChangelog(6) },
			opts:  paimon.Options{TableOptions: decoupled},
			want: want{g: resume.Replay, next: 3, at: at(2), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "3"},
				warnings: []string{"paimon.consumer-lags-output: duplicates possible: snapshots 3..10"}},
		},
		{
			name: "BehindChangelogToo",
			build: func(t *testing.T, tb *paimontest.Table) {
				tb.Consumer("job", 2).ExpireKeepChangelog(8).ExpireChangelogBefore(4)
			},
			opts: paimon.Options{TableOptions: decoupled},
			want: want{g: resume.DataLoss, next: 4, at: at(4), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "4"},
				warnings: []string{"snapshots 2..3 expired", "changelog-4"}},
		},
		{
			name:  "AheadOfLatest",
			build: func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 12) },
			want:  want{err: "latest snapshot is 10: the table was probably recreated"},
		},
		{
			name:  "MissingWithStartTime",
			build: func(t *testing.T, tb *paimontest.Table) {},
			opts:  paimon.Options{StartTime: at(4).Add(30 * time.Second)},
			want: want{g: resume.Replay, next: 5, at: at(4), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "5"},
				warnings: []string{"skips records if the old job lagged", "changes the Flink source operator", "bind the consumer before starting", "CALL sys.reset_consumer('default.t', 'job', 5)", "consumer.expiration-time is not set in the table's options"}},
		},
		{
			name:  "MissingWithStartTimeOnACommit",
			build: func(t *testing.T, tb *paimontest.Table) {},
			opts:  paimon.Options{StartTime: at(4)},
			want:  want{g: resume.Replay, next: 4, at: at(3), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "4"}},
		},
		{
			name:  "MissingWithStartTimeBeforeExpired",
			build: func(t *testing.T, tb *paimontest.Table) { tb.ExpireBefore(5) },
			opts:  paimon.Options{StartTime: at(2)},
			want: want{g: resume.DataLoss, next: 5, at: at(2), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "5"},
				warnings: []string{"possible loss: snapshots 1..4 expired and their commit times are unknown", "nothing is lost if id 4 was committed before"}},
		},
		{
			name:  "MissingWithStartTimeBeforeEverythingNothingExpired",
			build: func(t *testing.T, tb *paimontest.Table) {},
			opts:  paimon.Options{StartTime: at(1).Add(-time.Hour)},
			want:  want{g: resume.Replay, next: 1, at: at(1).Add(-time.Hour), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "1"}},
		},
		{
			name:  "MissingWithStartTimeInChangelogRange",
			build: func(t *testing.T, tb *paimontest.Table) { tb.ExpireKeepChangelog(6) },
			opts:  paimon.Options{StartTime: at(3).Add(30 * time.Second), TableOptions: decoupled},
			want: want{g: resume.Replay, next: 4, at: at(3), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "4"},
				warnings: []string{"exists only as a long-lived changelog"}},
		},
		{
			name:  "MissingWithStartTimeBeforeChangelogs",
			build: func(t *testing.T, tb *paimontest.Table) { tb.ExpireKeepChangelog(6).ExpireChangelogBefore(3) },
			opts:  paimon.Options{StartTime: at(1), TableOptions: decoupled},
			want: want{g: resume.DataLoss, next: 3, at: at(1), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "3"},
				warnings: []string{"possible loss: ids 1..2 (snapshots and long-lived changelogs) expired"}},
		},
		{
			name:  "MissingWithStartTimeAfterLatest",
			build: func(t *testing.T, tb *paimontest.Table) {},
			opts:  paimon.Options{StartTime: at(20)},
			want: want{g: resume.Replay, next: 11, at: at(10), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "11"},
				warnings: []string{"paimon.start-at-next-commit: ", "starts at the next commit, snapshot-11"}},
		},
		{
			name:  "LatestHintAheadOfSnapshots",
			build: func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 7).SetHint("LATEST", "15") },
			want:  want{g: resume.Replay, next: 7, at: at(6), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "7"}},
		},
		{
			name:  "LatestHintAheadByTime",
			build: func(t *testing.T, tb *paimontest.Table) { tb.SetHint("LATEST", "15") },
			opts:  paimon.Options{StartTime: at(9).Add(time.Second)},
			want:  want{g: resume.Replay, next: 10, at: at(9), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "10"}},
		},
		{
			name:  "MissingWithoutStartTime",
			build: func(t *testing.T, tb *paimontest.Table) {},
			want:  want{err: "consumer-job does not exist and no start time", errIs: resume.ErrNoPosition},
		},
		{
			name: "RollbackReusedIDs",
			build: func(t *testing.T, tb *paimontest.Table) {
				tb.Consumer("job", 9).RollbackTo(6).Commit(future, future.Add(time.Minute), future.Add(2*time.Minute))
			},
			// The consumer file is written at tNow, before the
			// re-commits at future times: snapshots 7 and 8 are new data.
			want: want{g: resume.DataLoss, next: 9, options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "7"},
				warnings: []string{"paimon.rollback-suspected: possible loss: snapshots 7..8 were committed after the consumer's last progress", "CALL sys.reset_consumer('default.t', 'job', 7)"},
				absent:   []resume.WarningCode{paimon.WarnConsumerLagsOutput, paimon.WarnWrittenModeAssumed}},
		},
		{
			name: "IdleBeyondExpiration",
			build: func(t *testing.T, tb *paimontest.Table) {
				tb.Schema(map[string]string{"consumer.expiration-time": "1 h"}).Commit(at(11)).Consumer("job", 7)
			},
			opts: paimon.Options{Now: func() time.Time { return tNow.Add(2 * time.Hour) }},
			want: want{g: resume.Replay, next: 7, at: at(6), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "7"},
				warnings: []string{"paimon.consumer-expired: ", "longer than consumer.expiration-time 1 h"}},
		},
		{
			name: "IdleCloseToExpiration",
			build: func(t *testing.T, tb *paimontest.Table) {
				tb.Schema(map[string]string{"consumer.expiration-time": "1 h"}).Commit(at(11)).Consumer("job", 7)
			},
			opts: paimon.Options{Now: func() time.Time { return tNow.Add(55 * time.Minute) }},
			want: want{g: resume.Replay, next: 7, at: at(6), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "7"},
				warnings: []string{"close to consumer.expiration-time 1 h"}},
		},
		{
			name:  "IgnoreProgressOverride",
			build: func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 7) },
			opts:  paimon.Options{TableOptions: map[string]string{"consumer.ignore-progress": "true"}},
			want: want{g: resume.Replay, next: 7, at: at(6), options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "7"},
				warnings: []string{"consumer.ignore-progress=true"}},
		},
		{
			name:  "ConsumerAtEarliestLastConsumedExpired",
			build: func(t *testing.T, tb *paimontest.Table) { tb.Consumer("job", 5).ExpireBefore(5) },
			// At is the consumer file's modification time (tNow).
			want: want{g: resume.Replay, next: 5, at: tNow, options: map[string]string{"consumer-id": "job", "scan.snapshot-id": "5"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, tb := newTable(t, 10, nil)
			tc.build(t, tb)
			tbl := openTable(t, b, tb.Path(), nil)
			r, err := paimon.NewResolver(tbl, "job", &tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			c, err := r.Resolve(bg)
			if tc.want.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want.err) {
					t.Fatalf("Resolve error = %v, want it to contain %q", err, tc.want.err)
				}
				if tc.want.errIs != nil && !errors.Is(err, tc.want.errIs) {
					t.Fatalf("Resolve error %v does not wrap %v", err, tc.want.errIs)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			p, err := paimon.PositionOf(c.Position)
			if err != nil {
				t.Fatal(err)
			}
			if c.Resolver != "paimon-consumer" || c.Guarantee != tc.want.g || p.NextSnapshot != tc.want.next {
				t.Errorf("got %s %v next %d, want %v next %d\nreasons: %q\nwarnings: %q", c.Resolver, c.Guarantee, p.NextSnapshot, tc.want.g, tc.want.next, c.Reasons, c.Warnings)
			}
			if !tc.want.at.IsZero() && !c.At.Equal(tc.want.at) {
				t.Errorf("At = %v, want %v", c.At, tc.want.at)
			}
			if c.At.IsZero() {
				t.Errorf("At is zero")
			}
			if diff := cmp.Diff(tc.want.options, c.Position.Launch().Options); diff != "" {
				t.Errorf("launch options (-want +got):\n%s", diff)
			}
			all := strings.Join(lines(c.Warnings), "\n")
			for _, w := range tc.want.warnings {
				if !strings.Contains(all, w) {
					t.Errorf("no warning contains %q; warnings:\n%s", w, all)
				}
			}
			for _, code := range tc.want.absent {
				if c.HasWarning(code) {
					t.Errorf("warning %s present; warnings:\n%s", code, all)
				}
			}
			if !strings.Contains(p.SQLHint, "'consumer-id'='job'") || !strings.HasPrefix(p.ResetConsumerSQL, "CALL sys.reset_consumer('default.t', 'job', ") {
				t.Errorf("texts: %q %q", p.SQLHint, p.ResetConsumerSQL)
			}
			if p.Earliest < 1 || p.Latest < p.Earliest || p.Table == "" || p.Branch != "main" || p.ConsumerID != "job" {
				t.Errorf("position fields: %+v", p)
			}
		})
	}
}

func TestResolveBranch(t *testing.T) {
	b, tb := newTable(t, 3, nil)
	br := tb.Branch("dev").CommitEvery(5, t0, time.Minute).Consumer("job", 4)
	_ = br
	tbl := openTable(t, b, tb.Path(), &paimon.TableOptions{Branch: "dev", ConsumerRetryInterval: -1})
	r, err := paimon.NewResolver(tbl, "job", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(bg)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := paimon.PositionOf(c.Position)
	if p.Branch != "dev" || p.NextSnapshot != 4 || p.Latest != 5 || !strings.Contains(p.ResetConsumerSQL, "'default.t$branch_dev'") {
		t.Errorf("branch position %+v", p)
	}
	// The main branch has no consumer.
	main := openTable(t, b, tb.Path(), nil)
	if _, err := main.Consumer(bg, "job"); !errors.Is(err, paimon.ErrConsumerNotFound) {
		t.Errorf("main branch consumer: %v", err)
	}
}

func TestNewResolverRefusesBadArguments(t *testing.T) {
	b, tb := newTable(t, 1, nil)
	tbl := openTable(t, b, tb.Path(), nil)
	for _, tc := range []struct {
		name string
		tbl  *paimon.Table
		id   string
		opts *paimon.Options
	}{
		{"NilTable", nil, "job", nil},
		{"SlashInID", tbl, "a/b", nil},
		{"DotDotID", tbl, "..", nil},
		{"ControlCharID", tbl, "a\x00b", nil},
		{"EmptyID", tbl, "", nil},
		{"UnknownMode", tbl, "job", &paimon.Options{Mode: "twice"}},
		{"UnknownModeOption", tbl, "job", &paimon.Options{TableOptions: map[string]string{"consumer.mode": "twice"}}},
		{"BadExpiration", tbl, "job", &paimon.Options{TableOptions: map[string]string{"consumer.expiration-time": "soon"}}},
		{"UnknownWrittenMode", tbl, "job", &paimon.Options{WrittenMode: "twice"}},
		{"VersionWord", tbl, "job", &paimon.Options{PaimonVersion: "latest"}},
		{"VersionMajorOnly", tbl, "job", &paimon.Options{PaimonVersion: "1"}},
		{"VersionZero", tbl, "job", &paimon.Options{PaimonVersion: "0.0"}},
		{"VersionTooManyParts", tbl, "job", &paimon.Options{PaimonVersion: "1.4.1.2"}},
		{"BadRetentionCount", tbl, "job", &paimon.Options{TableOptions: map[string]string{"changelog.num-retained.max": "many"}}},
		{"RetentionCountBeyondInt32", tbl, "job", &paimon.Options{TableOptions: map[string]string{"snapshot.num-retained.max": "2147483648"}}},
		{"BadRetentionTime", tbl, "job", &paimon.Options{TableOptions: map[string]string{"changelog.time-retained": "a week"}}},
		{"BadChangelogOnly", tbl, "job", &paimon.Options{TableOptions: map[string]string{"consumer.changelog-only": "yes"}}},
		{"BadIgnoreProgress", tbl, "job", &paimon.Options{TableOptions: map[string]string{"consumer.ignore-progress": "1"}}},
		{"BadChangelogProducer", tbl, "job", &paimon.Options{TableOptions: map[string]string{"changelog-producer": "always"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := paimon.NewResolver(tc.tbl, tc.id, tc.opts); err == nil {
				t.Error("NewResolver succeeded")
			}
		})
	}
}

// TestNewResolverAcceptsPaimonVersions: release numbers as people write
// them.
func TestNewResolverAcceptsPaimonVersions(t *testing.T) {
	b, tb := newTable(t, 1, nil)
	tbl := openTable(t, b, tb.Path(), nil)
	for _, v := range []string{"", "0.8", "0.8.2", "1.4.1", "1.5-SNAPSHOT", "2.0.0", "0.7"} {
		if _, err := paimon.NewResolver(tbl, "job", &paimon.Options{PaimonVersion: v}); err != nil {
			t.Errorf("%q: %v", v, err)
		}
	}
}

// TestResolveConcurrently: a built resolver is safe for concurrent use
// (run with -race) and gives the same answer each time.
func TestResolveConcurrently(t *testing.T) {
	b, tb := newTable(t, 50, nil)
	tb.Consumer("job", 20)
	tbl := openTable(t, b, tb.Path(), nil)
	r, _ := paimon.NewResolver(tbl, "job", &paimon.Options{StartTime: at(3)})
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			c, err := r.Resolve(bg)
			if err == nil {
				if p, _ := paimon.PositionOf(c.Position); p.NextSnapshot != 20 {
					err = errors.New("wrong position")
				}
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
