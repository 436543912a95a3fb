package scenario

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Kafka is a stateless job that read topic "orders" (3 partitions) with
// group "orders-sink" and is being redeployed.
type Kafka struct {
	Cluster *kfake.Cluster
	Client  *kgo.Client
	Brokers []string
	Topic   string
	Group   string
	// Rewind is the start time a by-time restart would use.
	Rewind time.Time
}

// Close closes the client and the cluster.
func (k *Kafka) Close() {
	k.Client.Close()
	k.Cluster.Close()
}

// BuildKafka starts an in-process Kafka (kfake on 127.0.0.1) with topic
// "orders": 60 records per partition, record n written at 11:00+n min; the
// group committed offsets 55, 52 and 50 (the job's last checkpoint).
func BuildKafka(ctx context.Context) (*Kafka, error) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "orders"))
	if err != nil {
		return nil, fmt.Errorf("scenario: start kfake: %w", err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.MetadataMinAge(10*time.Millisecond))
	if err != nil {
		c.Close()
		return nil, err
	}
	k := &Kafka{Cluster: c, Client: cl, Brokers: c.ListenAddrs(), Topic: "orders", Group: "orders-sink", Rewind: Now.Add(-30 * time.Minute)}
	start := Now.Add(-time.Hour)
	var recs []*kgo.Record
	for p := int32(0); p < 3; p++ {
		for n := 0; n < 60; n++ {
			recs = append(recs, &kgo.Record{Topic: k.Topic, Partition: p, Value: []byte("order"), Timestamp: start.Add(time.Duration(n) * time.Minute)})
		}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		k.Close()
		return nil, fmt.Errorf("scenario: produce: %w", err)
	}
	commit := make(kadm.Offsets)
	for p, o := range []int64{55, 52, 50} {
		commit.AddOffset(k.Topic, int32(p), o, -1)
	}
	resp, err := kadm.NewClient(cl).CommitOffsets(ctx, k.Group, commit)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		k.Close()
		return nil, fmt.Errorf("scenario: commit: %w", err)
	}
	return k, nil
}

// Retention deletes partition 2's records below offset 54, as retention.ms
// would while the job was down: the committed offset 50 is gone.
func (k *Kafka) Retention(ctx context.Context) error {
	del := make(kadm.Offsets)
	del.AddOffset(k.Topic, 2, 54, -1)
	resp, err := kadm.NewClient(k.Client).DeleteRecords(ctx, del)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		return fmt.Errorf("scenario: delete records: %w", err)
	}
	return nil
}
