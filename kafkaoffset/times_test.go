package kafkaoffset_test

import (
	"testing"
	"time"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
	"github.com/resumekit/resumekit/resume"
)

// TestResolveFutureRecordTime: the record before the commit carries a
// producer-set CreateTime five years ahead; At counts it as now, and says
// so.
func TestResolveFutureRecordTime(t *testing.T) {
	now := base.Add(time.Hour)
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{{Name: "t", Partitions: 2}}})
	k.Produce("t", 0, base, base.Add(5*365*24*time.Hour), base.Add(time.Second))
	k.Produce("t", 1, base, base.Add(time.Second))
	k.Commit("job", "t", map[int32]int64{0: 2, 1: 2})
	c, p := resolve(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: func() time.Time { return now }})
	// Partition 1's record (base+1s) is older than now: At is it, not the
	// future time and not now.
	if want := base.Add(time.Second); !c.At.Equal(want) || c.Guarantee != resume.Replay || p.Partitions[0].Offset != 2 {
		t.Errorf("At %s %s offset %d, want %s replay 2", c.At, c.Guarantee, p.Partitions[0].Offset, want)
	}
	contains(t, "warnings", c.Warnings, "kafka.future-time: 1 partitions have a commit or record time after now", "t/0 (CreateTime of the record before the commit 2031-11-28T10:00:00Z)")

	// Alone, the future time counts as now.
	k.Commit("job2", "t", map[int32]int64{0: 2})
	c, _ = resolve(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job2", Now: func() time.Time { return now }})
	if !c.At.Equal(now) || !c.HasWarning(kafkaoffset.WarnFutureTime) {
		t.Errorf("At %s, want now %s; warnings %v", c.At, now, c.Warnings)
	}
}

// TestResolveLogAppendTime: on a LogAppendTime topic the record before the
// commit carries the broker's clock, whatever the producer set.
func TestResolveLogAppendTime(t *testing.T) {
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{{Name: "t", LogAppendTime: true}}})
	before := time.Now().Truncate(time.Millisecond)
	a := k.Produce("t", 0, base, base.Add(time.Second), base.Add(2*time.Second)) // producer times ignored
	after := time.Now()
	if a.First != 0 || a.Next != 3 || a.LogAppendTime.Before(before) || a.LogAppendTime.After(after) {
		t.Fatalf("appended %+v, want offsets 0..2 stamped between %s and %s", a, before, after)
	}
	k.Commit("job", "t", map[int32]int64{0: 2})
	c, _ := resolve(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: func() time.Time { return after.Add(time.Minute) }})
	if !c.At.Equal(a.LogAppendTime) {
		t.Errorf("At %s, want the broker's append time %s", c.At, a.LogAppendTime)
	}
	contains(t, "reasons", c.Reasons, "(read for 1 partitions; LogAppendTime, the broker's clock)")
	if c.HasWarning(kafkaoffset.WarnFutureTime) {
		t.Errorf("future-time warning: %v", c.Warnings)
	}
}

// TestResolvePrefersCommitTime: with the group's commit records readable,
// At is the commit time even when the record before the commit claims a
// CreateTime years ahead.
func TestResolvePrefersCommitTime(t *testing.T) {
	now := base.Add(time.Hour)
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{CommitLog: true, Topics: []kafkaoffsettest.Topic{{Name: "t"}}})
	k.Produce("t", 0, base, base.Add(5*365*24*time.Hour), base.Add(time.Second))
	k.CommitAt(base.Add(10*time.Minute), "job", "t", map[int32]int64{0: 2})
	c, _ := resolve(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: func() time.Time { return now }})
	if want := base.Add(10 * time.Minute); !c.At.Equal(want) || c.HasWarning(kafkaoffset.WarnFutureTime) {
		t.Errorf("At %s, want the commit time %s; warnings %v", c.At, want, c.Warnings)
	}
}
