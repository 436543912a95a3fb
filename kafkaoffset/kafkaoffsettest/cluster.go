package kafkaoffsettest

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// Options configure a [Cluster]. A nil *Options is a one-broker cluster
// without topics.
type Options struct {
	// Brokers is the number of brokers; 0 means 1.
	Brokers int
	// Topics are created when the cluster starts.
	Topics []Topic
	// CommitLog makes every commit also write the OffsetCommit record a
	// broker writes to __consumer_offsets (which kfake does not have), so
	// that the commit's time can be read back.
	CommitLog bool
	// CommitLogPartitions is the partition count of __consumer_offsets
	// (offsets.topic.num.partitions); 0 means 50, Kafka's default.
	CommitLogPartitions int32
	// ClientOpts are appended to the options of [Cluster.Client].
	ClientOpts []kgo.Opt
	// Now is the commit time [Cluster.Commit] writes; nil means time.Now.
	Now func() time.Time
}

// Topic is a topic to create.
type Topic struct {
	Name string
	// Partitions is the partition count; 0 means 1.
	Partitions int32
	// LogAppendTime sets message.timestamp.type=LogAppendTime: records are
	// stamped with the broker's clock when appended, and the times given
	// to Produce are ignored.
	LogAppendTime bool
	// Compacted sets cleanup.policy=compact.
	Compacted bool
	// Configs are further topic configurations, e.g.
	// "delete.retention.ms": "3600000".
	Configs map[string]string
}

// Cluster is an in-process Kafka on 127.0.0.1 and clients for it. Its
// methods may be called from several goroutines.
type Cluster struct {
	// Kafka is the kfake cluster, for its fault injection and controls.
	Kafka *kfake.Cluster
	// Client reads the cluster; the test may use it freely (it is closed
	// when the test ends). Its metadata is at most 10 ms old.
	Client *kgo.Client
	// Admin wraps Client.
	Admin *kadm.Client

	t        resumetest.TB
	prod     *kgo.Client // the helper's own writes
	now      func() time.Time
	logParts int32 // 0: no commit log

	mu        sync.Mutex
	logAppend map[string]bool // LogAppendTime topics
}

// New starts a cluster for the test and creates opts' topics.
func New(t resumetest.TB, opts *Options) *Cluster {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	brokers := max(opts.Brokers, 1)
	// Loopback only: kfake listens on 127.0.0.1 today; the host is forced
	// here so that it never depends on that default.
	kopts := []kfake.Opt{kfake.NumBrokers(brokers), kfake.ListenFn(func(network, address string) (net.Listener, error) {
		_, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		return net.Listen(network, net.JoinHostPort("127.0.0.1", port))
	})}
	kc, err := kfake.NewCluster(kopts...)
	if err != nil {
		t.Fatalf("kafkaoffsettest: start kfake: %v", err)
	}
	t.Cleanup(kc.Close)
	c := &Cluster{Kafka: kc, t: t, now: opts.Now, logAppend: map[string]bool{}}
	if c.now == nil {
		c.now = time.Now
	}
	c.prod = c.newClient(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.MetadataMinAge(10*time.Millisecond))
	c.Client = c.newClient(append([]kgo.Opt{kgo.MetadataMinAge(10 * time.Millisecond)}, opts.ClientOpts...)...)
	c.Admin = kadm.NewClient(c.Client)
	if opts.CommitLog {
		c.logParts = opts.CommitLogPartitions
		if c.logParts <= 0 {
			c.logParts = 50
		}
		c.CreateTopic(Topic{Name: kafkaoffset.ConsumerOffsetsTopic, Partitions: c.logParts, Compacted: true})
	}
	for _, tp := range opts.Topics {
		c.CreateTopic(tp)
	}
	return c
}

func (c *Cluster) newClient(opts ...kgo.Opt) *kgo.Client {
	c.t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.Kafka.ListenAddrs()...)}, opts...)...)
	if err != nil {
		c.t.Fatalf("kafkaoffsettest: new client: %v", err)
	}
	c.t.Cleanup(cl.Close)
	return cl
}

// Addrs returns the brokers' addresses (127.0.0.1:port), for a client of
// the test's own or resumectl's --brokers.
func (c *Cluster) Addrs() []string { return c.Kafka.ListenAddrs() }

// CreateTopic creates a topic.
func (c *Cluster) CreateTopic(tp Topic) {
	c.t.Helper()
	configs := map[string]*string{}
	for k, v := range tp.Configs {
		configs[k] = kadm.StringPtr(v)
	}
	if tp.Compacted {
		configs["cleanup.policy"] = kadm.StringPtr("compact")
	}
	if tp.LogAppendTime {
		configs["message.timestamp.type"] = kadm.StringPtr("LogAppendTime")
	}
	parts := max(tp.Partitions, 1)
	resp, err := c.Admin.CreateTopic(context.Background(), parts, 1, configs, tp.Name)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		c.t.Fatalf("kafkaoffsettest: create topic %q (%d partitions): %v", tp.Name, parts, err)
	}
	if tp.LogAppendTime || configs["message.timestamp.type"] != nil && *configs["message.timestamp.type"] == "LogAppendTime" {
		c.mu.Lock()
		c.logAppend[tp.Name] = true
		c.mu.Unlock()
	}
}

// DeleteRecords deletes a partition's records below offset before (the
// log start moves there), as retention or kafka-delete-records does.
func (c *Cluster) DeleteRecords(topic string, partition int32, before int64) {
	c.t.Helper()
	os := make(kadm.Offsets)
	os.AddOffset(topic, partition, before, -1)
	resps, err := c.Admin.DeleteRecords(context.Background(), os)
	if err == nil {
		err = resps.Error()
	}
	if err != nil {
		c.t.Fatalf("kafkaoffsettest: delete records of %s/%d below %d: %v", topic, partition, before, err)
	}
}

// ApplyRetention applies every topic's retention.ms and retention.bytes
// now, as the broker's log cleaner would: batches older than retention.ms
// (by their timestamps, against the wall clock) are deleted.
func (c *Cluster) ApplyRetention() { c.Kafka.ApplyRetention() }

// Compact compacts every topic with cleanup.policy=compact now: only the
// newest record of each key stays, and tombstones older than
// delete.retention.ms go.
func (c *Cluster) Compact() { c.Kafka.Compact() }

// Offsets returns a partition's log start offset, high watermark and last
// stable offset as a consumer lists them.
func (c *Cluster) Offsets(topic string, partition int32) (start, end, lastStable int64) {
	c.t.Helper()
	ctx := context.Background()
	get := func(what string, l kadm.ListedOffsets, err error) int64 {
		c.t.Helper()
		if err != nil {
			c.t.Fatalf("kafkaoffsettest: list %s of %s/%d: %v", what, topic, partition, err)
		}
		o, ok := l.Lookup(topic, partition)
		if !ok || o.Err != nil {
			c.t.Fatalf("kafkaoffsettest: list %s of %s/%d: %v", what, topic, partition, o.Err)
		}
		return o.Offset
	}
	s, err := c.Admin.ListStartOffsets(ctx, topic)
	start = get("log start offset", s, err)
	e, err := c.Admin.ListEndOffsets(ctx, topic)
	end = get("end offset", e, err)
	l, err := c.Admin.ListCommittedOffsets(ctx, topic) // read_committed: the LSO
	lastStable = get("last stable offset", l, err)
	return start, end, lastStable
}
