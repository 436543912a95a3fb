package kafkaoffset_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
	"github.com/resumekit/resumekit/resume"
)

// TestResolveOpenTransaction: records 0..4 are plain, 5..9 belong to a
// transaction an exactly-once producer left open (last stable offset 5,
// high watermark 10). A read_committed job started at 7 or 10 would never
// read 5.. once the transaction commits: every start above the LSO is
// lowered to it, and the candidate says why.
func TestResolveOpenTransaction(t *testing.T) {
	now := base.Add(time.Hour)
	setup := func(t *testing.T) (*kafkaoffsettest.Cluster, *kafkaoffsettest.Transaction) {
		k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{{Name: "t"}}})
		k.Produce("t", 0, secs(0, 5)...)
		tx := k.BeginTransaction("sink-0")
		tx.Produce("t", 0, secs(5, 5)...)
		if start, end, lso := k.Offsets("t", 0); start != 0 || end != 10 || lso != 5 {
			t.Fatalf("log %d..%d, LSO %d; want 0..10, LSO 5", start, end, lso)
		}
		return k, tx
	}
	type want struct {
		Offset    int64
		From      kafkaoffset.OffsetSource
		Lowered   bool
		Stable    int64
		Guarantee resume.Guarantee
	}
	check := func(t *testing.T, k *kafkaoffsettest.Cluster, o *kafkaoffset.Options, w want) resume.Candidate {
		t.Helper()
		o.Now = func() time.Time { return now }
		r := newResolver(t, k.Client, []string{"t"}, o)
		res, err := r.Offsets(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Grade(res)
		if err != nil {
			t.Fatal(err)
		}
		got := want{res[0].Offset, res[0].From, res[0].LoweredToStable, res[0].LastStable, c.Guarantee}
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("(-want +got):\n%s\nreason: %s", diff, res[0].Reason)
		}
		p, _ := kafkaoffset.PositionOf(c.Position)
		if w.Stable >= 0 && (p.Partitions[0].LastStable == nil || *p.Partitions[0].LastStable != w.Stable) {
			t.Errorf("position last_stable %v, want %d", p.Partitions[0].LastStable, w.Stable)
		}
		return c
	}

	// A start lowered to the LSO launches with specific offsets: a launch
	// by time would have Flink's timestamp initializer look the time up
	// again and start above the open transaction.
	specific := func(offsets string) map[string]string {
		return map[string]string{"scan.startup.mode": "specific-offsets", "scan.startup.specific-offsets": offsets}
	}
	byTime := func(at time.Time) map[string]string {
		return map[string]string{"scan.startup.mode": "timestamp", "scan.startup.timestamp-millis": itoa(at.UnixMilli())}
	}
	launch := func(t *testing.T, c resume.Candidate, want map[string]string) {
		t.Helper()
		if diff := cmp.Diff(want, c.Position.Launch().Options); diff != "" {
			t.Errorf("launch options (-want +got):\n%s", diff)
		}
	}

	t.Run("ByTimeAboveStable", func(t *testing.T) {
		k, _ := setup(t)
		c := check(t, k, &kafkaoffset.Options{At: base.Add(7 * time.Second)}, want{5, kafkaoffset.FromTime, true, 5, resume.Replay})
		if !c.HasWarning(kafkaoffset.WarnOpenTransaction) {
			t.Errorf("no %s warning: %v", kafkaoffset.WarnOpenTransaction, c.Warnings)
		}
		contains(t, "reasons", c.Reasons, "assume a read_committed reader", "lowered on 1 partitions: t/0 (to 5, high watermark 10)",
			"not by time", "t/0 (by time 7, lowered to 5)")
		contains(t, "warnings", c.Warnings, "t/0 (LSO 5, high watermark 10)")
		launch(t, c, specific("partition:0,offset:5"))
	})
	t.Run("EndAboveStable", func(t *testing.T) {
		k, _ := setup(t)
		c := check(t, k, &kafkaoffset.Options{At: base.Add(time.Minute)}, want{5, kafkaoffset.FromEnd, true, 5, resume.Replay})
		contains(t, "reasons", c.Reasons, "t/0 (at the end offset, lowered to 5)")
		launch(t, c, specific("partition:0,offset:5"))
	})
	t.Run("SeveralTopicsAboveStable", func(t *testing.T) {
		// With several topics the specific offsets have no SQL option:
		// no launch, the several-topics warning, never a launch by time.
		k, _ := setup(t)
		k.CreateTopic(kafkaoffsettest.Topic{Name: "u"})
		k.Produce("u", 0, secs(0, 10)...)
		o := &kafkaoffset.Options{At: base.Add(7 * time.Second), Now: func() time.Time { return now }}
		c, err := newResolver(t, k.Client, []string{"t", "u"}, o).Resolve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		p, _ := kafkaoffset.PositionOf(c.Position)
		if p.Mode != kafkaoffset.ModeSpecificOffsets || !c.Position.Launch().IsZero() || !c.HasWarning(kafkaoffset.WarnSeveralTopics) {
			t.Errorf("mode %s launch %+v warnings %v", p.Mode, c.Position.Launch(), c.Warnings)
		}
		if got := offsets(p); !slices.Equal(got, []int64{5, 7}) {
			t.Errorf("offsets %v, want [5 7]", got)
		}
	})
	t.Run("ByTimeBelowStable", func(t *testing.T) {
		// Nothing lowered: the timestamp initializer lands on 3 as well.
		k, _ := setup(t)
		c := check(t, k, &kafkaoffset.Options{At: base.Add(3 * time.Second)}, want{3, kafkaoffset.FromTime, false, 5, resume.Replay})
		launch(t, c, byTime(base.Add(3*time.Second)))
	})
	t.Run("CommitAboveStable", func(t *testing.T) {
		// A read_uncommitted old job read into the transaction.
		k, _ := setup(t)
		k.Commit("job", "t", map[int32]int64{0: 8})
		check(t, k, &kafkaoffset.Options{Group: "job"}, want{5, kafkaoffset.FromCommit, true, 5, resume.Replay})
	})
	t.Run("ReadUncommitted", func(t *testing.T) {
		// The caller says the new job reads uncommitted: the LSO is
		// neither listed nor applied, and the reason says so.
		k, _ := setup(t)
		c := check(t, k, &kafkaoffset.Options{At: base.Add(7 * time.Second), IsolationLevel: kafkaoffset.ReadUncommitted}, want{7, kafkaoffset.FromTime, false, -1, resume.Replay})
		contains(t, "reasons", c.Reasons, "assume a read_uncommitted reader")
		launch(t, c, byTime(base.Add(7*time.Second)))
		p, _ := kafkaoffset.PositionOf(c.Position)
		if p.IsolationLevel != kafkaoffset.ReadUncommitted || p.Partitions[0].LastStable != nil {
			t.Errorf("position isolation %q last_stable %v", p.IsolationLevel, p.Partitions[0].LastStable)
		}
	})
	t.Run("Committed", func(t *testing.T) {
		// Once the transaction commits (its marker is offset 10), the LSO
		// is the high watermark and nothing is lowered.
		k, tx := setup(t)
		tx.Commit()
		c := check(t, k, &kafkaoffset.Options{At: base.Add(7 * time.Second)}, want{7, kafkaoffset.FromTime, false, 11, resume.Replay})
		if c.HasWarning(kafkaoffset.WarnOpenTransaction) {
			t.Errorf("open-transaction warning after the commit: %v", c.Warnings)
		}
		launch(t, c, byTime(base.Add(7*time.Second)))
	})
	t.Run("Aborted", func(t *testing.T) {
		// Aborted: a read_committed reader skips 5..9 wherever it
		// starts; the LSO moved past them and nothing is lowered.
		k, tx := setup(t)
		tx.Abort()
		check(t, k, &kafkaoffset.Options{At: base.Add(7 * time.Second)}, want{7, kafkaoffset.FromTime, false, 11, resume.Replay})
	})
}
