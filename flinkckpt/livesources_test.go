package flinkckpt_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

const liveJob = "00000000000000000000000000000a01"

// liveKafka starts kfake with topic "orders" of two partitions holding 100
// records each.
func liveKafka(t *testing.T) *kafkaoffsettest.Cluster {
	t.Helper()
	c := kafkaoffsettest.New(t, nil)
	c.CreateTopic(kafkaoffsettest.Topic{Name: "orders", Partitions: 2})
	times := make([]time.Time, 100)
	for i := range times {
		times[i] = time.Date(2026, 12, 1, 10, 0, i, 0, time.UTC)
	}
	for p := range int32(2) {
		c.Produce("orders", p, times...)
	}
	return c
}

// liveCheckpoint writes chk-1 of liveJob with the given sources.
func liveCheckpoint(t testing.TB, b *blob.Bucket, id int64, sources ...flinkckpttest.Source) {
	t.Helper()
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "s3a://b/"}
	if _, err := l.Checkpoint(context.Background(), liveJob, id, &flinkckpttest.Checkpoint{Sources: sources}); err != nil {
		t.Fatal(err)
	}
}

func liveResolver(t *testing.T, b *blob.Bucket, live *livecheck.Checkers) *flinkckpt.Resolver {
	t.Helper()
	r, err := flinkckpt.NewResolver(b, "ck/", &flinkckpt.Options{FlinkRoot: "s3a://b/ck/", Live: live})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func warningText(c resume.Candidate, code resume.WarningCode) string {
	for _, w := range c.Warnings {
		if w.Code == code {
			return w.Text
		}
	}
	return ""
}

// The review's Kafka case: a checkpoint at offset 10 on a topic whose
// records below 50 were deleted restores into data loss, 40 records per
// partition, launched with earliest-offset and a warning saying why; before
// the deletion the same checkpoint is exactly-once and launches with no
// option.
func TestRestoreKafkaBelowLogStart(t *testing.T) {
	ctx := context.Background()
	k := liveKafka(t)
	b := memblob.OpenBucket(nil)
	defer b.Close()
	liveCheckpoint(t, b, 1, flinkckpttest.KafkaSource("orders-source", "orders", 10, 10))
	r := liveResolver(t, b, &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: k.Client}})

	c, err := r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Guarantee != resume.ExactlyOnce || c.HasWarning(flinkckpt.WarnSourceNotChecked) || len(c.Position.Launch().Options) != 0 {
		t.Fatalf("before the deletion: guarantee %s warnings %v launch %v", c.Guarantee, c.Warnings, c.Position.Launch().Options)
	}

	k.DeleteRecords("orders", 0, 50)
	k.DeleteRecords("orders", 1, 50)
	c, err = r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Guarantee != resume.DataLoss {
		t.Errorf("guarantee %s, want data-loss", c.Guarantee)
	}
	pos, err := flinkckpt.PositionOf(c.Position)
	if err != nil {
		t.Fatal(err)
	}
	want := []flinkckpt.KafkaCheck{
		{Topic: "orders", Partition: 0, Offset: 10, LogStart: 50, LogEnd: 100, Lost: 40},
		{Topic: "orders", Partition: 1, Offset: 10, LogStart: 50, LogEnd: 100, Lost: 40},
	}
	if pos.Live == nil || len(pos.Live.Sources) != 1 || !pos.Live.Sources[0].Checked {
		t.Fatalf("live check %+v", pos.Live)
	}
	if diff := cmp.Diff(want, pos.Live.Sources[0].Kafka); diff != "" {
		t.Errorf("partitions (-want +got):\n%s", diff)
	}
	l := c.Position.Launch()
	if diff := cmp.Diff(map[string]string{"scan.startup.mode": "earliest-offset"}, l.Options); diff != "" {
		t.Errorf("launch options (-want +got):\n%s", diff)
	}
	if l.RestorePath() == "" {
		t.Errorf("launch restores nothing: %+v", l)
	}
	if w := warningText(c, flinkckpt.WarnSourceDataLoss); !strings.Contains(w, "orders/0: 40 records (offsets 10..49)") || !strings.Contains(w, "orders/1: 40 records") {
		t.Errorf("data-loss warning %q", w)
	}
	w := warningText(c, flinkckpt.WarnKafkaOutOfRange)
	for _, part := range []string{"scan.startup.mode=earliest-offset", "auto.offset.reset", "latest-offset or timestamp", "group-offsets", "OffsetOutOfRangeException"} {
		if !strings.Contains(w, part) {
			t.Errorf("reset warning does not say %q: %q", part, w)
		}
	}
}

// TestRestoreKafkaEarliestOnTruncatedPartition: partition 1 is at the
// earliest marker (the reader had read nothing of it). Log start 0: the
// restore is exactly-once. Records below 30 deleted: the snapshot never
// read them, so the restore is data loss of up to 30 offsets, as salvage
// and kafkaoffset grade the same partition; no reset option, since the
// restored reader seeks the log start itself.
func TestRestoreKafkaEarliestOnTruncatedPartition(t *testing.T) {
	ctx := context.Background()
	k := liveKafka(t)
	b := memblob.OpenBucket(nil)
	defer b.Close()
	liveCheckpoint(t, b, 1, flinkckpttest.KafkaSource("orders-source", "orders", 10, sourcestate.OffsetEarliest))
	r := liveResolver(t, b, &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: k.Client}})
	c, err := r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Guarantee != resume.ExactlyOnce || c.HasWarning(flinkckpt.WarnSourceDataLoss) {
		t.Fatalf("log start 0: guarantee %s warnings %v", c.Guarantee, c.Warnings)
	}

	k.DeleteRecords("orders", 1, 30)
	c, err = r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pos, err := flinkckpt.PositionOf(c.Position)
	if err != nil {
		t.Fatal(err)
	}
	want := []flinkckpt.KafkaCheck{
		{Topic: "orders", Partition: 0, Offset: 10, LogStart: 0, LogEnd: 100},
		{Topic: "orders", Partition: 1, Offset: sourcestate.OffsetEarliest, LogStart: 30, LogEnd: 100, Lost: 30},
	}
	if pos.Live == nil || len(pos.Live.Sources) != 1 {
		t.Fatalf("live check %+v", pos.Live)
	}
	if diff := cmp.Diff(want, pos.Live.Sources[0].Kafka); diff != "" {
		t.Errorf("partitions (-want +got):\n%s", diff)
	}
	if c.Guarantee != resume.DataLoss || !strings.Contains(warningText(c, flinkckpt.WarnSourceDataLoss), "orders/1: earliest (the snapshot had read nothing of it), up to 30 offsets (0..29) deleted") {
		t.Errorf("guarantee %s, data-loss warning %q", c.Guarantee, warningText(c, flinkckpt.WarnSourceDataLoss))
	}
	if c.HasWarning(flinkckpt.WarnKafkaOutOfRange) || len(c.Position.Launch().Options) != 0 {
		t.Errorf("a reset for a partition that seeks the log start: warnings %v launch %v", c.Warnings, c.Position.Launch().Options)
	}
}

// A checkpoint whose next offset is above today's end offset cannot be
// restored against this topic (recreated?): Resolve fails, it is not
// graded.
func TestRestoreKafkaAboveEnd(t *testing.T) {
	k := liveKafka(t)
	b := memblob.OpenBucket(nil)
	defer b.Close()
	liveCheckpoint(t, b, 1, flinkckpttest.KafkaSource("orders-source", "orders", 10, 150))
	_, err := liveResolver(t, b, &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: k.Client}}).Resolve(context.Background())
	if !errors.Is(err, livecheck.ErrAboveEnd) || errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), "orders/1") || !strings.Contains(err.Error(), "recreated") {
		t.Fatalf("err = %v", err)
	}
}

// A Kafka checker that cannot list the topic fails the resolve: a failure
// to look is never a better grade.
func TestRestoreKafkaCheckFails(t *testing.T) {
	k := liveKafka(t)
	b := memblob.OpenBucket(nil)
	defer b.Close()
	liveCheckpoint(t, b, 1, flinkckpttest.KafkaSource("s", "payments", 10))
	_, err := liveResolver(t, b, &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: k.Client}}).Resolve(context.Background())
	if err == nil || errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), "payments") {
		t.Fatalf("err = %v", err)
	}
}

// The review's Paimon case: a checkpoint whose Paimon source continues at
// snapshot 20 of a table whose earliest readable is 50 is refused as a
// restore that fails (OutOfRangeException, the expired range named), and
// nothing older restores either: "no position", so salvage is considered.
// The control at 80 stays exactly-once.
func TestRestorePaimonExpired(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		next int64
	}{{"Expired", 20}, {"Control", 80}} {
		t.Run(tc.name, func(t *testing.T) {
			b := memblob.OpenBucket(nil)
			defer b.Close()
			tb := paimontest.New(t, b, "wh/shop.db/orders").Schema(nil).CommitEvery(100, time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), time.Minute)
			tb.ExpireBefore(50)
			table, err := paimon.NewTable(b, tb.Path(), nil)
			if err != nil {
				t.Fatal(err)
			}
			liveCheckpoint(t, b, 1, flinkckpttest.PaimonSource("orders-source", "s3a://b/wh/shop.db/orders", tc.next))
			c, err := liveResolver(t, b, &livecheck.Checkers{Paimon: table}).Resolve(ctx)
			if tc.next >= 50 {
				if err != nil {
					t.Fatal(err)
				}
				pos, _ := flinkckpt.PositionOf(c.Position)
				if c.Guarantee != resume.ExactlyOnce || pos.Live == nil || pos.Live.Sources[0].Paimon == nil || pos.Live.Sources[0].Paimon.Earliest != 50 {
					t.Errorf("guarantee %s live %+v", c.Guarantee, pos.Live)
				}
				return
			}
			if !errors.Is(err, resume.ErrNoPosition) {
				t.Fatalf("err = %v, want no position", err)
			}
			for _, part := range []string{"OutOfRangeException", "snapshots 20..49 of shop.orders expired", "a restore fails"} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error does not say %q: %v", part, err)
				}
			}
		})
	}
}

// A source kind without a checker is named per source with a coded
// warning, never silently graded; a Paimon table that is not the one the
// source reads does not check it.
func TestRestoreSourceNotChecked(t *testing.T) {
	k := liveKafka(t)
	b := memblob.OpenBucket(nil)
	defer b.Close()
	liveCheckpoint(t, b, 1, flinkckpttest.KafkaSource("orders-source", "orders", 10, 10),
		flinkckpttest.PaimonSource("items-source", "s3a://b/wh/shop.db/items", 3))
	c, err := liveResolver(t, b, &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: k.Client}}).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, w := range c.Warnings {
		if w.Code == flinkckpt.WarnSourceNotChecked {
			n++
			if !strings.Contains(w.Text, "paimon source") || !strings.Contains(w.Text, "--paimon-table") {
				t.Errorf("warning %q", w.Text)
			}
		}
	}
	if n != 1 || c.Guarantee != resume.ExactlyOnce {
		t.Errorf("%d not-checked warnings, guarantee %s: %v", n, c.Guarantee, c.Warnings)
	}
	pos, _ := flinkckpt.PositionOf(c.Position)
	if len(pos.Live.Sources) != 2 || !pos.Live.Sources[0].Checked || pos.Live.Sources[1].Checked {
		t.Errorf("sources %+v", pos.Live.Sources)
	}
}

// requests counts one request kind at every broker of k.
func requests(k *kafkaoffsettest.Cluster, key kmsg.Key) func() (total, most int) {
	var hs []*kfake.FaultHandle
	for n := range k.Kafka.ListenAddrs() {
		hs = append(hs, k.Kafka.Fault(kfake.Fault{Keys: []kmsg.Key{key}, Nodes: []int32{int32(n)}, Observe: true, Count: -1}))
	}
	return func() (total, most int) {
		for _, h := range hs {
			total += h.Hits()
			most = max(most, h.Hits())
		}
		return total, most
	}
}

// The restore candidate's valid_until on kfake: the record at the
// checkpoint's offset 10 (timestamp 10:00:10) plus the topic's retention.ms
// of an hour, to the second, with the reason naming the partition and the
// rule. The check costs two ListOffsets per broker (log start, end), one
// DescribeConfigs and at most one Fetch per broker.
func TestRestoreKafkaValidUntil(t *testing.T) {
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Brokers: 2})
	k.CreateTopic(kafkaoffsettest.Topic{Name: "orders", Partitions: 4, Configs: map[string]string{"retention.ms": "3600000"}})
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	times := make([]time.Time, 100)
	for i := range times {
		times[i] = t0.Add(time.Duration(i) * time.Second)
	}
	for p := range int32(4) {
		k.Produce("orders", p, times...)
	}
	lo, dc, fe := requests(k, kmsg.ListOffsets), requests(k, kmsg.DescribeConfigs), requests(k, kmsg.Fetch)
	b := memblob.OpenBucket(nil)
	defer b.Close()
	liveCheckpoint(t, b, 1, flinkckpttest.KafkaSource("orders-source", "orders", 12, 10, 30, 100))
	c, err := liveResolver(t, b, &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: k.Client}}).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := t0.Add(10*time.Second + time.Hour)
	if !c.ValidUntil.Equal(want) || c.Guarantee != resume.ExactlyOnce {
		t.Fatalf("ValidUntil %v (guarantee %s), want %v", c.ValidUntil, c.Guarantee, want)
	}
	if r := strings.Join(c.Reasons, "\n"); !strings.Contains(r, "valid until 2026-12-01T11:00:10Z: kafka orders/1: its start record (offset 10)") || !strings.Contains(r, "retention.ms 1h0m0s") {
		t.Errorf("reasons:\n%s", r)
	}
	if total, most := lo(); most > 2 || total > 4 {
		t.Errorf("%d ListOffsets (%d to one broker), want at most 2 per broker", total, most)
	}
	if total, _ := dc(); total != 1 {
		t.Errorf("%d DescribeConfigs, want 1", total)
	}
	if _, most := fe(); most > 1 {
		t.Errorf("%d Fetch to one broker, want at most 1", most)
	}
}

// The restore candidate's valid_until on paimontest: snapshot 80's commit
// time plus snapshot.time-retained (1 h by default; 30 min set here);
// num-retained.min named when it keeps the snapshot longer; a consumer
// that has not read the snapshot pins it: unknown, and said so.
func TestRestorePaimonValidUntil(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		options map[string]string
		next    int64
		pin     bool
		want    time.Time
		reason  string
	}{
		{"Default", nil, 80, false, start.Add(79*time.Minute + time.Hour), "snapshot 80 was committed at 2026-11-29T11:19:00Z, and snapshot.time-retained is 1h0m0s"},
		{"TimeRetained", map[string]string{"snapshot.time-retained": "30 min"}, 80, false, start.Add(79*time.Minute + 30*time.Minute), "snapshot.time-retained is 30m0s"},
		{"NumRetainedMin", nil, 95, false, start.Add(94*time.Minute + time.Hour), "snapshot.num-retained.min 10 keeps it longer, until 5 more snapshots are committed"},
		{"PinnedByConsumer", nil, 80, true, time.Time{}, "consumer orders-job (next snapshot 70) pins snapshot 80"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := memblob.OpenBucket(nil)
			defer b.Close()
			tb := paimontest.New(t, b, "wh/shop.db/orders").Schema(tc.options).CommitEvery(100, start, time.Minute)
			if tc.pin {
				tb.Consumer("orders-job", 70)
			}
			table, err := paimon.NewTable(b, tb.Path(), nil)
			if err != nil {
				t.Fatal(err)
			}
			liveCheckpoint(t, b, 1, flinkckpttest.PaimonSource("orders-source", "s3a://b/wh/shop.db/orders", tc.next))
			c, err := liveResolver(t, b, &livecheck.Checkers{Paimon: table}).Resolve(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !c.ValidUntil.Equal(tc.want) {
				t.Errorf("ValidUntil %v, want %v", c.ValidUntil, tc.want)
			}
			if r := strings.Join(c.Reasons, "\n"); !strings.Contains(r, tc.reason) {
				t.Errorf("reasons lack %q:\n%s", tc.reason, r)
			}
		})
	}
}

// The "older snapshot chosen" warning names what going back can mean per
// source besides duplicates (loss for Postgres CDC and for sinks that skip
// by checkpoint id, a failing Paimon restore) while nothing was checked
// live; with the sources checked, the check has decided it and the
// warning says duplicates only.
func TestOlderThanBrokenNamesSources(t *testing.T) {
	ctx := context.Background()
	k := liveKafka(t)
	for _, live := range []*livecheck.Checkers{nil, {Kafka: kafkaoffset.Log{Client: k.Client}}} {
		b := memblob.OpenBucket(nil)
		defer b.Close()
		l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "s3a://b/"}
		src := flinkckpttest.KafkaSource("orders-source", "orders", 10, 10)
		if _, err := l.Checkpoint(ctx, liveJob, 1, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{src}}); err != nil {
			t.Fatal(err)
		}
		w, err := l.Checkpoint(ctx, liveJob, 2, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{src}})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Delete(ctx, w.Files[0]); err != nil {
			t.Fatal(err)
		}
		c, err := liveResolver(t, b, live).Resolve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		w2 := warningText(c, flinkckpt.WarnOlderThanBroken)
		if names := strings.Contains(w2, "Postgres") && strings.Contains(w2, "skip by checkpoint id") && strings.Contains(w2, "Paimon"); names != (live == nil) || !strings.HasSuffix(w2, "expect duplicates downstream") {
			t.Errorf("live %v: warning %q", live != nil, w2)
		}
	}
}

// Without any checker (Options.Live nil) the restore is still graded from
// _metadata alone, and says so per source: never silently graded.
func TestRestoreNoCheckerSaysSo(t *testing.T) {
	b := memblob.OpenBucket(nil)
	defer b.Close()
	liveCheckpoint(t, b, 1, flinkckpttest.KafkaSource("orders-source", "orders", 10, 10),
		flinkckpttest.PaimonSource("items-source", "s3a://b/wh/shop.db/items", 3))
	c, err := liveResolver(t, b, nil).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, w := range c.Warnings {
		if w.Code == flinkckpt.WarnSourceNotChecked {
			kinds = append(kinds, strings.Fields(strings.SplitN(w.Text, ": ", 2)[1])[0])
			if !strings.Contains(w.Text, "no checker given") {
				t.Errorf("warning %q", w.Text)
			}
		}
	}
	if diff := cmp.Diff([]string{"kafka", "paimon"}, kinds); diff != "" || c.Guarantee != resume.ExactlyOnce {
		t.Errorf("not-checked warnings by kind (-want +got):\n%s", diff)
	}
}
