package salvage_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kgo"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/internal/fixtures"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// kafkaCluster starts kfake on loopback (kafkaoffsettest) with topics
// (default "topic") of partitions partitions holding records records each,
// and returns its client; both close with the test.
func kafkaCluster(t *testing.T, partitions int32, records int, topics ...string) *kgo.Client {
	t.Helper()
	if len(topics) == 0 {
		topics = []string{"topic"}
	}
	c := kafkaoffsettest.New(t, nil)
	times := make([]time.Time, records)
	for i := range times {
		times[i] = time.Date(2026, 12, 1, 10, 0, i, 0, time.UTC)
	}
	for _, topic := range topics {
		c.CreateTopic(kafkaoffsettest.Topic{Name: topic, Partitions: partitions})
		for p := range partitions {
			c.Produce(topic, p, times...)
		}
	}
	return c.Client
}

func fixtureBucket(t *testing.T) *blob.Bucket {
	t.Helper()
	b, err := fileblob.OpenBucket(fixtures.Dir(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func kafkaStarts(t *testing.T, c resume.Candidate) []salvage.KafkaStart {
	t.Helper()
	pos, err := salvage.PositionOf(c.Position)
	if err != nil {
		t.Fatal(err)
	}
	if len(pos.Sources) != 1 || pos.Sources[0].Kind != sourcestate.KindKafka {
		t.Fatalf("sources %+v", pos.Sources)
	}
	return pos.Sources[0].Kafka
}

// End to end on kfake: the salvage candidate from the real KafkaSource
// savepoints starts each of the 10 partitions at 10; after the records
// below 15 are deleted on partition 3, it is data loss naming that
// partition.
func TestRealKafkaSavepointOnKfake(t *testing.T) {
	ctx := context.Background()
	for _, dir := range []string{
		"v4-kafka-source-native-savepoint/savepoint-3c7c0a-07c49f841952",
		"v5-kafka-source-enum3-savepoint/savepoint-246fa1-85f387ecce0c",
	} {
		t.Run(filepath.Dir(dir), func(t *testing.T) {
			b := fixtureBucket(t)
			cl := kafkaCluster(t, 10, 20)
			r, err := salvage.NewResolver(b, "", &salvage.Options{Snapshot: dir + "/", Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: cl}}})
			if err != nil {
				t.Fatal(err)
			}
			c, err := r.Resolve(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if c.Guarantee != resume.ExactInput {
				t.Errorf("guarantee %s, want exact-input", c.Guarantee)
			}
			starts := kafkaStarts(t, c)
			if len(starts) != 10 {
				t.Fatalf("%d partitions", len(starts))
			}
			for i, s := range starts {
				if s.Topic != "topic" || s.Partition != int32(i) || s.Offset != 10 || s.Lost != 0 || s.LogStart == nil || *s.LogEnd != 20 {
					t.Errorf("partition %d: %+v", i, s)
				}
			}
			want := map[string]string{"scan.startup.mode": "specific-offsets",
				"scan.startup.specific-offsets": "partition:0,offset:10;partition:1,offset:10;partition:2,offset:10;partition:3,offset:10;partition:4,offset:10;partition:5,offset:10;partition:6,offset:10;partition:7,offset:10;partition:8,offset:10;partition:9,offset:10"}
			if diff := cmp.Diff(want, c.Position.Launch().Options); diff != "" {
				t.Errorf("launch (-want +got):\n%s", diff)
			}
			if !strings.Contains(strings.Join(c.Reasons, "\n"), `new TopicPartition("topic", 9), 10L`) {
				t.Errorf("no DataStream form in the reasons: %q", c.Reasons)
			}

			deleteRecords(t, cl, "topic", 3, 15)
			c, err = r.Resolve(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if c.Guarantee != resume.DataLoss || !c.HasWarning(salvage.WarnDataLoss) {
				t.Fatalf("guarantee %s warnings %v, want data-loss", c.Guarantee, c.Warnings)
			}
			for _, w := range c.Warnings {
				if w.Code == salvage.WarnDataLoss && !strings.Contains(w.Text, "topic/3: 5 records (offsets 10..14)") {
					t.Errorf("data loss warning does not name partition 3: %s", w.Text)
				}
			}
			starts = kafkaStarts(t, c)
			if starts[3].Offset != 15 || starts[3].Lost != 5 || starts[2].Offset != 10 || starts[2].Lost != 0 {
				t.Errorf("partition 3 %+v, partition 2 %+v", starts[3], starts[2])
			}
		})
	}
}

// Without a live check the positions are the snapshot's, with a warning.
func TestKafkaNotChecked(t *testing.T) {
	b := fixtureBucket(t)
	r, err := salvage.NewResolver(b, "", &salvage.Options{Snapshot: "v4-kafka-source-native-savepoint/savepoint-3c7c0a-07c49f841952"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.Guarantee != resume.ExactInput || !c.HasWarning(salvage.WarnNotChecked) || kafkaStarts(t, c)[9].Offset != 10 {
		t.Errorf("candidate %+v", c)
	}
}

// Markers: earliest and latest are resolved against the live log; without
// a check they are named, left out of the options, and the grade is replay.
// (An earliest marker on a truncated partition:
// TestKafkaEarliestOnTruncatedPartition.)
func TestKafkaMarkers(t *testing.T) {
	l := savepoints(t, "")
	dir := savepoint(t, l, "savepoint-aaaaaa-000000000001", 3, flinkckpttest.KafkaSource("k", "topic", 7, sourcestate.OffsetEarliest, sourcestate.OffsetLatest))
	cl := kafkaCluster(t, 3, 20)
	c := salvaged(t, l, &salvage.Options{Snapshot: dir, Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: cl}}})
	if c.Guarantee != resume.ExactInput || !c.HasWarning(salvage.WarnResolvedMarker) || c.HasWarning(salvage.WarnDataLoss) {
		t.Errorf("guarantee %s warnings %v", c.Guarantee, c.Warnings)
	}
	if got := c.Position.Launch().Options["scan.startup.specific-offsets"]; got != "partition:0,offset:7;partition:1,offset:0;partition:2,offset:20" {
		t.Errorf("specific offsets %q", got)
	}
	c = salvaged(t, l, &salvage.Options{Snapshot: dir})
	if c.Guarantee != resume.Replay || !c.HasWarning(salvage.WarnUnresolvedMarker) {
		t.Errorf("guarantee %s warnings %v", c.Guarantee, c.Warnings)
	}
	if got := c.Position.Launch().Options["scan.startup.specific-offsets"]; got != "partition:0,offset:7" {
		t.Errorf("specific offsets %q", got)
	}
}

// A Paimon salvage against a paimontest table: exact while the snapshot is
// there, data loss naming the range once it expired; the consumer form
// gives the reset_consumer call.
func TestPaimonSalvage(t *testing.T) {
	ctx := context.Background()
	l := savepoints(t, "sp/")
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	tb := paimontest.New(t, l.Bucket, "wh/shop.db/orders").Schema(nil).CommitEvery(30, start, time.Minute)
	dir := savepoint(t, l, "savepoint-aaaaaa-000000000002", 9, flinkckpttest.MonitorSource("orders-source", 12))
	table, err := paimon.NewTable(l.Bucket, tb.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := salvager(t, l, &salvage.Options{Snapshot: dir, Live: &livecheck.Checkers{Paimon: table}, PaimonConsumer: "orders-v2"})
	c, err := r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pos, _ := salvage.PositionOf(c.Position)
	ps := pos.Sources[0].Paimon
	if c.Guarantee != resume.ExactInput || ps.NextSnapshot != 12 || !pos.Sources[0].Checked || ps.ResetConsumerSQL != "CALL sys.reset_consumer('shop.orders', 'orders-v2', 12)" {
		t.Errorf("guarantee %s position %+v", c.Guarantee, ps)
	}
	if diff := cmp.Diff(map[string]string{"scan.mode": "from-snapshot", "scan.snapshot-id": "12", "consumer-id": "orders-v2"}, c.Position.Launch().Options); diff != "" {
		t.Errorf("launch (-want +got):\n%s", diff)
	}
	// valid until snapshot 12's commit (start + 11 min) plus the default
	// snapshot.time-retained of an hour.
	if want := start.Add(11*time.Minute + time.Hour); !c.ValidUntil.Equal(want) || !strings.Contains(strings.Join(c.Reasons, "\n"), "snapshot.time-retained is 1h0m0s") {
		t.Errorf("ValidUntil %v, want %v; reasons %q", c.ValidUntil, want, c.Reasons)
	}

	if c.HasWarning(salvage.WarnConsumerOverrides) {
		t.Errorf("consumer bound, yet warned: %v", c.Warnings)
	}
	// Without a consumer to bind, the MonitorSource's own consumer-id
	// would override scan.snapshot-id: said, with the reset_consumer form.
	uc := salvaged(t, l, &salvage.Options{Snapshot: dir, Live: &livecheck.Checkers{Paimon: table}})
	if !strings.Contains(warningsText(uc.Warnings), "salvage.consumer-overrides: Paimon source") || !strings.Contains(warningsText(uc.Warnings), "CALL sys.reset_consumer('shop.orders', '<consumer-id>', 12)") {
		t.Errorf("warnings %v", uc.Warnings)
	}
	// The consumer file decides the start, and may stand past snapshot 12
	// (it follows every completed checkpoint): not exact-input but
	// data-loss until bound (issue 33 item 13).
	if uc.Guarantee != resume.DataLoss || !strings.Contains(warningsText(uc.Warnings), "the snapshots between are skipped (data-loss") {
		t.Errorf("unbound MonitorSource graded %s; warnings %v", uc.Guarantee, uc.Warnings)
	}

	tb.ExpireBefore(20)
	c, err = r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pos, _ = salvage.PositionOf(c.Position)
	if c.Guarantee != resume.DataLoss || pos.Sources[0].Paimon.NextSnapshot != 20 || !c.HasWarning(salvage.WarnDataLoss) {
		t.Fatalf("guarantee %s position %+v warnings %v", c.Guarantee, pos.Sources[0].Paimon, c.Warnings)
	}
	for _, w := range c.Warnings {
		if w.Code == salvage.WarnDataLoss && !strings.Contains(w.Text, "snapshots 12..19") {
			t.Errorf("warning does not name the range: %s", w.Text)
		}
	}
}

// ContinuousFileStoreSource restarts at the smallest unfinished split's
// snapshot: replay, not exact.
func TestPaimonPartlyRead(t *testing.T) {
	l := savepoints(t, "")
	dir := savepoint(t, l, "savepoint-aaaaaa-000000000003", 9, flinkckpttest.PaimonSource("p", "s3a://wh/shop.db/orders", 15, 13, 14))
	c := salvaged(t, l, &salvage.Options{Snapshot: dir})
	pos, _ := salvage.PositionOf(c.Position)
	if c.Guarantee != resume.Replay || pos.Sources[0].Paimon.NextSnapshot != 13 || !c.HasWarning(salvage.WarnPartlyReadSnapshot) {
		t.Errorf("guarantee %s position %+v", c.Guarantee, pos.Sources[0].Paimon)
	}
}

func TestMySQLSalvage(t *testing.T) {
	l := savepoints(t, "")
	dir := savepoint(t, l, "savepoint-aaaaaa-000000000004", 9, flinkckpttest.MySQLSource("cdc", sourcestate.BinlogOffset{File: "mysql-bin.000009", Pos: 777, SkipEvents: 1, GTIDs: "a:1-9"}))
	c := salvaged(t, l, &salvage.Options{Snapshot: dir})
	want := map[string]string{"scan.startup.mode": "specific-offset", "scan.startup.specific-offset.file": "mysql-bin.000009",
		"scan.startup.specific-offset.pos": "777", "scan.startup.specific-offset.gtid-set": "a:1-9", "scan.startup.specific-offset.skip-events": "1"}
	if diff := cmp.Diff(want, c.Position.Launch().Options); diff != "" || c.Guarantee != resume.ExactInput {
		t.Errorf("%s launch (-want +got):\n%s", c.Guarantee, diff)
	}

	// Still in the snapshot phase: no binlog position, a new snapshot.
	raw, _ := flinkckpttest.MySQLSplit(4, sourcestate.MySQLSplit{ID: "t:0", Table: "t", HighWatermark: &sourcestate.BinlogOffset{File: "f", Pos: 4}})
	co, _ := flinkckpttest.MySQLEnumerator(sourcestate.MySQLEnumerator{Version: 5, Phase: sourcestate.PhaseSnapshot})
	dir = savepoint(t, l, "savepoint-aaaaaa-000000000005", 9, flinkckpttest.Source{UID: "cdc", Splits: []sourcestate.RawSplit{raw}, Coordinator: co})
	c = salvaged(t, l, &salvage.Options{Snapshot: dir})
	if c.Guarantee != resume.Replay || !c.HasWarning(salvage.WarnSnapshotPhase) || c.Position.Launch().Options["scan.startup.mode"] != "initial" {
		t.Errorf("guarantee %s launch %v", c.Guarantee, c.Position.Launch())
	}
}

// An unknown source yields no position, naming its operator id and split
// serializer version.
func TestUnknownSourceNoPosition(t *testing.T) {
	l := savepoints(t, "")
	src := flinkckpttest.Source{UID: "numbers", Splits: []sourcestate.RawSplit{{Version: 7, Data: []byte{1, 2, 3}}}}
	dir := savepoint(t, l, "savepoint-aaaaaa-000000000006", 9, src)
	_, err := salvager(t, l, &salvage.Options{Snapshot: dir}).Resolve(context.Background())
	if !errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), src.ID()) || !strings.Contains(err.Error(), "split serializer version 7") {
		t.Errorf("err %v", err)
	}
}

// A job with several sources gets one composite position; its options
// collide (scan.startup.mode), so each source keeps its own.
func TestCompositeFromChosenCheckpoint(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "s3a://b/"}
	job := "6f1e0000000000000000000000000001"
	for id := int64(1); id <= 2; id++ {
		sources := []flinkckpttest.Source{
			flinkckpttest.KafkaSource("orders", "topic", 10*id, 11*id),
			flinkckpttest.MySQLSource("customers", sourcestate.BinlogOffset{File: "mysql-bin.000001", Pos: 100 * id}),
		}
		if _, err := l.Checkpoint(ctx, job, id, &flinkckpttest.Checkpoint{Sources: sources}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := salvage.NewResolver(b, "ck/", &salvage.Options{Flink: &flinkckpt.Options{FlinkRoot: l.FlinkRoot()}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pos, _ := salvage.PositionOf(c.Position)
	if pos.CheckpointID != 2 || len(pos.Sources) != 2 || pos.Sources[0].Kafka[1].Offset != 22 || pos.Sources[1].MySQL.Pos != 200 {
		t.Fatalf("position %+v", pos)
	}
	if !c.Position.Launch().IsZero() || !c.HasWarning(salvage.WarnSeveralSources) {
		t.Errorf("launch %v warnings %v", c.Position.Launch(), c.Warnings)
	}
	if pos.Sources[1].Options["scan.startup.specific-offset.pos"] != "200" {
		t.Errorf("mysql options %v", pos.Sources[1].Options)
	}
}

func TestResolverContract(t *testing.T) {
	ctx := context.Background()
	l := savepoints(t, "")
	dir := savepoint(t, l, "savepoint-aaaaaa-000000000009", 9, flinkckpttest.KafkaSource("k", "topic", 7, 11))
	r := salvager(t, l, &salvage.Options{Snapshot: dir})
	// The check passes a resolver that fails: say what it answers. Not
	// checked against a live log, the offsets are offered as they are (the
	// grade of an unchecked salvage is TestKafkaNotChecked's).
	c, err := r.Resolve(ctx)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if got := c.Position.Launch().Options["scan.startup.specific-offsets"]; got != "partition:0,offset:7;partition:1,offset:11" || !c.Guarantee.Valid() || !c.HasWarning(salvage.WarnNotChecked) {
		t.Errorf("chose %q (%s), warnings %v", got, c.Guarantee, c.Warnings)
	}
	for _, err := range resumetest.CheckResolver(ctx, r) {
		t.Error(err)
	}
	if r.MaxGuarantee() != resume.ExactInput || r.Name() != salvage.DefaultName {
		t.Errorf("max guarantee %s name %s", r.MaxGuarantee(), r.Name())
	}
}

// A salvaged position beyond what the live system holds is an error (the
// topic or table was recreated), not a candidate.
func TestPositionBeyondLiveSystem(t *testing.T) {
	ctx := context.Background()
	l := savepoints(t, "")
	dir := savepoint(t, l, "savepoint-aaaaaa-000000000007", 9, flinkckpttest.KafkaSource("k", "topic", 500))
	cl := kafkaCluster(t, 1, 20)
	if _, err := salvager(t, l, &salvage.Options{Snapshot: dir, Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: cl}}}).Resolve(ctx); err == nil || errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), "above today's end offset 20") {
		t.Errorf("kafka: err %v", err)
	}

	tb := paimontest.New(t, l.Bucket, "wh/shop.db/orders").Schema(nil).CommitEvery(5, time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), time.Minute)
	dir = savepoint(t, l, "savepoint-aaaaaa-000000000008", 9, flinkckpttest.MonitorSource("m", 40))
	table, err := paimon.NewTable(l.Bucket, tb.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := salvager(t, l, &salvage.Options{Snapshot: dir, Live: &livecheck.Checkers{Paimon: table}}).Resolve(ctx); err == nil || !strings.Contains(err.Error(), "recreated") {
		t.Errorf("paimon: err %v", err)
	}
}

// A KafkaSource that read two topics: Flink SQL's Kafka table refuses
// scan.startup.specific-offsets for several topics, so the source gets no
// option. The launch then starts nowhere specific (the table's
// scan.startup.mode), which is possible loss: data loss, never exact
// input, even when every offset is still in the live log; the warning
// gives the DataStream form and each topic's specific offsets.
func TestKafkaSeveralTopics(t *testing.T) {
	split := func(topic string, partition int32, offset int64) sourcestate.RawSplit {
		return flinkckpttest.KafkaSplit(sourcestate.KafkaSplit{Topic: topic, Partition: partition, StartingOffset: offset, StoppingOffset: sourcestate.OffsetNone})
	}
	l := savepoints(t, "")
	dir := savepoint(t, l, "savepoint-aaaaaa-00000000000a", 4, flinkckpttest.Source{UID: "k", Splits: []sourcestate.RawSplit{split("a", 0, 10), split("a", 1, 11), split("b", 0, 3)}})

	cl := kafkaCluster(t, 2, 20, "a", "b")

	for _, tc := range []struct {
		name  string
		check salvage.KafkaLog
	}{{"Checked", kafkaoffset.Log{Client: cl}}, {"NotChecked", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			cand := salvaged(t, l, &salvage.Options{Snapshot: dir, Live: &livecheck.Checkers{Kafka: tc.check}})
			if cand.Guarantee != resume.DataLoss || !cand.HasWarning(salvage.WarnSeveralTopics) {
				t.Errorf("guarantee %s warnings %v, want data-loss with %s", cand.Guarantee, cand.Warnings, salvage.WarnSeveralTopics)
			}
			if l := cand.Position.Launch(); !l.IsZero() {
				t.Errorf("launch %+v, want none: no SQL option starts several topics", l)
			}
			starts := kafkaStarts(t, cand)
			var got []int64
			for _, k := range starts {
				got = append(got, k.Offset)
			}
			if diff := cmp.Diff([]int64{10, 11, 3}, got); diff != "" {
				t.Errorf("offsets (-want +got):\n%s", diff)
			}
			var text string
			for _, w := range cand.Warnings {
				if w.Code == salvage.WarnSeveralTopics {
					text = w.Text
				}
			}
			for _, want := range []string{
				"read 2 topics (a, b)",
				`OffsetsInitializer.offsets(Map.of(new TopicPartition("a", 0), 10L, new TopicPartition("a", 1), 11L, new TopicPartition("b", 0), 3L))`,
				"topic a: scan.startup.specific-offsets=partition:0,offset:10;partition:1,offset:11; topic b: scan.startup.specific-offsets=partition:0,offset:3",
				"possible loss, graded as loss",
			} {
				if !strings.Contains(text, want) {
					t.Errorf("warning lacks %q:\n%s", want, text)
				}
			}
		})
	}
}

// Paimon's legacy MonitorFunction (0.9 and older) salvages like
// MonitorSource: its next snapshot, exact input with its consumer bound
// (data-loss unbound: the consumer file decides the start). One that had
// planned nothing yet gives no position (it once dereferenced a nil state).
func TestLegacyMonitorFunctionSalvage(t *testing.T) {
	l := savepoints(t, "")
	dir := savepoint(t, l, "savepoint-aaaaaa-00000000000b", 5, flinkckpttest.LegacyMonitorSource("orders-monitor", 12))
	c := salvaged(t, l, &salvage.Options{Snapshot: dir, PaimonConsumer: "orders-v2"})
	want := map[string]string{"scan.mode": "from-snapshot", "scan.snapshot-id": "12", "consumer-id": "orders-v2"}
	if diff := cmp.Diff(want, c.Position.Launch().Options); diff != "" || c.Guarantee != resume.ExactInput {
		t.Errorf("guarantee %s, launch (-want +got):\n%s", c.Guarantee, diff)
	}
	if c := salvaged(t, l, &salvage.Options{Snapshot: dir}); c.Guarantee != resume.DataLoss || !c.HasWarning(salvage.WarnConsumerOverrides) {
		t.Errorf("unbound: guarantee %s, warnings %v", c.Guarantee, c.Warnings)
	}

	dir = savepoint(t, l, "savepoint-aaaaaa-00000000000c", 6, flinkckpttest.LegacyMonitorSource("orders-monitor"))
	if _, err := salvager(t, l, &salvage.Options{Snapshot: dir}).Resolve(context.Background()); !errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), "no snapshot id") {
		t.Errorf("err %v, want no position: nothing planned yet", err)
	}
}
