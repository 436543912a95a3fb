package kafkaoffset_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// base is the time the test records are stamped from.
var base = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func ms(d time.Duration) int64 { return base.Add(d).UnixMilli() }

type env struct {
	c   *kfake.Cluster
	cl  *kgo.Client
	adm *kadm.Client
}

// newEnv starts an in-process cluster on loopback with the given topics
// (partitions each) and a client for it; both close with the test.
func newEnv(t testing.TB, brokers int, partitions int32, topics []string, clientOpts ...kgo.Opt) *env {
	t.Helper()
	opts := []kfake.Opt{kfake.NumBrokers(brokers)}
	if len(topics) > 0 {
		opts = append(opts, kfake.SeedTopics(partitions, topics...))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	e := &env{c: c}
	e.newClient(t, clientOpts...)
	return e
}

// newClient replaces the env's client with a new one (the old one closes
// with the test): a client that produced to a topic before it was recreated
// or grew keeps stale metadata for a while.
func (e *env) newClient(t testing.TB, clientOpts ...kgo.Opt) {
	t.Helper()
	copts := append([]kgo.Opt{
		kgo.SeedBrokers(e.c.ListenAddrs()...),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.MetadataMinAge(10 * time.Millisecond),
	}, clientOpts...)
	cl, err := kgo.NewClient(copts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	e.cl, e.adm = cl, kadm.NewClient(cl)
}

// produce writes one record per timestamp (milliseconds) to the partition,
// each in its own batch, and returns nothing: offsets are 0, 1, … in order.
func (e *env) produce(t testing.TB, topic string, partition int32, stamps ...int64) {
	t.Helper()
	for _, s := range stamps {
		r := &kgo.Record{Topic: topic, Partition: partition, Value: []byte("v"), Timestamp: time.UnixMilli(s)}
		if err := e.cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

// produceN writes n records stamped base+i seconds.
func (e *env) produceN(t testing.TB, topic string, partition int32, n int) {
	t.Helper()
	stamps := make([]int64, n)
	for i := range stamps {
		stamps[i] = ms(time.Duration(i) * time.Second)
	}
	e.produce(t, topic, partition, stamps...)
}

func (e *env) commit(t testing.TB, group, topic string, offsets map[int32]int64) {
	t.Helper()
	os := make(kadm.Offsets)
	for p, o := range offsets {
		os.AddOffset(topic, p, o, -1)
	}
	resps, err := e.adm.CommitOffsets(context.Background(), group, os)
	if err == nil {
		err = resps.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
}

func (e *env) deleteRecords(t testing.TB, topic string, partition int32, before int64) {
	t.Helper()
	os := make(kadm.Offsets)
	os.AddOffset(topic, partition, before, -1)
	resps, err := e.adm.DeleteRecords(context.Background(), os)
	if err == nil {
		err = resps.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
}
