package flinkckpt_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// timedOutTransaction opens transaction txnID on k with a transaction
// timeout of timeout, writes one record to out/1 in it, and waits until
// the broker aborts it by that timeout: DescribeTransactions polled in a
// bounded loop until the state leaves Ongoing (kfake answers Empty after
// a timeout abort, where Kafka answers CompleteAbort). It returns the
// producer id and epoch the transaction had (what a KafkaSink committer's
// state holds).
func timedOutTransaction(t *testing.T, k *kafkaoffsettest.Cluster, txnID string, timeout time.Duration) (int64, int16, livecheck.KafkaTxn) {
	t.Helper()
	ctx := context.Background()
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.Addrs()...), kgo.TransactionalID(txnID), kgo.TransactionTimeout(timeout), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "out", Partition: 1, Value: []byte("lost")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	pid, epoch, err := cl.ProducerID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	log := kafkaoffset.Log{Client: k.Client}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for range 1200 { // a minute at most
		got, err := log.DescribeTransactions(ctx, []string{txnID})
		if err != nil {
			t.Fatal(err)
		}
		if st := got[txnID]; st.State != "Ongoing" {
			return pid, epoch, st
		}
		<-tick.C
	}
	t.Fatalf("transaction %s still open a minute after its %s timeout", txnID, timeout)
	return 0, 0, livecheck.KafkaTxn{}
}

// The review's reproduction: a KafkaSink transaction of checkpoint 8
// really aborted by the broker at its transaction.timeout.ms (no fence):
// the restore is data-loss, refused by default, and the report names the
// sink, the checkpoint, the transactional id and what is known of the
// partitions: the broker no longer lists them once the abort completed,
// so the sink's topic (Checkers.KafkaSinkTopics, else the new job's plan)
// is named, or said not known; nothing is invented.
func TestRestoreSinkTransactionTimedOut(t *testing.T) {
	ctx := context.Background()
	k := kafkaoffsettest.New(t, nil)
	k.CreateTopic(kafkaoffsettest.Topic{Name: "orders", Partitions: 2})
	k.CreateTopic(kafkaoffsettest.Topic{Name: "out", Partitions: 2})
	k.Produce("orders", 0, make([]time.Time, 20)...)
	k.Produce("orders", 1, make([]time.Time, 20)...)
	pid, epoch, after := timedOutTransaction(t, k, "orders-sink-0-8", 2*time.Second)
	if after.State != "Empty" || len(after.Partitions) != 0 || after.Epoch <= epoch {
		t.Fatalf("after the timeout: %+v (the transaction's epoch %d)", after, epoch)
	}
	b := memblob.OpenBucket(nil)
	defer b.Close()
	liveCheckpoint(t, b, 8, flinkckpttest.KafkaSource("src", "orders", 10, 10),
		flinkckpttest.Source{UID: "Sink Committer: sink", Parallelism: 1, ListStates: []flinkckpttest.ListState{{Name: sinkstate.CommitterStateName,
			Elements: []flinkckpttest.ListElement{{Data: flinkckpttest.KafkaCommitterElement(8, "orders-sink-0-8", pid, epoch)}}}}})
	// The new job's plan names the sink's topic (jobgraph.JobOperator.
	// SinkTopics, from a Kafka sink table's topic option).
	planned := jobgraph.JobFromUIDs("src", "Sink Committer: sink")
	planned.Operators[1].SinkTopics = []string{"planned-out"}
	for _, tc := range []struct {
		topics []string
		job    *jobgraph.Job
		says   string
	}{
		{[]string{"out"}, nil, "writing partitions of topic(s) out (the sink's; which ones the broker no longer lists once the transaction is aborted)"},
		{nil, planned, "writing partitions of topic(s) planned-out (the sink's;"},
		{[]string{"out"}, planned, "writing partitions of topic(s) out (the sink's;"},
		{nil, nil, "writing partitions the broker no longer lists once the transaction is aborted (name the sink's topics"},
	} {
		r, err := flinkckpt.NewResolver(b, "ck/", &flinkckpt.Options{FlinkRoot: "s3a://b/ck/", Job: tc.job,
			Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: k.Client}, KafkaSinkTopics: tc.topics}})
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		w := warningText(c, flinkckpt.WarnSinkOutputLost)
		for _, part := range []string{"KafkaSink committer ", "operator 5abb6f104479fbc38acf37f2d04fd907", "checkpoint 8: transactional id orders-sink-0-8", tc.says, "Empty at epoch"} {
			if !strings.Contains(w, part) {
				t.Errorf("topics %v: warning does not say %q: %q", tc.topics, part, w)
			}
		}
		sinks := sinksOf(t, c)
		if c.Guarantee != resume.DataLoss || len(sinks) != 1 || sinks[0].Verdict != livecheck.SinkLost || len(sinks[0].Transactions) != 1 {
			t.Fatalf("guarantee %s sinks %+v", c.Guarantee, sinks)
		}
		if tx := sinks[0].Transactions[0]; !tx.PartitionsUnknown || (tc.topics == nil && tc.job == nil) != (tx.SinkTopics == nil) || tx.State != "Empty" {
			t.Errorf("transaction %+v", tx)
		}
		if d, err := (&resume.Chain{Resolvers: []resume.Resolver{r}}).Resolve(ctx); err == nil || d.Chosen != nil {
			t.Errorf("the default policy chose a lost output: %v %v", d.Chosen, err)
		}
	}
}
