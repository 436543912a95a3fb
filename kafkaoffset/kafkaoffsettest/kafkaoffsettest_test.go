package kafkaoffsettest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// consume reads every record of a partition from offset 0 with a fresh
// client at the isolation level, up to the end that level reaches (the high
// watermark, or the last stable offset).
func consume(t *testing.T, k *kafkaoffsettest.Cluster, topic string, partition int32, level kgo.IsolationLevel) []*kgo.Record {
	t.Helper()
	_, end, lso := k.Offsets(topic, partition)
	if level == kgo.ReadCommitted() {
		end = lso
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.Addrs()...), kgo.FetchIsolationLevel(level),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().AtStart()}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out []*kgo.Record
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for len(out) == 0 || out[len(out)-1].Offset < end-1 {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatal(err)
		}
		out = append(out, fs.Records()...)
	}
	return out
}

func TestProduce(t *testing.T) {
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Brokers: 2, Topics: []kafkaoffsettest.Topic{{Name: "t", Partitions: 3}}})
	a := k.Produce("t", 1, t0, t0.Add(time.Minute))
	b := k.Produce("t", 1, t0.Add(2*time.Minute))
	if diff := cmp.Diff([]kafkaoffsettest.Appended{{First: 0, Next: 2}, {First: 2, Next: 3}}, []kafkaoffsettest.Appended{a, b}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	recs := consume(t, k, "t", 1, kgo.ReadUncommitted())
	var times []time.Time
	for _, r := range recs {
		times = append(times, r.Timestamp.UTC())
	}
	if diff := cmp.Diff([]time.Time{t0, t0.Add(time.Minute), t0.Add(2 * time.Minute)}, times); diff != "" {
		t.Errorf("record times (-want +got):\n%s", diff)
	}
	for _, addr := range k.Addrs() {
		if addr[:10] != "127.0.0.1:" {
			t.Errorf("broker listens on %s, want loopback", addr)
		}
	}
}

func TestLogAppendTimeTopic(t *testing.T) {
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{{Name: "lat", LogAppendTime: true}}})
	before := time.Now().Truncate(time.Millisecond)
	a := k.Produce("lat", 0, t0, t0.Add(time.Minute))
	if a.LogAppendTime.Before(before) || a.LogAppendTime.After(time.Now()) {
		t.Errorf("append time %s, want the time of the append", a.LogAppendTime)
	}
	for _, r := range consume(t, k, "lat", 0, kgo.ReadUncommitted()) {
		if !r.Timestamp.Equal(a.LogAppendTime) {
			t.Errorf("record %d at %s, want the append time %s", r.Offset, r.Timestamp, a.LogAppendTime)
		}
	}
	cfg, err := k.Admin.DescribeTopicConfigs(context.Background(), "lat")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := cfg.On("lat", nil); err != nil || value(v, "message.timestamp.type") != "LogAppendTime" {
		t.Errorf("message.timestamp.type %q (%v)", value(v, "message.timestamp.type"), err)
	}
}

func value(rc kadm.ResourceConfig, name string) string {
	for _, c := range rc.Configs {
		if c.Key == name && c.Value != nil {
			return *c.Value
		}
	}
	return ""
}

func TestTransaction(t *testing.T) {
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{{Name: "t", Partitions: 2}}})
	k.Produce("t", 0, t0, t0.Add(time.Second))
	open := k.BeginTransaction("open")
	open.Produce("t", 0, t0.Add(2*time.Second), t0.Add(3*time.Second))
	if s, e, lso := k.Offsets("t", 0); s != 0 || e != 4 || lso != 2 {
		t.Errorf("open: log %d..%d LSO %d, want 0..4 LSO 2", s, e, lso)
	}
	if got := len(consume(t, k, "t", 0, kgo.ReadCommitted())); got != 2 {
		t.Errorf("read_committed sees %d records of an open transaction's partition, want 2", got)
	}
	committed := k.BeginTransaction("committed")
	committed.Produce("t", 1, t0)
	committed.Commit()
	if s, e, lso := k.Offsets("t", 1); s != 0 || e != 2 || lso != 2 {
		t.Errorf("committed: log %d..%d LSO %d, want 0..2 (marker at 1) LSO 2", s, e, lso)
	}
	aborted := k.BeginTransaction("aborted")
	aborted.Produce("t", 1, t0)
	aborted.Abort()
	if _, e, lso := k.Offsets("t", 1); e != 4 || lso != 4 {
		t.Errorf("aborted: end %d LSO %d, want 4 and 4", e, lso)
	}
}

func TestCommitLog(t *testing.T) {
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{CommitLog: true, CommitLogPartitions: 5, Topics: []kafkaoffsettest.Topic{{Name: "t", Partitions: 2}}})
	k.Produce("t", 0, t0, t0)
	k.CommitAt(t0.Add(time.Minute), "job", "t", map[int32]int64{0: 2, 1: 0})
	// OffsetFetch answers from kfake's own group state…
	fetched, err := k.Admin.FetchOffsets(context.Background(), "job")
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := fetched.Lookup("t", 0); o.At != 2 {
		t.Errorf("OffsetFetch %d, want 2", o.At)
	}
	// …and the records a broker writes are in the group's partition.
	p := kafkaoffset.GroupPartition("job", 5)
	recs := consume(t, k, kafkaoffset.ConsumerOffsetsTopic, p, kgo.ReadUncommitted())
	if len(recs) != 2 {
		t.Fatalf("%d commit records in partition %d, want 2", len(recs), p)
	}
	var key kmsg.OffsetCommitKey
	var val kmsg.OffsetCommitValue
	if err := key.ReadFrom(recs[0].Key); err != nil {
		t.Fatal(err)
	}
	if err := val.ReadFrom(recs[0].Value); err != nil {
		t.Fatal(err)
	}
	if key.Version != 1 || key.Group != "job" || key.Topic != "t" || key.Partition != 0 || val.Version != 3 || val.Offset != 2 || val.CommitTimestamp != t0.Add(time.Minute).UnixMilli() {
		t.Errorf("key %+v value %+v", key, val)
	}
	k.DeleteCommit("job", "t", 1)
	if recs := consume(t, k, kafkaoffset.ConsumerOffsetsTopic, p, kgo.ReadUncommitted()); len(recs) != 3 || recs[2].Value != nil {
		t.Errorf("after DeleteCommit: %d records, last value %q; want a tombstone", len(recs), recs[len(recs)-1].Value)
	}
}

func TestJoinGroup(t *testing.T) {
	k := kafkaoffsettest.New(t, nil)
	id := k.JoinGroup("shared")
	groups, err := k.Admin.DescribeGroups(context.Background(), "shared")
	if err != nil {
		t.Fatal(err)
	}
	g := groups["shared"]
	if g.Err != nil || len(g.Members) != 1 || g.Members[0].MemberID != id || g.State != "Stable" {
		t.Errorf("group %+v (err %v)", g, g.Err)
	}
}

func TestDeleteRecordsAndRetention(t *testing.T) {
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{
		{Name: "t"},
		{Name: "r", Configs: map[string]string{"retention.ms": "3600000"}},
	}})
	k.Produce("t", 0, t0, t0, t0)
	k.DeleteRecords("t", 0, 2)
	if s, e, _ := k.Offsets("t", 0); s != 2 || e != 3 {
		t.Errorf("log %d..%d, want 2..3", s, e)
	}
	k.Produce("r", 0, t0, t0)                      // older than retention.ms
	k.Produce("r", 0, time.Now().Add(time.Minute)) // newer
	k.ApplyRetention()
	if s, e, _ := k.Offsets("r", 0); s != 2 || e != 3 {
		t.Errorf("after retention: log %d..%d, want 2..3", s, e)
	}
}

// TestCompact: compaction keeps the newest record of each key and, with
// delete.retention.ms 0, drops the tombstone too: the delete of "a" is gone
// for a reader that had not reached it.
func TestCompact(t *testing.T) {
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{{Name: "c", Compacted: true, Configs: map[string]string{"delete.retention.ms": "0"}}}})
	k.ProduceRecords("c", 0, kafkaoffsettest.Record{Key: []byte("a"), Value: []byte("1"), Time: t0}, kafkaoffsettest.Record{Key: []byte("b"), Value: []byte("1"), Time: t0})
	k.ProduceRecords("c", 0, kafkaoffsettest.Record{Key: []byte("a"), Time: t0}) // tombstone
	k.ProduceRecords("c", 0, kafkaoffsettest.Record{Key: []byte("c"), Value: []byte("1"), Time: t0})
	k.Compact()
	var got []string
	for _, r := range consume(t, k, "c", 0, kgo.ReadUncommitted()) {
		got = append(got, fmt.Sprintf("%d:%s", r.Offset, r.Key))
	}
	if diff := cmp.Diff([]string{"1:b", "3:c"}, got); diff != "" {
		t.Errorf("after compaction (-want +got):\n%s", diff)
	}
}
