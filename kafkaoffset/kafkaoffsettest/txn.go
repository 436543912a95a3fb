package kafkaoffsettest

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Transaction is a transactional producer's open transaction, as Flink's
// KafkaSink writes with EXACTLY_ONCE: its records count towards the high
// watermark at once, but read_committed readers see nothing from its first
// record on (the last stable offset) until it ends.
type Transaction struct {
	c  *Cluster
	id string
	cl *kgo.Client
}

// BeginTransaction starts a transaction with transactional id id (a
// producer of its own, closed when the test ends). A transaction left open
// stays open until the test ends or kfake's transaction timeout (kgo's
// default, 40 s) aborts it.
func (c *Cluster) BeginTransaction(id string) *Transaction {
	c.t.Helper()
	cl := c.newClient(kgo.TransactionalID(id), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.MetadataMinAge(10*time.Millisecond))
	if err := cl.BeginTransaction(); err != nil {
		c.t.Fatalf("kafkaoffsettest: begin transaction %q: %v", id, err)
	}
	return &Transaction{c: c, id: id, cl: cl}
}

// Produce appends one record per time to a partition inside the
// transaction (CreateTime), like Cluster.Produce.
func (tx *Transaction) Produce(topic string, partition int32, times ...time.Time) Appended {
	tx.c.t.Helper()
	if len(times) == 0 {
		return Appended{}
	}
	return produceWith(tx.c.t, tx.cl, topic, partition, timed(times))
}

// Commit commits the transaction: its records become readable for
// read_committed readers and the last stable offset moves past them.
func (tx *Transaction) Commit() { tx.end(kgo.TryCommit, "commit") }

// Abort aborts the transaction: read_committed readers skip its records,
// and the last stable offset moves past them.
func (tx *Transaction) Abort() { tx.end(kgo.TryAbort, "abort") }

func (tx *Transaction) end(how kgo.TransactionEndTry, what string) {
	tx.c.t.Helper()
	ctx := context.Background()
	if err := tx.cl.Flush(ctx); err != nil {
		tx.c.t.Fatalf("kafkaoffsettest: %s transaction %q: flush: %v", what, tx.id, err)
	}
	if err := tx.cl.EndTransaction(ctx, how); err != nil {
		tx.c.t.Fatalf("kafkaoffsettest: %s transaction %q: %v", what, tx.id, err)
	}
}
