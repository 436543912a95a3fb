package kafkaoffset_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
	"github.com/resumekit/resumekit/resume"
)

func TestFaultLeaderNotAvailable(t *testing.T) {
	setup := func(t *testing.T) *env {
		e := newEnv(t, 2, 3, []string{"t"})
		for p := range int32(3) {
			e.produceN(t, "t", p, 3)
		}
		e.commit(t, "job", "t", map[int32]int64{0: 1, 1: 2, 2: 3})
		return e
	}
	t.Run("Recovered", func(t *testing.T) {
		e := setup(t)
		h := e.c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "t", Partitions: []int32{1}, Err: kerr.LeaderNotAvailable, Count: 2})
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job", Retries: 3})
		c, err := r.Resolve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Position.Launch().Options["scan.startup.specific-offsets"]; got != "partition:0,offset:1;partition:1,offset:2;partition:2,offset:3" {
			t.Errorf("specific offsets %q", got)
		}
		if h.Hits() != 2 {
			t.Errorf("fault answered %d requests, want 2", h.Hits())
		}
	})
	t.Run("Persistent", func(t *testing.T) {
		e := setup(t)
		h := e.c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "t", Partitions: []int32{1}, Err: kerr.LeaderNotAvailable, Count: -1})
		defer h.Remove()
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job", Retries: 2})
		res, err := r.Offsets(context.Background())
		if !errors.Is(err, kerr.LeaderNotAvailable) {
			t.Fatalf("err = %v, want LEADER_NOT_AVAILABLE", err)
		}
		if !strings.Contains(err.Error(), "1 of 3 partitions failed; t/1: list end offset (after 3 tries): LEADER_NOT_AVAILABLE") {
			t.Errorf("err = %v", err)
		}
		// The healthy partitions are still reported.
		if res[0].Err != nil || res[0].Offset != 1 || res[2].Offset != 3 || res[1].Err == nil {
			t.Errorf("partitions %+v", res)
		}
		// One first try and two retries, for the end offsets only: a
		// partition that failed is not asked again for anything else.
		if h.Hits() != 3 {
			t.Errorf("fault answered %d requests, want 3", h.Hits())
		}
		if _, err := r.Resolve(context.Background()); err == nil {
			t.Error("Resolve chose a start with a partition unlisted")
		}
	})
	t.Run("NotRetriable", func(t *testing.T) {
		e := setup(t)
		h := e.c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "t", Partitions: []int32{2}, Err: kerr.TopicAuthorizationFailed, Count: -1})
		defer h.Remove()
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job"})
		_, err := r.Offsets(context.Background())
		if !errors.Is(err, kerr.TopicAuthorizationFailed) || h.Hits() != 1 {
			t.Errorf("err = %v after %d requests, want TOPIC_AUTHORIZATION_FAILED at once", err, h.Hits())
		}
	})
}

func TestFaultOffsetFetch(t *testing.T) {
	setup := func(t *testing.T) *env {
		e := newEnv(t, 1, 1, []string{"t"}, kgo.RetryTimeout(time.Second))
		e.produceN(t, "t", 0, 3)
		e.commit(t, "job", "t", map[int32]int64{0: 2})
		return e
	}
	t.Run("CoordinatorLoadingRecovered", func(t *testing.T) {
		e := setup(t)
		h := e.c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetFetch}, Group: "job", Err: kerr.CoordinatorLoadInProgress, Count: 2})
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job"})
		c, err := r.Resolve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if p, _ := kafkaoffset.PositionOf(c.Position); p.Partitions[0].Offset != 2 || h.Hits() != 2 {
			t.Errorf("offset %d after %d faults", p.Partitions[0].Offset, h.Hits())
		}
	})
	t.Run("Denied", func(t *testing.T) {
		e := setup(t)
		h := e.c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetFetch}, Group: "job", Err: kerr.GroupAuthorizationFailed, Count: -1})
		defer h.Remove()
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job", At: base})
		_, err := r.Resolve(context.Background())
		// Never a silent fallback to the time: the group could not be read.
		if !errors.Is(err, kerr.GroupAuthorizationFailed) || !strings.Contains(err.Error(), `fetch offsets of group "job"`) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("PersistentlyUnavailable", func(t *testing.T) {
		e := setup(t)
		h := e.c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetFetch}, Group: "job", Err: kerr.CoordinatorLoadInProgress, Count: -1})
		defer h.Remove()
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job", Retries: 1})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, err := r.Resolve(ctx)
		t.Log(err)
		if err == nil || !strings.Contains(err.Error(), `fetch offsets of group "job"`) {
			t.Errorf("err = %v", err)
		}
	})
}

// TestFaultBrokerStops stops one of three brokers (it drops every
// connection) after the end offsets were listed: the partitions it leads
// fail with their broker named, the others are still listed, and nothing is
// chosen.
func TestFaultBrokerStops(t *testing.T) {
	e := newEnv(t, 3, 6, []string{"t"}, kgo.RequestRetries(2), kgo.RetryTimeout(2*time.Second), kgo.RetryBackoffFn(func(int) time.Duration { return 10 * time.Millisecond }))
	for p := range int32(6) {
		e.produceN(t, "t", p, 2)
	}
	e.commit(t, "job", "t", map[int32]int64{0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1})
	// The victim leads partitions but does not coordinate the group.
	victim := int32(-1)
	for p := range int32(6) {
		if l := e.c.LeaderFor("t", p); l != e.c.CoordinatorFor("job") {
			victim = l
		}
	}
	var stopped atomic.Bool
	e.c.Control(func(req kmsg.Request) (kmsg.Response, error, bool) {
		e.c.KeepControl()
		// The broker stops when the log start offsets are asked for,
		// after the end offsets were listed.
		if lr, ok := req.(*kmsg.ListOffsetsRequest); ok && len(lr.Topics) > 0 && len(lr.Topics[0].Partitions) > 0 && lr.Topics[0].Partitions[0].Timestamp == -2 {
			stopped.Store(true)
		}
		if stopped.Load() && e.c.CurrentNode() == victim {
			return nil, errors.New("broker stopped"), true
		}
		return nil, nil, false
	})
	r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job", SkipRecordTimes: true})
	res, err := r.Offsets(context.Background())
	if err == nil {
		t.Fatal("no error with a broker down")
	}
	var se *kadm.ShardErrors
	if !errors.As(err, &se) || se.AllFailed {
		t.Errorf("err = %v, want a partial *kadm.ShardErrors", err)
	}
	var pe *kafkaoffset.PartitionErrors
	if !errors.As(err, &pe) || len(pe.Errs) == 0 || len(pe.Errs) == 6 {
		t.Fatalf("err = %v, want some partitions failed", err)
	}
	failed := 0
	for _, p := range res {
		led := e.c.LeaderFor("t", p.Partition) == victim
		if led != (p.Err != nil) {
			t.Errorf("partition %d (led by the stopped broker: %v) err %v", p.Partition, led, p.Err)
		}
		if p.Err != nil {
			failed++
			if !strings.Contains(p.Err.Error(), "list log start offset: request") || !strings.Contains(p.Err.Error(), "broker") {
				t.Errorf("partition %d err %v", p.Partition, p.Err)
			}
		}
	}
	if failed != len(pe.Errs) {
		t.Errorf("%d partitions failed, error names %d", failed, len(pe.Errs))
	}
	if _, err := r.Resolve(context.Background()); err == nil {
		t.Error("Resolve chose a start with a broker down")
	}
}

// TestRequestCountBound checks the cost model: at most four ListOffsets
// requests per broker (end, last stable, log start, by time; three under
// read_uncommitted), one DescribeConfigs, one DescribeGroups, one
// OffsetFetch, and at most one Fetch per broker (record times) whatever the
// number of partitions; with a readable commit log, Fetch requests for the
// group's commit records (here one) and none for the records before the
// commits, still at most one per broker for the start records' times.
func TestRequestCountBound(t *testing.T) {
	ten := []string{"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"}
	for _, tc := range []struct {
		name      string
		parts     int32
		topics    []string
		isolation kafkaoffset.IsolationLevel
		commitLog bool
		listed    int // ListOffsets requests per broker
	}{
		{"OneTopic", 300, []string{"t"}, "", false, 4},
		{"TenTopics", 30, ten, "", false, 4},
		{"ReadUncommitted", 300, []string{"t"}, kafkaoffset.ReadUncommitted, false, 3},
		{"CommitLog", 300, []string{"t"}, "", true, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const brokers = 3
			var topics []kafkaoffsettest.Topic
			for _, name := range tc.topics {
				topics = append(topics, kafkaoffsettest.Topic{Name: name, Partitions: tc.parts})
			}
			k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Brokers: brokers, Topics: topics, CommitLog: tc.commitLog})
			for i, topic := range tc.topics {
				k.Produce(topic, int32(i)%tc.parts, base, base.Add(time.Second), base.Add(2*time.Second))
				offs := map[int32]int64{}
				for p := int32(0); p < tc.parts; p += 2 { // half the partitions have a commit
					offs[p] = 0
				}
				offs[int32(i)%tc.parts] = 2
				k.CommitAt(base.Add(time.Minute), "job", topic, offs)
			}
			e := &env{c: k.Kafka}
			lo, of, fe := observe(e, kmsg.ListOffsets), observe(e, kmsg.OffsetFetch), observe(e, kmsg.Fetch)
			dc, dg := observe(e, kmsg.DescribeConfigs), observe(e, kmsg.DescribeGroups)
			r, err := kafkaoffset.NewResolver(k.Client, tc.topics, &kafkaoffset.Options{Group: "job", At: base.Add(time.Second), IsolationLevel: tc.isolation})
			if err != nil {
				t.Fatal(err)
			}
			c, err := r.Resolve(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if c.Guarantee != resume.Replay {
				t.Errorf("guarantee %s", c.Guarantee)
			}
			if lo.max() > tc.listed {
				t.Errorf("%d ListOffsets requests to one broker, want at most %d", lo.max(), tc.listed)
			}
			// Every broker leads partitions; the commit log's partition
			// rides along in the end and log start requests.
			if lo.total() != tc.listed*brokers {
				t.Errorf("%d ListOffsets requests, want %d", lo.total(), tc.listed*brokers)
			}
			if of.total() != 1 || dc.total() != 1 || dg.total() != 1 {
				t.Errorf("OffsetFetch %d, DescribeConfigs %d, DescribeGroups %d requests, want 1 each", of.total(), dc.total(), dg.total())
			}
			if tc.commitLog {
				// The group's commit records are at the end of its
				// partition: one Fetch finds them all, and no record
				// before a commit is read; the start records' times (for
				// ValidUntil) take at most one Fetch per broker.
				if fe.total() > 1+brokers || fe.max() > 2 {
					t.Errorf("%d Fetch requests (at most %d to one broker), want at most 1 (commit log) + 1 per broker (start record times)", fe.total(), fe.max())
				}
				if !strings.Contains(strings.Join(c.Reasons, "\n"), "the last commit was at "+base.Add(time.Minute).Format(time.RFC3339)) {
					t.Errorf("reasons lack the last commit time:\n%s", strings.Join(c.Reasons, "\n"))
				}
			} else if fe.max() > 1 {
				t.Errorf("%d Fetch requests to one broker, want at most 1", fe.max())
			}
		})
	}
}

// TestFaultLeaderless: metadata says partition 1 has no leader. kgo cannot
// route its ListOffsets and retries within its retry timeout; a leader that
// comes back is used, one that does not fails that partition (with the
// request's *kadm.ShardErrors) and only it.
func TestFaultLeaderless(t *testing.T) {
	setup := func(t *testing.T) *env {
		e := newEnv(t, 2, 3, []string{"t"}, kgo.RetryTimeout(300*time.Millisecond), kgo.RetryBackoffFn(func(int) time.Duration { return 10 * time.Millisecond }))
		for p := range int32(3) {
			e.produceN(t, "t", p, 2)
		}
		e.commit(t, "job", "t", map[int32]int64{0: 1, 1: 1, 2: 1})
		return e
	}
	t.Run("LeaderBack", func(t *testing.T) {
		e := setup(t)
		e.c.Fault(
			kfake.Fault{Keys: []kmsg.Key{kmsg.Metadata}, Topic: "t", Partitions: []int32{1}, Err: kerr.LeaderNotAvailable, Count: 2},
			kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "t", Partitions: []int32{1}, Err: kerr.NotLeaderForPartition, Count: 1},
		)
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job"})
		if _, err := r.Resolve(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("StaysLeaderless", func(t *testing.T) {
		e := setup(t)
		// The old leader says it leads no more; fresh metadata has no
		// leader.
		h := e.c.Fault(
			kfake.Fault{Keys: []kmsg.Key{kmsg.Metadata}, Topic: "t", Partitions: []int32{1}, Err: kerr.LeaderNotAvailable, Count: -1},
			kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "t", Partitions: []int32{1}, Err: kerr.NotLeaderForPartition, Count: -1},
		)
		defer h.Remove()
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job"})
		res, err := r.Offsets(context.Background())
		var se *kadm.ShardErrors
		if !errors.Is(err, kerr.LeaderNotAvailable) || !errors.As(err, &se) {
			t.Fatalf("err = %v, want LEADER_NOT_AVAILABLE with *kadm.ShardErrors", err)
		}
		if len(res) != 3 || res[1].Err == nil || res[0].Err != nil || res[2].Err != nil {
			t.Errorf("partitions %+v", res)
		}
	})
}

// TestFaultByTimeOnCommittedPartition: the lookup by time failing for a
// partition that has a commit fails nothing (the time is only shown there);
// failing for a partition that needs it fails that partition.
func TestFaultByTimeOnCommittedPartition(t *testing.T) {
	e := newEnv(t, 1, 2, []string{"t"})
	e.produceN(t, "t", 0, 3)
	e.produceN(t, "t", 1, 3)
	e.commit(t, "job", "t", map[int32]int64{0: 2})
	byTime := func(req kmsg.Request) bool {
		lr := req.(*kmsg.ListOffsetsRequest)
		return len(lr.Topics) > 0 && len(lr.Topics[0].Partitions) > 0 && lr.Topics[0].Partitions[0].Timestamp >= 0
	}
	r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job", At: base.Add(time.Second), Retries: -1})

	h := e.c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "t", Partitions: []int32{0}, Err: kerr.KafkaStorageError, Count: -1, When: byTime})
	res, err := r.Offsets(context.Background())
	h.Remove()
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Offset != 2 || res[0].ByTime != -1 || res[1].Offset != 1 {
		t.Errorf("partitions %+v", res)
	}

	h = e.c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "t", Partitions: []int32{1}, Err: kerr.KafkaStorageError, Count: -1, When: byTime})
	defer h.Remove()
	if _, err := r.Offsets(context.Background()); !errors.Is(err, kerr.KafkaStorageError) || !strings.Contains(err.Error(), "t/1: list offset by time") {
		t.Errorf("err = %v", err)
	}
}
