package kafkaoffset_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
	"github.com/resumekit/resumekit/resume"
)

// row is the part of a partition's outcome the scenarios compare.
type row struct {
	P          int32
	Start, End int64
	Committed  int64 // -1: none
	Offset     int64
	From       kafkaoffset.OffsetSource
	Lost       int64
}

func rows(res []kafkaoffset.PartitionOffsets) []row {
	out := make([]row, 0, len(res))
	for _, p := range res {
		out = append(out, row{p.Partition, p.Start, p.End, p.Committed, p.Offset, p.From, p.Lost})
	}
	return out
}

func mustResolver(t testing.TB, e *env, topics []string, o *kafkaoffset.Options) *kafkaoffset.Resolver {
	t.Helper()
	return newResolver(t, e.cl, topics, o)
}

func newResolver(t testing.TB, cl *kgo.Client, topics []string, o *kafkaoffset.Options) *kafkaoffset.Resolver {
	t.Helper()
	if o.Retries == 0 {
		o.Retries = 3
	}
	if o.RetryBackoff == 0 {
		o.RetryBackoff = time.Millisecond
	}
	r, err := kafkaoffset.NewResolver(cl, topics, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// resolve resolves and returns the candidate with its position; it fails
// the test on an error.
func resolve(t testing.TB, cl *kgo.Client, topics []string, o *kafkaoffset.Options) (resume.Candidate, *kafkaoffset.Position) {
	t.Helper()
	c, err := newResolver(t, cl, topics, o).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p, err := kafkaoffset.PositionOf(c.Position)
	if err != nil {
		t.Fatal(err)
	}
	return c, p
}

// secs returns base+0s, base+1s, … base+(n-1)s.
func secs(from, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = base.Add(time.Duration(from+i) * time.Second)
	}
	return out
}

// offsets returns each partition's chosen offset, in position order.
func offsets(p *kafkaoffset.Position) []int64 {
	var out []int64
	for _, pp := range p.Partitions {
		out = append(out, pp.Offset)
	}
	return out
}

// contains checks that reasons, or warnings as "code: text", contain every
// sub.
func contains[T string | resume.Warning](t testing.TB, what string, list []T, sub ...string) {
	t.Helper()
	lines := make([]string, len(list))
	for i, l := range list {
		if w, ok := any(l).(resume.Warning); ok {
			lines[i] = w.String()
		} else {
			lines[i] = any(l).(string)
		}
	}
	joined := strings.Join(lines, "\n")
	for _, s := range sub {
		if !strings.Contains(joined, s) {
			t.Errorf("%s lack %q:\n%s", what, s, joined)
		}
	}
}

func TestResolveCommitted(t *testing.T) {
	e := newEnv(t, 2, 2, []string{"t"})
	e.produceN(t, "t", 0, 10)
	e.produceN(t, "t", 1, 5)
	e.commit(t, "job", "t", map[int32]int64{0: 7, 1: 5})

	r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job", Now: func() time.Time { return base.Add(time.Hour) }})
	c, err := r.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.Guarantee != resume.Replay || c.Resolver != "kafka-offsets" {
		t.Errorf("guarantee %s resolver %s, want replay kafka-offsets", c.Guarantee, c.Resolver)
	}
	// The record before offset 5 of partition 1 is stamped base+4s, older
	// than base+6s before offset 7 of partition 0.
	if want := base.Add(4 * time.Second); !c.At.Equal(want) {
		t.Errorf("At = %s, want %s", c.At, want)
	}
	want := map[string]string{
		"scan.startup.mode":             "specific-offsets",
		"scan.startup.specific-offsets": "partition:0,offset:7;partition:1,offset:5",
	}
	if diff := cmp.Diff(want, c.Position.Launch().Options); diff != "" {
		t.Errorf("launch options (-want +got):\n%s", diff)
	}
	contains(t, "reasons", c.Reasons, "commit asynchronously", "read for 2 partitions")
	contains(t, "warnings", c.Warnings, "kafka.not-observed: ", "no observation window")
	p, err := kafkaoffset.PositionOf(c.Position)
	if err != nil {
		t.Fatal(err)
	}
	if p.Partitions[0].Committed == nil || *p.Partitions[0].Committed != 7 || p.Partitions[1].Offset != 5 {
		t.Errorf("position partitions %+v", p.Partitions)
	}
}

func TestResolveByTime(t *testing.T) {
	e := newEnv(t, 1, 1, []string{"t"})
	e.produce(t, "t", 0, ms(0), ms(10*time.Second), ms(20*time.Second))
	for _, tc := range []struct {
		name   string
		at     time.Duration
		offset int64
		from   kafkaoffset.OffsetSource
		warn   string
	}{
		{"BeforeFirstRecord", -time.Minute, 0, kafkaoffset.FromTime, "rewinds"},
		{"AtFirstRecord", 0, 0, kafkaoffset.FromTime, "rewinds"},
		{"BetweenRecords", 5 * time.Second, 1, kafkaoffset.FromTime, "rewinds"},
		{"ExactlyOnSecond", 10 * time.Second, 1, kafkaoffset.FromTime, "rewinds"},
		{"OneMilliAfterSecond", 10*time.Second + time.Millisecond, 2, kafkaoffset.FromTime, "rewinds"},
		{"AfterLastRecord", 30 * time.Second, 3, kafkaoffset.FromEnd, "no record at or after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at := base.Add(tc.at)
			r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{At: at, Now: func() time.Time { return base.Add(time.Hour) }})
			res, err := r.Offsets(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]row{{0, 0, 3, -1, tc.offset, tc.from, 0}}, rows(res)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			c, err := r.Resolve(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if c.Guarantee != resume.Replay || !c.At.Equal(at) {
				t.Errorf("guarantee %s at %s, want replay %s", c.Guarantee, c.At, at)
			}
			contains(t, "warnings", c.Warnings, tc.warn)
			want := map[string]string{"scan.startup.mode": "timestamp", "scan.startup.timestamp-millis": itoa(at.UnixMilli())}
			if diff := cmp.Diff(want, c.Position.Launch().Options); diff != "" {
				t.Errorf("launch (-want +got):\n%s", diff)
			}
		})
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func TestResolveOutOfOrderCreateTime(t *testing.T) {
	// Producers set CreateTime: offset 2 is older than offset 1. Kafka
	// answers the first offset in log order whose timestamp reaches T, so
	// the start is offset 1 and the older record after it is read again.
	e := newEnv(t, 1, 1, []string{"t"})
	e.produce(t, "t", 0, ms(0), ms(30*time.Second), ms(10*time.Second), ms(40*time.Second))
	r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{At: base.Add(20 * time.Second)})
	res, err := r.Offsets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]row{{0, 0, 4, -1, 1, kafkaoffset.FromTime, 0}}, rows(res)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if res[0].ByTimeMillis != ms(30*time.Second) {
		t.Errorf("ByTimeMillis = %d, want %d", res[0].ByTimeMillis, ms(30*time.Second))
	}
}

func TestResolveDataLoss(t *testing.T) {
	t.Run("CommitBelowLogStart", func(t *testing.T) {
		e := newEnv(t, 1, 2, []string{"t"})
		e.produceN(t, "t", 0, 10)
		e.produceN(t, "t", 1, 4)
		e.commit(t, "job", "t", map[int32]int64{0: 3, 1: 4})
		e.deleteRecords(t, "t", 0, 6) // retention overtakes the commit
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job"})
		res, err := r.Offsets(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := []row{{0, 6, 10, 3, 6, kafkaoffset.FromCommit, 3}, {1, 0, 4, 4, 4, kafkaoffset.FromCommit, 0}}
		if diff := cmp.Diff(want, rows(res)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		c, err := r.Resolve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if c.Guarantee != resume.DataLoss {
			t.Errorf("guarantee %s, want data-loss", c.Guarantee)
		}
		contains(t, "reasons", c.Reasons, "data loss on 1 partition(s), 3 records: t/0 (3 records: committed 3, log start 6)")
	})
	t.Run("TimeOlderThanRetainedData", func(t *testing.T) {
		e := newEnv(t, 1, 1, []string{"t"})
		e.produceN(t, "t", 0, 10)
		e.deleteRecords(t, "t", 0, 6)
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{At: base.Add(2 * time.Second)})
		c, err := r.Resolve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if c.Guarantee != resume.DataLoss {
			t.Errorf("guarantee %s, want data-loss", c.Guarantee)
		}
		contains(t, "reasons", c.Reasons, "t/0 (up to 6 records deleted below log start 6)")
	})
	t.Run("TimeInsideRetainedData", func(t *testing.T) {
		e := newEnv(t, 1, 1, []string{"t"})
		e.produceN(t, "t", 0, 10)
		e.deleteRecords(t, "t", 0, 6)
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{At: base.Add(7 * time.Second)})
		c, err := r.Resolve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if c.Guarantee != resume.Replay {
			t.Errorf("guarantee %s, want replay", c.Guarantee)
		}
	})
}

func TestResolvePartitionsAddedAfterCommit(t *testing.T) {
	e := newEnv(t, 2, 2, []string{"t"})
	e.produceN(t, "t", 0, 3)
	e.produceN(t, "t", 1, 3)
	e.commit(t, "job", "t", map[int32]int64{0: 3, 1: 2})
	// The resolver's client caches metadata for a minute: the resolver
	// must still see the partitions added after its first resolve.
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.c.ListenAddrs()...), kgo.MetadataMinAge(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	r, err := kafkaoffset.NewResolver(cl, []string{"t"}, &kafkaoffset.Options{Group: "job"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Resolve(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.adm.CreatePartitions(context.Background(), 2, "t"); err != nil {
		t.Fatal(err)
	}
	e.newClient(t)
	e.produceN(t, "t", 2, 4)
	c, err := r.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.Guarantee != resume.Replay {
		t.Errorf("guarantee %s", c.Guarantee)
	}
	contains(t, "warnings", c.Warnings, "kafka.uncommitted-partitions: 2 partitions have no commit and start at the log start offset", "t/2 (4 records), t/3 (0 records)")
	if got := c.Position.Launch().Options["scan.startup.specific-offsets"]; got != "partition:0,offset:3;partition:1,offset:2;partition:2,offset:0;partition:3,offset:0" {
		t.Errorf("specific offsets %q", got)
	}
}

func TestResolveTopicRecreated(t *testing.T) {
	e := newEnv(t, 1, 1, []string{"t"})
	e.produceN(t, "t", 0, 10)
	e.commit(t, "job", "t", map[int32]int64{0: 8})
	ctx := context.Background()
	if _, err := e.adm.DeleteTopics(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.adm.CreateTopic(ctx, 1, 1, nil, "t"); err != nil {
		t.Fatal(err)
	}
	e.newClient(t)
	e.produceN(t, "t", 0, 2)

	t.Run("CommitsDroppedWithTheTopic", func(t *testing.T) {
		// Kafka (and kfake) drop a deleted topic's commits from its
		// groups: the group has nothing left, which is said, not
		// defaulted.
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job"})
		if _, err := r.Resolve(ctx); !errors.Is(err, resume.ErrNoPosition) {
			t.Errorf("err = %v, want ErrNoPosition", err)
		}
	})
	t.Run("CommitAboveEnd", func(t *testing.T) {
		// A commit that survived (restored offsets, a truncated log)
		// points past the new end.
		e.commit(t, "job", "t", map[int32]int64{0: 8})
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job"})
		res, err := r.Offsets(ctx)
		if !errors.Is(err, kafkaoffset.ErrCommitAboveEnd) {
			t.Fatalf("err = %v, want ErrCommitAboveEnd", err)
		}
		var pe *kafkaoffset.PartitionErrors
		if !errors.As(err, &pe) || len(pe.Errs) != 1 || !strings.Contains(err.Error(), "t/0: committed offset 8 is above the end offset 2 (topic truncated, or deleted and recreated?)") {
			t.Errorf("err = %v", err)
		}
		if len(res) != 1 || res[0].Offset != -1 || res[0].Err == nil || res[0].End != 2 {
			t.Errorf("partition result %+v", res)
		}
		if _, err := r.Resolve(ctx); !errors.Is(err, kafkaoffset.ErrCommitAboveEnd) {
			t.Errorf("Resolve err = %v", err)
		}
	})
}

func TestResolveUnknownGroup(t *testing.T) {
	e := newEnv(t, 1, 2, []string{"t"})
	e.produceN(t, "t", 0, 3)
	t.Run("GroupOnly", func(t *testing.T) {
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "nobody"})
		_, err := r.Resolve(context.Background())
		if !errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), `group "nobody" has no commits on t`) {
			t.Errorf("err = %v, want ErrNoPosition naming the group", err)
		}
	})
	t.Run("WithTime", func(t *testing.T) {
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "nobody", At: base.Add(time.Second)})
		res, err := r.Offsets(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := []row{{0, 0, 3, -1, 1, kafkaoffset.FromTime, 0}, {1, 0, 0, -1, 0, kafkaoffset.FromEnd, 0}}
		if diff := cmp.Diff(want, rows(res)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		c, err := r.Grade(res)
		if err != nil {
			t.Fatal(err)
		}
		contains(t, "warnings", c.Warnings, `kafka.no-commits: group "nobody" has no commits on t`)
	})
}

func TestResolveObservationWindow(t *testing.T) {
	e := newEnv(t, 1, 1, []string{"t"})
	e.produceN(t, "t", 0, 10)
	e.commit(t, "job", "t", map[int32]int64{0: 4})
	t.Run("OffsetsMove", func(t *testing.T) {
		waited := 0
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{
			Group: "job", ObserveWindow: 10 * time.Second,
			Wait: func(ctx context.Context, d time.Duration) error {
				waited++
				e.commit(t, "job", "t", map[int32]int64{0: 6}) // the old job commits inside the window
				return nil
			},
		})
		_, err := r.Resolve(context.Background())
		if !errors.Is(err, kafkaoffset.ErrStillCommitting) || !strings.Contains(err.Error(), "t/0 4→6") {
			t.Errorf("err = %v, want ErrStillCommitting naming t/0 4→6", err)
		}
		if waited != 1 {
			t.Errorf("waited %d times", waited)
		}
	})
	t.Run("OffsetsStill", func(t *testing.T) {
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{
			Group: "job", ObserveWindow: 10 * time.Second,
			Wait: func(ctx context.Context, d time.Duration) error { return nil },
		})
		c, err := r.Resolve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		contains(t, "reasons", c.Reasons, "did not move during a 10s observation window")
	})
	t.Run("CancelledDuringWindow", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job", ObserveWindow: time.Hour})
		go cancel() // the default wait returns when ctx is done, not after an hour
		if _, err := r.Resolve(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func TestResolveEmptyPartition(t *testing.T) {
	e := newEnv(t, 1, 3, []string{"t"})
	e.produceN(t, "t", 0, 2)
	e.commit(t, "job", "t", map[int32]int64{0: 2, 1: 0})
	r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job"})
	res, err := r.Offsets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []row{
		{0, 0, 2, 2, 2, kafkaoffset.FromCommit, 0},
		{1, 0, 0, 0, 0, kafkaoffset.FromCommit, 0},
		{2, 0, 0, -1, 0, kafkaoffset.FromLogStart, 0},
	}
	if diff := cmp.Diff(want, rows(res)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestResolveFutureTime(t *testing.T) {
	e := newEnv(t, 1, 1, []string{"t"})
	e.produceN(t, "t", 0, 3)
	now := base.Add(time.Minute)
	r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{At: now.Add(time.Hour), Now: func() time.Time { return now }})
	c, err := r.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "warnings", c.Warnings, "kafka.start-in-future: ", "is in the future", "kafka.start-at-end: ", "no record at or after")
	p, _ := kafkaoffset.PositionOf(c.Position)
	if p.Partitions[0].Offset != 3 {
		t.Errorf("offset %d, want the end offset 3", p.Partitions[0].Offset)
	}
	// A launch by the future time would skip what the partition receives
	// until then: the launch names the end offset instead.
	want := map[string]string{"scan.startup.mode": "specific-offsets", "scan.startup.specific-offsets": "partition:0,offset:3"}
	if diff := cmp.Diff(want, c.Position.Launch().Options); diff != "" {
		t.Errorf("launch (-want +got):\n%s", diff)
	}
	contains(t, "reasons", c.Reasons, "not by time", "is after now, so it would skip the records written until then to t/0")
}

func TestResolveCancelledContext(t *testing.T) {
	e := newEnv(t, 1, 1, []string{"t"})
	obs := observeListOffsets(e)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job", At: base})
	if _, err := r.Resolve(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if n := obs.total(); n != 0 {
		t.Errorf("%d ListOffsets requests after cancellation, want 0", n)
	}
}

func TestResolveMissingTopic(t *testing.T) {
	e := newEnv(t, 1, 1, []string{"t"})
	r := mustResolver(t, e, []string{"t", "gone"}, &kafkaoffset.Options{At: base})
	_, err := r.Resolve(context.Background())
	if !errors.Is(err, kerr.UnknownTopicOrPartition) || !strings.Contains(err.Error(), `topic "gone" does not exist`) {
		t.Errorf("err = %v", err)
	}
}

func TestResolveSeveralTopics(t *testing.T) {
	e := newEnv(t, 2, 2, []string{"a", "b"})
	e.produceN(t, "a", 0, 3)
	e.produceN(t, "b", 1, 3)
	e.commit(t, "job", "a", map[int32]int64{0: 2, 1: 0})
	e.commit(t, "job", "b", map[int32]int64{0: 0, 1: 1})
	r := mustResolver(t, e, []string{"b", "a"}, &kafkaoffset.Options{Group: "job"})
	c, err := r.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !c.Position.Launch().IsZero() {
		t.Errorf("launch %+v, want none for several topics", c.Position.Launch())
	}
	contains(t, "warnings", c.Warnings, "kafka.several-topics: ", "OffsetsInitializer.offsets")
	if got, want := c.Position.String(), "b: partition:0,offset:0;partition:1,offset:1 + a: partition:0,offset:2;partition:1,offset:0 (group job)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestNewResolverRejects(t *testing.T) {
	cl, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, tc := range []struct {
		name   string
		client *kgo.Client
		topics []string
		opts   *kafkaoffset.Options
		want   string
	}{
		{"NilClient", nil, []string{"t"}, &kafkaoffset.Options{Group: "g"}, "nil kgo client"},
		{"NoTopics", cl, nil, &kafkaoffset.Options{Group: "g"}, "no topics"},
		{"EmptyTopic", cl, []string{""}, &kafkaoffset.Options{Group: "g"}, "invalid topic name"},
		{"BadTopicChars", cl, []string{"a/b"}, &kafkaoffset.Options{Group: "g"}, "invalid topic name"},
		{"DuplicateTopic", cl, []string{"t", "t"}, &kafkaoffset.Options{Group: "g"}, "given twice"},
		{"NilOptions", cl, []string{"t"}, nil, "nothing to start from"},
		{"NoSource", cl, []string{"t"}, &kafkaoffset.Options{}, "nothing to start from"},
		{"TimeBefore1970", cl, []string{"t"}, &kafkaoffset.Options{At: time.Unix(-10, 0)}, "before 1970"},
		{"NegativeWindow", cl, []string{"t"}, &kafkaoffset.Options{Group: "g", ObserveWindow: -time.Second}, "negative observation window"},
		{"WindowWithoutGroup", cl, []string{"t"}, &kafkaoffset.Options{At: base, ObserveWindow: time.Second}, "needs a group"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := kafkaoffset.NewResolver(tc.client, tc.topics, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestResolveConcurrently: a resolver is safe for concurrent use (run with
// -race) and answers the same each time.
func TestResolveConcurrently(t *testing.T) {
	e := newEnv(t, 2, 4, []string{"t"})
	for p := range int32(4) {
		e.produceN(t, "t", p, 3)
	}
	e.commit(t, "job", "t", map[int32]int64{0: 1, 1: 2, 2: 3})
	r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job", At: base.Add(time.Second)})
	want, err := r.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			c, err := r.Resolve(context.Background())
			if err == nil {
				if diff := cmp.Diff(want.Position, c.Position); diff != "" {
					err = errors.New(diff)
				}
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestResolveByTimeWholeLogDeleted: every record of the partition was
// deleted, so a time lookup answers "nothing at or after" whatever the
// deleted records' times were. It is the question of the one-record case
// (TestResolveDataLoss/TimeOlderThanRetainedData) with no record left to
// compare: graded the same way, possible loss counted as loss, with the
// count.
func TestResolveByTimeWholeLogDeleted(t *testing.T) {
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{{Name: "t", Partitions: 2}}})
	k.Produce("t", 0, secs(0, 10)...)
	k.Produce("t", 1, secs(0, 10)...)
	k.DeleteRecords("t", 0, 10) // every record
	k.DeleteRecords("t", 1, 9)  // one record left, after the time
	r := newResolver(t, k.Client, []string{"t"}, &kafkaoffset.Options{At: base.Add(-time.Hour), Now: func() time.Time { return base.Add(time.Hour) }})
	res, err := r.Offsets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []row{{0, 10, 10, -1, 10, kafkaoffset.FromEnd, 10}, {1, 9, 10, -1, 9, kafkaoffset.FromTime, 9}}
	if diff := cmp.Diff(want, rows(res)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	c, err := r.Grade(res)
	if err != nil {
		t.Fatal(err)
	}
	if c.Guarantee != resume.DataLoss {
		t.Errorf("guarantee %s, want data-loss", c.Guarantee)
	}
	contains(t, "reasons", c.Reasons, "data loss on 2 partition(s), 19 records: t/0 (up to 10 records deleted below log start 10), t/1 (up to 9 records deleted below log start 9)")
	contains(t, "warnings", c.Warnings, "kafka.partition-emptied: ", "hold no records at all, every one deleted", "t/0 (10 deleted)")
}

// TestHostileTopicNameShortError: a 1 MiB topic name is refused with a
// short error that quotes it truncated.
func TestHostileTopicNameShortError(t *testing.T) {
	cl, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	huge := strings.Repeat("t", 1<<20)
	for _, topics := range [][]string{{huge}, {huge + "/"}, {"a", "a"}} {
		_, err := kafkaoffset.NewResolver(cl, topics, &kafkaoffset.Options{Group: "g"})
		if err == nil {
			t.Errorf("NewResolver(%d-byte topic) succeeded", len(topics[0]))
		} else if len(err.Error()) > 200 {
			t.Errorf("NewResolver(%d-byte topic): error of %d bytes: %.200v", len(topics[0]), len(err.Error()), err)
		}
	}
}
