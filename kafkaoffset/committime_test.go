package kafkaoffset_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
	"github.com/resumekit/resumekit/resume"
)

// commitTimesCluster: topic "t" with records at base+0s..4s; group "job"
// committed 3 at base+10m. With commitLog the commit also lands in
// __consumer_offsets; kfake alone has no such topic.
func commitTimesCluster(t *testing.T, commitLog bool, logPartitions int32) *kafkaoffsettest.Cluster {
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{{Name: "t"}}, CommitLog: commitLog, CommitLogPartitions: logPartitions})
	k.Produce("t", 0, secs(0, 5)...)
	k.CommitAt(base.Add(10*time.Minute), "job", "t", map[int32]int64{0: 3})
	return k
}

// TestResolveCommitTimes: the group's commit records give the commit time,
// the better At and the group's last commit; when they cannot be read, At
// falls back to the record before the commit and the reason says why.
func TestResolveCommitTimes(t *testing.T) {
	now := func() time.Time { return base.Add(time.Hour) }
	recordTime := base.Add(2 * time.Second) // the record before offset 3
	t.Run("FromCommitLog", func(t *testing.T) {
		k := commitTimesCluster(t, true, 0)
		r := newResolver(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: now})
		res, err := r.Offsets(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res[0].CommitMillis != base.Add(10*time.Minute).UnixMilli() || res[0].PrevMillis != -1 || res[0].Offset != 3 {
			t.Errorf("commit %d, prev %d, offset %d", res[0].CommitMillis, res[0].PrevMillis, res[0].Offset)
		}
		c, err := r.Grade(res)
		if err != nil {
			t.Fatal(err)
		}
		if want := base.Add(10 * time.Minute); !c.At.Equal(want) || c.Guarantee != resume.Replay {
			t.Errorf("At %s %s, want %s replay", c.At, c.Guarantee, want)
		}
		contains(t, "reasons", c.Reasons, `group "job"'s commit records in __consumer_offsets: the last commit was at 2026-11-29T10:10:00Z, 50m0s before now`,
			"At is the oldest of the commit times of the group's commit records (read for 1 partitions")
	})
	t.Run("NotMaterialised", func(t *testing.T) {
		// kfake keeps group offsets in memory: no __consumer_offsets.
		k := commitTimesCluster(t, false, 0)
		c, _ := resolve(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: now})
		if !c.At.Equal(recordTime) || c.Guarantee != resume.Replay {
			t.Errorf("At %s %s, want %s replay", c.At, c.Guarantee, recordTime)
		}
		contains(t, "reasons", c.Reasons, `group "job"'s last commit time is unknown: topic __consumer_offsets is not readable by this client: UNKNOWN_TOPIC_OR_PARTITION`,
			"the timestamps of the records just before the committed offsets (read for 1 partitions; CreateTime, set by the producer)")
	})
	t.Run("FetchDenied", func(t *testing.T) {
		k := commitTimesCluster(t, true, 0)
		k.Kafka.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Fetch}, Topic: kafkaoffset.ConsumerOffsetsTopic, Err: kerr.TopicAuthorizationFailed, Count: -1})
		c, _ := resolve(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: now})
		if !c.At.Equal(recordTime) {
			t.Errorf("At %s, want the record time %s", c.At, recordTime)
		}
		contains(t, "reasons", c.Reasons, "last commit time is unknown: __consumer_offsets partition", "TOPIC_AUTHORIZATION_FAILED")
	})
	t.Run("Skipped", func(t *testing.T) {
		k := commitTimesCluster(t, true, 0)
		c, _ := resolve(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: now, SkipCommitTimes: true})
		if !c.At.Equal(recordTime) {
			t.Errorf("At %s, want the record time %s", c.At, recordTime)
		}
		contains(t, "reasons", c.Reasons, "not read from __consumer_offsets (Options.SkipCommitTimes)")
	})
	t.Run("Tombstone", func(t *testing.T) {
		k := commitTimesCluster(t, true, 0)
		k.DeleteCommit("job", "t", 0)
		c, _ := resolve(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: now})
		if !c.At.Equal(recordTime) {
			t.Errorf("At %s, want the record time %s", c.At, recordTime)
		}
		contains(t, "reasons", c.Reasons, "the newest commit record is a tombstone")
	})
	t.Run("OlderThanTheScanReaches", func(t *testing.T) {
		// One partition of __consumer_offsets, the group's record at
		// offset 0 under 5,000 records of other groups; two Fetch
		// requests read back 1,024 + 2,048 offsets and stop.
		k := commitTimesCluster(t, true, 1)
		others := make([]kafkaoffsettest.Record, 5000)
		for i := range others {
			others[i] = kafkaoffsettest.Record{Key: kafkaoffsettest.CommitKey(fmt.Sprintf("other-%d", i), "x", 0), Value: kafkaoffsettest.CommitValue(int64(i), base), Time: base}
		}
		k.ProduceRecords(kafkaoffset.ConsumerOffsetsTopic, 0, others...)
		fe := observe(&env{c: k.Kafka}, kmsg.Fetch)
		r := newResolver(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: now, SkipRecordTimes: true})
		kafkaoffset.SetCommitLogFetches(r, 2)
		c, err := r.Resolve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if fe.total() != 2 {
			t.Errorf("%d Fetch requests, want 2", fe.total())
		}
		if !c.At.IsZero() {
			t.Errorf("At %s, want unknown", c.At)
		}
		contains(t, "reasons", c.Reasons, "no commit record in the newest 3072 records read (2 Fetch requests, the most it reads)")
	})
	t.Run("FoundDeepInTheLog", func(t *testing.T) {
		// The same log with the default bound: found, 5,001 offsets back.
		k := commitTimesCluster(t, true, 1)
		others := make([]kafkaoffsettest.Record, 5000)
		for i := range others {
			others[i] = kafkaoffsettest.Record{Key: kafkaoffsettest.CommitKey("other", "x", int32(i)), Value: kafkaoffsettest.CommitValue(1, base), Time: base}
		}
		k.ProduceRecords(kafkaoffset.ConsumerOffsetsTopic, 0, others...)
		c, _ := resolve(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: now})
		if want := base.Add(10 * time.Minute); !c.At.Equal(want) {
			t.Errorf("At %s, want the commit time %s", c.At, want)
		}
	})
	t.Run("BehindAnOpenTransaction", func(t *testing.T) {
		// Another application's exactly-once producer has a transaction
		// open in the group's partition of __consumer_offsets (its
		// sendOffsetsToTransaction) after the group's commit: a
		// read_committed Fetch stops at its first record. The commit
		// below it is read; the reading stops there without an error.
		k := commitTimesCluster(t, true, 0)
		tx := k.BeginTransaction("other-app")
		tx.Produce(kafkaoffset.ConsumerOffsetsTopic, kafkaoffset.GroupPartition("job", 50), base.Add(20*time.Minute))
		r := newResolver(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: now, SkipRecordTimes: true})
		res, err := r.Offsets(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res[0].CommitMillis != base.Add(10*time.Minute).UnixMilli() || res[0].CommitTimeErr != nil || res[0].Offset != 3 {
			t.Fatalf("commit time %d (%v), offset %d; want the commit at %s", res[0].CommitMillis, res[0].CommitTimeErr, res[0].Offset, base.Add(10*time.Minute))
		}
		c, err := r.Grade(res)
		if err != nil {
			t.Fatal(err)
		}
		if want := base.Add(10 * time.Minute); !c.At.Equal(want) || c.Guarantee != resume.Replay {
			t.Errorf("At %s %s, want %s replay", c.At, c.Guarantee, want)
		}
		contains(t, "reasons", c.Reasons, "the last commit was at 2026-11-29T10:10:00Z",
			"as far as read: in __consumer_offsets partition 5 the records from offset 1 on (end 2) are behind an open transaction")
	})
	t.Run("HiddenBehindAnOpenTransaction", func(t *testing.T) {
		// The transaction opened before the group's newest commit (4):
		// only the older commit (3) can be read, which is not proof that
		// the group committed during the lookup: the time is unknown, the
		// lookup does not fail.
		k := commitTimesCluster(t, true, 0)
		tx := k.BeginTransaction("other-app")
		tx.Produce(kafkaoffset.ConsumerOffsetsTopic, kafkaoffset.GroupPartition("job", 50), base.Add(20*time.Minute))
		k.CommitAt(base.Add(30*time.Minute), "job", "t", map[int32]int64{0: 4})
		r := newResolver(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: now, SkipRecordTimes: true})
		res, err := r.Offsets(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res[0].CommitMillis != -1 || res[0].Offset != 4 || res[0].CommitTimeErr == nil || !strings.Contains(res[0].CommitTimeErr.Error(), "open transaction") {
			t.Fatalf("commit time %d (%v), offset %d; want unknown behind an open transaction, offset 4", res[0].CommitMillis, res[0].CommitTimeErr, res[0].Offset)
		}
	})
	t.Run("CommittedWhileLookedUp", func(t *testing.T) {
		// The newest commit record holds 4 while OffsetFetch answered 3:
		// the group committed during the lookup.
		k := commitTimesCluster(t, true, 0)
		k.ProduceRecords(kafkaoffset.ConsumerOffsetsTopic, kafkaoffset.GroupPartition("job", 50),
			kafkaoffsettest.Record{Key: kafkaoffsettest.CommitKey("job", "t", 0), Value: kafkaoffsettest.CommitValue(4, base.Add(11*time.Minute)), Time: base})
		_, err := newResolver(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: now}).Resolve(context.Background())
		if !errors.Is(err, kafkaoffset.ErrStillCommitting) || !strings.Contains(err.Error(), "t/0 3→4") {
			t.Errorf("err = %v, want ErrStillCommitting naming t/0 3→4", err)
		}
	})
}

// TestResolveObservationWindowCommitTimes: the window's wording does not
// claim proof, and a commit record inside the window fails even when the
// offsets did not move (a running idle job re-commits them).
func TestResolveObservationWindowCommitTimes(t *testing.T) {
	now := base.Add(time.Hour)
	clock := func() time.Time { return now }
	t.Run("RecommitInsideWindow", func(t *testing.T) {
		k := commitTimesCluster(t, true, 0)
		r := newResolver(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: clock, ObserveWindow: 10 * time.Second,
			Wait: func(ctx context.Context, d time.Duration) error {
				k.CommitAt(now.Add(5*time.Second), "job", "t", map[int32]int64{0: 3}) // same offset
				return nil
			}})
		_, err := r.Resolve(context.Background())
		if !errors.Is(err, kafkaoffset.ErrStillCommitting) || !strings.Contains(err.Error(), "committed inside the 10s observation window") || !strings.Contains(err.Error(), "t/0 at 2026-11-29T11:00:05Z") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("QuietWindow", func(t *testing.T) {
		k := commitTimesCluster(t, true, 0)
		c, p := resolve(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: clock, ObserveWindow: 10 * time.Second,
			Wait: func(context.Context, time.Duration) error { return nil }})
		if c.Guarantee != resume.Replay || p.Partitions[0].Offset != 3 {
			t.Errorf("%s from %d", c.Guarantee, p.Partitions[0].Offset)
		}
		contains(t, "reasons", c.Reasons, "did not move during a 10s observation window; that proves nothing about a job whose checkpoint interval is longer than 10s",
			"no commit record falls inside the window (the last is at 2026-11-29T10:10:00Z)")
	})
	t.Run("QuietWindowBehindAnOpenTransaction", func(t *testing.T) {
		// A commit record may hide behind another application's open
		// transaction: the window's reason says it read only so far.
		k := commitTimesCluster(t, true, 0)
		k.BeginTransaction("other-app").Produce(kafkaoffset.ConsumerOffsetsTopic, kafkaoffset.GroupPartition("job", 50), base.Add(20*time.Minute))
		c, p := resolve(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: clock, ObserveWindow: 10 * time.Second,
			Wait: func(context.Context, time.Duration) error { return nil }})
		if c.Guarantee != resume.Replay || p.Partitions[0].Offset != 3 {
			t.Errorf("%s from %d", c.Guarantee, p.Partitions[0].Offset)
		}
		contains(t, "reasons", c.Reasons, "no commit record read falls inside the window (the last read is at 2026-11-29T10:10:00Z), but in __consumer_offsets partition 5 the records from offset 1 on")
	})
	t.Run("IdleIndistinguishable", func(t *testing.T) {
		// Every commit at the end offset: offsets cannot tell a running
		// idle job from a stopped one; the last commit time narrows it.
		k := commitTimesCluster(t, true, 0)
		k.CommitAt(base.Add(20*time.Minute), "job", "t", map[int32]int64{0: 5})
		c, p := resolve(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: clock})
		if c.Guarantee != resume.Replay || p.Partitions[0].Offset != 5 || !c.HasWarning(kafkaoffset.WarnIdleIndistinguishable) {
			t.Errorf("%s from %d, warnings %v", c.Guarantee, p.Partitions[0].Offset, c.Warnings)
		}
		contains(t, "warnings", c.Warnings, "a running idle job cannot be told apart from a stopped one",
			"its last commit record is at 2026-11-29T10:20:00Z, 40m0s before now: only a job whose checkpoint interval is longer than that can still be running")
	})
	t.Run("NotIdle", func(t *testing.T) {
		k := commitTimesCluster(t, true, 0)
		c, _ := resolve(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: clock})
		if c.HasWarning(kafkaoffset.WarnIdleIndistinguishable) {
			t.Errorf("idle warning with records after the commit: %v", c.Warnings)
		}
	})
}

// TestResolveGroupWithMembers: KafkaSource never joins its group, so a
// member means another application shares the group id: a typed error,
// before any offset is listed.
func TestResolveGroupWithMembers(t *testing.T) {
	k := commitTimesCluster(t, false, 0)
	member := k.JoinGroup("job")
	lo := observe(&env{c: k.Kafka}, kmsg.ListOffsets)
	_, err := newResolver(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", At: base}).Resolve(context.Background())
	var gm *kafkaoffset.GroupMembersError
	if !errors.As(err, &gm) || !errors.Is(err, kafkaoffset.ErrGroupNotEmpty) {
		t.Fatalf("err = %v, want a *GroupMembersError", err)
	}
	if gm.Group != "job" || len(gm.Members) != 1 || !strings.Contains(err.Error(), "another application shares the group id") {
		t.Errorf("err = %v (%+v), member %s", err, gm, member)
	}
	if n := lo.total(); n != 0 {
		t.Errorf("%d ListOffsets requests, want none", n)
	}
	// Another group of the same cluster is unaffected.
	k.Commit("job-2", "t", map[int32]int64{0: 1})
	if _, p := resolve(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job-2"}); p.Partitions[0].Offset != 1 {
		t.Errorf("offset %d", p.Partitions[0].Offset)
	}
}
