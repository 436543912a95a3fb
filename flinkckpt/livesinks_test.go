package flinkckpt_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// sinkSetup is a kfake cluster with the source topic "orders" (two
// partitions of 100 records) and an open KafkaSink transaction
// "orders-sink-0-8" on topic "out" (kgo's transaction timeout, 40 s), and
// chk-8 of liveJob reading orders at offset 10 whose committer (uid
// "Sink Committer: sink") holds that transaction as checkpoint 8's.
type sinkSetup struct {
	k      *kafkaoffsettest.Cluster
	tx     *kafkaoffsettest.Transaction
	txn    livecheck.KafkaTxn // the broker's answer while open
	r      func(live *livecheck.Checkers, committed bool) *flinkckpt.Resolver
	txnID  string
	pid    int64
	epoch  int16
	before time.Time
}

func newSinkSetup(t testing.TB, brokers int, txnID string) *sinkSetup {
	t.Helper()
	ctx := context.Background()
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Brokers: brokers})
	k.CreateTopic(kafkaoffsettest.Topic{Name: "orders", Partitions: 2})
	k.CreateTopic(kafkaoffsettest.Topic{Name: "out", Partitions: 2})
	times := make([]time.Time, 100)
	for i := range times {
		times[i] = time.Date(2026, 12, 1, 10, 0, i, 0, time.UTC)
	}
	for p := range int32(2) {
		k.Produce("orders", p, times...)
	}
	s := &sinkSetup{k: k, txnID: txnID, before: time.Now()}
	s.tx = k.BeginTransaction(txnID)
	s.tx.Produce("out", 1, time.Now())
	got, err := (kafkaoffset.Log{Client: k.Client}).DescribeTransactions(ctx, []string{txnID})
	if err != nil || got[txnID].State != "Ongoing" {
		t.Fatalf("describe %s: %+v %v", txnID, got, err)
	}
	s.txn = got[txnID]
	s.pid, s.epoch = s.txn.ProducerID, s.txn.Epoch
	b := memblob.OpenBucket(nil)
	t.Cleanup(func() { b.Close() })
	liveCheckpoint(t, b, 8, flinkckpttest.KafkaSource("src", "orders", 10, 10),
		flinkckpttest.Source{UID: "Sink Committer: sink", Parallelism: 1, ListStates: []flinkckpttest.ListState{{Name: sinkstate.CommitterStateName,
			Elements: []flinkckpttest.ListElement{{Data: flinkckpttest.KafkaCommitterElement(8, txnID, s.pid, s.epoch)}}}}})
	s.r = func(live *livecheck.Checkers, committed bool) *flinkckpt.Resolver {
		r, err := flinkckpt.NewResolver(b, "ck/", &flinkckpt.Options{FlinkRoot: "s3a://b/ck/", Live: live, SinkCommitted: committed})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	return s
}

func sinksOf(t *testing.T, c resume.Candidate) []flinkckpt.SinkCheck {
	t.Helper()
	p, err := flinkckpt.PositionOf(c.Position)
	if err != nil {
		t.Fatal(err)
	}
	return p.Sinks
}

// A restore whose KafkaSink transaction is still open: exactly-once, and
// valid_until is the transaction's deadline (start + transaction.timeout.ms
// from the broker's answer) to the millisecond; the text report says what
// happens after it. One DescribeTransactions at most per broker.
func TestRestoreSinkTransactionOpen(t *testing.T) {
	s := newSinkSetup(t, 3, "orders-sink-0-8")
	count := requests(s.k, kmsg.DescribeTransactions)
	c, err := s.r(&livecheck.Checkers{Kafka: kafkaoffset.Log{Client: s.k.Client}}, false).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	deadline := s.txn.Start.Add(s.txn.Timeout)
	if c.Guarantee != resume.ExactlyOnce || !c.ValidUntil.Equal(deadline) || c.ValidUntilAssumed || deadline.Nanosecond()%int(time.Millisecond) != 0 {
		t.Errorf("guarantee %s valid until %s (assumed %v), want the deadline %s; warnings %v", c.Guarantee, c.ValidUntil.Format(time.RFC3339Nano), c.ValidUntilAssumed, deadline.Format(time.RFC3339Nano), c.Warnings)
	}
	if !strings.Contains(strings.Join(c.Reasons, "\n"), "after it the broker aborts them and a restore loses their output") {
		t.Errorf("reasons %q", c.Reasons)
	}
	sinks := sinksOf(t, c)
	if len(sinks) != 1 || sinks[0].Type != flinkckpt.SinkTypeKafka || sinks[0].Verdict != livecheck.SinkOpen || len(sinks[0].Transactions) != 1 ||
		sinks[0].Transactions[0].TransactionalID != "orders-sink-0-8" || sinks[0].Transactions[0].Partitions[0] != "out/1" || sinks[0].Pending[0].CheckpointID != 8 {
		t.Errorf("sinks %+v", sinks)
	}
	if total, most := count(); total != 1 || most != 1 {
		t.Errorf("DescribeTransactions: %d requests, %d at one broker; want 1", total, most)
	}
}

// The same transaction aborted by the broker (its timeout, or a fence:
// the coordinator aborts and bumps the epoch either way): the restore's
// commit fails and Flink drops the committable, so the candidate is
// data-loss, refused by the default policy, and the warning names the
// sink, the checkpoint and the transactional id.
func TestRestoreSinkTransactionAborted(t *testing.T) {
	s := newSinkSetup(t, 1, "orders-sink-0-8")
	// A new producer with the same transactional id: InitProducerId aborts
	// the open transaction and bumps the epoch, as the timeout does.
	fence, err := kgo.NewClient(kgo.SeedBrokers(s.k.Addrs()...), kgo.TransactionalID("orders-sink-0-8"))
	if err != nil {
		t.Fatal(err)
	}
	defer fence.Close()
	if err := fence.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := fence.EndTransaction(context.Background(), kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
	r := s.r(&livecheck.Checkers{Kafka: kafkaoffset.Log{Client: s.k.Client}}, false)
	c, err := r.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	w := warningText(c, flinkckpt.WarnSinkOutputLost)
	if c.Guarantee != resume.DataLoss || !strings.Contains(w, "checkpoint 8") || !strings.Contains(w, "orders-sink-0-8") || !strings.Contains(w, "KafkaSink committer operator ") {
		t.Errorf("guarantee %s, warning %q", c.Guarantee, w)
	}
	if sinks := sinksOf(t, c); len(sinks) != 1 || sinks[0].Verdict != livecheck.SinkLost {
		t.Errorf("sinks %+v", sinks)
	}
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{r}}).Resolve(context.Background())
	if err == nil || d.Chosen != nil {
		t.Errorf("the default policy chose a lost output: %v %v", d.Chosen, err)
	}
	// Asserted committed (--flink-sink-committed): the grade stays.
	c, err = s.r(&livecheck.Checkers{Kafka: kafkaoffset.Log{Client: s.k.Client}}, true).Resolve(context.Background())
	if err != nil || c.Guarantee != resume.ExactlyOnce || !c.HasWarning(flinkckpt.WarnSinkCommittedAsserted) || c.HasWarning(flinkckpt.WarnSinkOutputLost) {
		t.Errorf("asserted: %s %v %v", c.Guarantee, c.Warnings, err)
	}
}

// Committed: the broker answers CompleteCommit at the snapshot's epoch
// (real Kafka's answer after the commit; kfake keeps no Complete states, so
// the test answers DescribeTransactions as Kafka does): exactly-once, and
// no deadline from the sink.
func TestRestoreSinkTransactionCommitted(t *testing.T) {
	s := newSinkSetup(t, 1, "orders-sink-0-8")
	s.tx.Commit()
	s.k.Kafka.ControlKey(int16(kmsg.DescribeTransactions), func(req kmsg.Request) (kmsg.Response, error, bool) {
		s.k.Kafka.KeepControl()
		r := req.(*kmsg.DescribeTransactionsRequest)
		resp := r.ResponseKind().(*kmsg.DescribeTransactionsResponse)
		for _, id := range r.TransactionalIDs {
			st := kmsg.NewDescribeTransactionsResponseTransactionState()
			st.TransactionalID, st.State, st.ProducerID, st.ProducerEpoch, st.StartTimestamp, st.TimeoutMillis = id, "CompleteCommit", s.pid, s.epoch, -1, 40000
			resp.TransactionStates = append(resp.TransactionStates, st)
		}
		return resp, nil, true
	})
	c, err := s.r(&livecheck.Checkers{Kafka: kafkaoffset.Log{Client: s.k.Client}}, false).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// valid_until is the source topic's retention (7 days), not a sink
	// deadline.
	if c.Guarantee != resume.ExactlyOnce || c.ValidUntilAssumed || c.ValidUntil.Before(time.Now().Add(24*time.Hour)) || c.HasWarning(flinkckpt.WarnSinkNotChecked) {
		t.Errorf("guarantee %s valid until %s warnings %v", c.Guarantee, c.ValidUntil, c.Warnings)
	}
	if sinks := sinksOf(t, c); len(sinks) != 1 || sinks[0].Verdict != livecheck.SinkCommitted {
		t.Errorf("sinks %+v", sinks)
	}
}

// Without a sink checker (no Options.Live at all, or a Kafka checker that
// is not asked): the grade stays what the input says, with
// flink.sink-not-checked and an assumed valid_until of the snapshot's time
// + 15 min (the broker default), or the timeout given.
func TestRestoreSinkNotChecked(t *testing.T) {
	s := newSinkSetup(t, 1, "orders-sink-0-8")
	for _, tc := range []struct {
		live    *livecheck.Checkers
		timeout time.Duration
	}{{nil, 15 * time.Minute}, {&livecheck.Checkers{KafkaSinkTimeout: time.Minute}, time.Minute}} {
		c, err := s.r(tc.live, false).Resolve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		w := warningText(c, flinkckpt.WarnSinkNotChecked)
		if c.Guarantee != resume.ExactlyOnce || !c.ValidUntilAssumed || !c.ValidUntil.Equal(c.At.Add(tc.timeout).UTC()) || !strings.Contains(w, "orders-sink-0-8") || !strings.Contains(w, "checkpoint 8") {
			t.Errorf("timeout %s: guarantee %s valid until %s (assumed %v, at %s), warning %q", tc.timeout, c.Guarantee, c.ValidUntil, c.ValidUntilAssumed, c.At, w)
		}
	}
}

// A transactional id the brokers do not know (forgotten after
// transactional.id.expiration.ms): unknown, never better than unchecked;
// a broker refusing DescribeTransactions fails the resolve (a failure to
// look: the chain fails closed).
func TestRestoreSinkUnknownAndRefusing(t *testing.T) {
	s := newSinkSetup(t, 1, "orders-sink-0-8")
	b := memblob.OpenBucket(nil)
	defer b.Close()
	liveCheckpoint(t, b, 8, flinkckpttest.KafkaSource("src", "orders", 10, 10),
		flinkckpttest.Source{UID: "Sink Committer: sink", Parallelism: 1, ListStates: []flinkckpttest.ListState{{Name: sinkstate.CommitterStateName,
			Elements: []flinkckpttest.ListElement{{Data: flinkckpttest.KafkaCommitterElement(8, "forgotten-0-8", 77, 0)}}}}})
	live := &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: s.k.Client}}
	c, err := liveResolver(t, b, live).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	w := warningText(c, flinkckpt.WarnSinkUnknown)
	if c.Guarantee != resume.ExactlyOnce || !c.ValidUntilAssumed || !strings.Contains(w, "transactional.id.expiration.ms") || !strings.Contains(w, "forgotten-0-8") {
		t.Errorf("unknown id: %s assumed %v %q", c.Guarantee, c.ValidUntilAssumed, w)
	}
	s.k.Kafka.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DescribeTransactions}, Err: kerr.TransactionalIDAuthorizationFailed, Count: -1})
	if _, err := s.r(live, false).Resolve(context.Background()); err == nil || !strings.Contains(err.Error(), "orders-sink-0-8") {
		t.Errorf("refusing broker: %v", err)
	}
}

// The Go chain without Options.Live over deleted records: kafka-offsets
// proves orders/0 gone below 50, and the restore, checked by nothing,
// continues it at 10: the restore gives the chain its decoded input starts,
// so it is graded data-loss, not exactly-once.
func TestChainWithoutLiveSeesDeletedRecords(t *testing.T) {
	ctx := context.Background()
	k := liveKafka(t)
	k.DeleteRecords("orders", 0, 50)
	k.Commit("g", "orders", map[int32]int64{0: 60, 1: 60})
	b := memblob.OpenBucket(nil)
	defer b.Close()
	liveCheckpoint(t, b, 1, flinkckpttest.KafkaSource("src", "orders", 10, 10))
	kr, err := kafkaoffset.NewResolver(k.Client, []string{"orders"}, &kafkaoffset.Options{Group: "g"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{liveResolver(t, b, nil), kr}, Policy: resume.Policy{MinGuarantee: resume.DataLoss}}).Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range d.Considered {
		if o.Candidate != nil && o.Candidate.Resolver == flinkckpt.DefaultName {
			if o.Candidate.Guarantee != resume.DataLoss || !o.Candidate.HasWarning(resume.WarnProvedLost) {
				t.Errorf("restore: %s %v", o.Candidate.Guarantee, o.Candidate.Warnings)
			}
			return
		}
	}
	t.Fatalf("no restore candidate: %+v", d.Considered)
}

// BenchmarkRestoreSinkCheck: a restore of a checkpoint whose KafkaSink
// committer holds one open transaction, checked on a 3-broker kfake
// cluster (source log offsets and retention, then one DescribeTransactions
// at the coordinator).
func BenchmarkRestoreSinkCheck(b *testing.B) {
	s := newSinkSetup(b, 3, "orders-sink-0-8")
	r := s.r(&livecheck.Checkers{Kafka: kafkaoffset.Log{Client: s.k.Client}}, false)
	count := requests(s.k, kmsg.DescribeTransactions)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if _, err := r.Resolve(context.Background()); err != nil {
			b.Fatal(err)
		}
		n++
	}
	total, most := count()
	b.ReportMetric(float64(total)/float64(n), "DescribeTransactions/op")
	b.ReportMetric(float64(most)/float64(n), "DescribeTransactions-per-broker/op")
}

// The sink's brokers down (a separate sink cluster, Options.Live.KafkaSink,
// closed): the restore fails (a failure to look, never a better grade),
// and the chain fails closed: the weaker kafka-offsets start is not chosen
// in its place.
func TestRestoreSinkBrokerDown(t *testing.T) {
	s := newSinkSetup(t, 1, "orders-sink-0-8")
	sink := kafkaoffsettest.New(t, nil)
	sinkClient := sink.Client
	sink.Kafka.Close()
	s.k.Commit("g", "orders", map[int32]int64{0: 10, 1: 10})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r := s.r(&livecheck.Checkers{Kafka: kafkaoffset.Log{Client: s.k.Client}, KafkaSink: kafkaoffset.Log{Client: sinkClient}}, false)
	kr, err := kafkaoffset.NewResolver(s.k.Client, []string{"orders"}, &kafkaoffset.Options{Group: "g"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{r, kr}}).Resolve(ctx)
	if err == nil || d.Chosen != nil || !strings.Contains(err.Error(), "orders-sink-0-8") {
		t.Errorf("sink brokers down: chosen %v, %v", d.Chosen, err)
	}
}

// The source-ahead race for Kafka with the restore as the only snapshot
// candidate, in Go without Options.Live: the group committed checkpoint
// 8's offsets (10 on both partitions, where chk-8 has them) and the
// KafkaSink committer of chk-8 holds checkpoint 8's transaction, which
// nothing proved committed. The kafka-offsets start at the commits never
// commits it: data-loss (chain.sink-pending naming the committer and the
// checkpoint), never replay; --flink-sink-committed (SinkCommitted)
// lifts it.
func TestSourceAheadRaceKafkaRestoreWithoutLive(t *testing.T) {
	ctx := context.Background()
	s := newSinkSetup(t, 1, "orders-sink-0-8")
	s.k.Commit("g", "orders", map[int32]int64{0: 10, 1: 10})
	for _, committed := range []bool{false, true} {
		kr, err := kafkaoffset.NewResolver(s.k.Client, []string{"orders"}, &kafkaoffset.Options{Group: "g"})
		if err != nil {
			t.Fatal(err)
		}
		d, err := (&resume.Chain{Resolvers: []resume.Resolver{s.r(nil, committed), kr}, Policy: resume.Policy{MinGuarantee: resume.DataLoss}}).Resolve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var k *resume.Candidate
		for _, o := range d.Considered {
			if o.Resolver == kafkaoffset.DefaultName {
				k = o.Candidate
			}
		}
		if k == nil {
			t.Fatalf("considered %+v", d.Considered)
		}
		w := warningText(*k, resume.WarnSinkPending)
		switch {
		case !committed && (k.Guarantee != resume.DataLoss || !strings.Contains(w, "checkpoint 8") || !strings.Contains(w, "kafka:orders/0 at 10 (the snapshot's 10)")):
			t.Errorf("pending: kafka-offsets %s %v", k.Guarantee, k.Warnings)
		case committed && (k.Guarantee == resume.DataLoss || w != ""):
			t.Errorf("asserted committed: kafka-offsets %s %v", k.Guarantee, k.Warnings)
		}
	}
}
