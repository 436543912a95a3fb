package livecheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// KafkaTransactions answers for a KafkaSink's transactions on the sink's
// cluster. kafkaoffset.Log implements it with kadm.
type KafkaTransactions interface {
	// DescribeTransactions describes the given transactional ids in one
	// call (one DescribeTransactions request per coordinator broker). An id
	// the brokers do not know (never used, or forgotten after
	// transactional.id.expiration.ms) is absent from the map.
	DescribeTransactions(ctx context.Context, ids []string) (map[string]KafkaTxn, error)
	// ListTransactions lists the transactional ids that start with prefix
	// (ListTransactions on every broker).
	ListTransactions(ctx context.Context, prefix string) ([]string, error)
}

// KafkaTxn is a broker's answer for one transactional id
// (DescribeTransactions).
type KafkaTxn struct {
	TransactionalID string
	// State is the coordinator's: Empty, Ongoing, PrepareCommit,
	// PrepareAbort, CompleteCommit, CompleteAbort, Dead,
	// PrepareEpochFence.
	State      string
	ProducerID int64
	Epoch      int16
	// Start is when the open transaction began (zero when none is open);
	// Timeout its transaction.timeout.ms.
	Start   time.Time
	Timeout time.Duration
	// Partitions are the partitions the open transaction wrote to
	// (topic/partition).
	Partitions []string
}

// DefaultKafkaTransactionTimeout is the broker's transaction.max.timeout.ms
// default, the longest a KafkaSink's transaction can stay open: 15
// minutes.
const DefaultKafkaTransactionTimeout = 15 * time.Minute

// Sink verdicts: what a sink's pending output is today.
const (
	// SinkCommitted: the sink committed it.
	SinkCommitted = "committed"
	// SinkOpen: still open, committable by a restore until its deadline.
	SinkOpen = "open"
	// SinkLost: aborted, or nothing open to commit: a restore's commit
	// fails and Flink drops it.
	SinkLost = "lost"
	// SinkUnknown: the sink cannot say.
	SinkUnknown = "unknown"
)

// KafkaPendingTxn is one prepared transaction a snapshot's KafkaSink
// committer holds.
type KafkaPendingTxn struct {
	CheckpointID    int64  `json:"checkpoint_id"`
	TransactionalID string `json:"transactional_id"`
	ProducerID      int64  `json:"producer_id"`
	Epoch           int16  `json:"epoch"`
}

// KafkaSinkTxn is one pending transaction as the sink's brokers answered
// for it.
type KafkaSinkTxn struct {
	KafkaPendingTxn
	// Verdict is one of the Sink constants; Why says why, naming the
	// broker's state.
	Verdict string `json:"verdict"`
	Why     string `json:"why"`
	// State, BrokerProducerID and BrokerEpoch are the broker's answer
	// ("" when the id is unknown).
	State            string `json:"state,omitempty"`
	BrokerProducerID int64  `json:"broker_producer_id,omitempty"`
	BrokerEpoch      int16  `json:"broker_epoch,omitempty"`
	// Partitions are the partitions the open transaction wrote to, as the
	// broker lists them (open, or PrepareCommit/PrepareAbort).
	Partitions []string `json:"partitions,omitempty"`
	// SinkTopics, for a lost transaction whose partitions the broker no
	// longer lists (a completed abort clears them: Kafka's CompleteAbort,
	// kfake's Empty), are the topics the caller says the sink writes
	// (Checkers.KafkaSinkTopics, --kafka-sink-topic): its records were in
	// partitions of these, which ones the broker no longer says.
	// PartitionsUnknown is then set.
	SinkTopics        []string `json:"sink_topics,omitempty"`
	PartitionsUnknown bool     `json:"partitions_unknown,omitempty"`
	// Deadline is an open transaction's start + timeout: Kafka aborts it
	// then.
	Deadline time.Time `json:"deadline,omitzero"`
	// Several: the id carries another transaction than the snapshot's
	// (a newer producer epoch: POOLING naming, transactions v2 bumping the
	// epoch on each commit): the snapshot's cannot be told apart.
	Several bool `json:"several_transactions,omitempty"`
}

// KafkaSinkCheck is what CheckKafkaSink found.
type KafkaSinkCheck struct {
	// Verdict is the worst of the transactions': lost, then unknown, then
	// open, then committed.
	Verdict      string         `json:"verdict"`
	Transactions []KafkaSinkTxn `json:"transactions"`
}

// of returns the transactions of verdict v.
func (k *KafkaSinkCheck) of(v string) []KafkaSinkTxn {
	var out []KafkaSinkTxn
	for _, t := range k.Transactions {
		if t.Verdict == v {
			out = append(out, t)
		}
	}
	return out
}

// Lost returns the transactions whose output is lost.
func (k *KafkaSinkCheck) Lost() []KafkaSinkTxn { return k.of(SinkLost) }

// Unknown returns the transactions the brokers could not decide.
func (k *KafkaSinkCheck) Unknown() []KafkaSinkTxn { return k.of(SinkUnknown) }

// Open returns the transactions still open.
func (k *KafkaSinkCheck) Open() []KafkaSinkTxn { return k.of(SinkOpen) }

// TxnText names transactions: checkpoint, transactional id, producer id and
// epoch, partitions, and why.
func TxnText(ts []KafkaSinkTxn) string {
	var parts []string
	for _, t := range ts {
		s := fmt.Sprintf("checkpoint %d: transactional id %s (producer id %d, epoch %d)", t.CheckpointID, t.TransactionalID, t.ProducerID, t.Epoch)
		switch {
		case len(t.Partitions) > 0:
			s += " writing " + strings.Join(t.Partitions, ", ")
		case t.PartitionsUnknown && len(t.SinkTopics) > 0:
			s += " writing partitions of topic(s) " + strings.Join(t.SinkTopics, ", ") + " (the sink's; which ones the broker no longer lists once the transaction is aborted)"
		case t.PartitionsUnknown:
			s += " writing partitions the broker no longer lists once the transaction is aborted (name the sink's topics to have them reported: Checkers.KafkaSinkTopics, --kafka-sink-topic)"
		}
		parts = append(parts, s+": "+t.Why)
	}
	return strings.Join(parts, "; ")
}

// CheckKafkaSink asks the sink's brokers for each pending transaction of
// a snapshot's KafkaSink committer, in one DescribeTransactions call, and
// says what a restore's commit of it (by producer id and epoch, as
// KafkaCommitter resumes it) then finds:
//   - Ongoing or PrepareCommit at the same producer id and epoch: open,
//     committable until its start + timeout (the Result's ValidUntil: the
//     earliest deadline, to the millisecond);
//   - CompleteCommit at the same epoch: committed;
//   - CompleteAbort, PrepareAbort or Empty (nothing open to commit: kfake
//     answers Empty after a timeout abort where Kafka answers
//     CompleteAbort): lost (the
//     restore's EndTxn gets INVALID_TXN_STATE or ProducerFenced, and Flink
//     drops the committable);
//   - a newer epoch with a transaction open or committed on it: unknown,
//     Several (the id carries several transactions: which one committed
//     cannot be told);
//   - an id the brokers do not know, or that now has another producer id:
//     unknown (forgotten after transactional.id.expiration.ms, 7 days by
//     default);
//   - any other state: unknown.
func CheckKafkaSink(ctx context.Context, t KafkaTransactions, pending []KafkaPendingTxn) (Result, error) {
	return checkKafkaSink(ctx, t, pending, nil)
}

// CheckKafkaSink is [CheckKafkaSink] with c's sink checker
// ([Checkers.SinkChecker]); a lost transaction whose partitions the broker
// no longer lists is named with c.KafkaSinkTopics (the sink's topics), and
// marked PartitionsUnknown. c must have a sink checker.
func (c *Checkers) CheckKafkaSink(ctx context.Context, pending []KafkaPendingTxn) (Result, error) {
	t := c.SinkChecker()
	if t == nil {
		return Result{System: SystemKafkaSink}, errors.New("livecheck: no KafkaSink checker (Checkers.Kafka or KafkaSink)")
	}
	return checkKafkaSink(ctx, t, pending, c.KafkaSinkTopics)
}

// WithSinkTopics returns c with KafkaSinkTopics set to topics when c names
// none (the caller's topics win over a plan's), else c itself.
func (c *Checkers) WithSinkTopics(topics []string) *Checkers {
	if c == nil || len(c.KafkaSinkTopics) > 0 || len(topics) == 0 {
		return c
	}
	cc := *c
	cc.KafkaSinkTopics = topics
	return &cc
}

func checkKafkaSink(ctx context.Context, t KafkaTransactions, pending []KafkaPendingTxn, topics []string) (Result, error) {
	res := Result{System: SystemKafkaSink}
	var ids []string
	for _, p := range pending {
		if !slices.Contains(ids, p.TransactionalID) {
			ids = append(ids, p.TransactionalID)
		}
	}
	got, err := t.DescribeTransactions(ctx, ids)
	if err != nil {
		return res, fmt.Errorf("describe transactions %s: %w", strings.Join(ids, ", "), err)
	}
	sc := &KafkaSinkCheck{Verdict: SinkCommitted}
	for _, p := range pending {
		b, ok := got[p.TransactionalID]
		st := TxnVerdict(p, b, ok)
		if st.Verdict == SinkLost && len(st.Partitions) == 0 {
			st.PartitionsUnknown, st.SinkTopics = true, slices.Clone(topics)
		}
		if st.Verdict == SinkOpen {
			res.valid(st.Deadline, fmt.Sprintf("valid until %s: kafka sink transactional id %s (checkpoint %d) is %s since %s and times out after transaction.timeout.ms %d; a restore after it loses checkpoint %d's output",
				st.Deadline.Format(time.RFC3339Nano), p.TransactionalID, p.CheckpointID, b.State, b.Start.UTC().Format(time.RFC3339Nano), b.Timeout.Milliseconds(), p.CheckpointID))
		}
		sc.Transactions = append(sc.Transactions, st)
	}
	for _, v := range []string{SinkOpen, SinkUnknown, SinkLost} {
		if len(sc.of(v)) > 0 {
			sc.Verdict = v
		}
	}
	res.Sink, res.Checked = sc, true
	return res, nil
}

// TxnVerdict is the rule of CheckKafkaSink for one pending transaction p
// and the brokers' answer b (ok false: the brokers do not know the id).
func TxnVerdict(p KafkaPendingTxn, b KafkaTxn, ok bool) KafkaSinkTxn {
	st := KafkaSinkTxn{KafkaPendingTxn: p}
	if !ok {
		st.Verdict = SinkUnknown
		st.Why = "the brokers do not know the transactional id (forgotten after transactional.id.expiration.ms, 7 days by default, or never used): whether it committed cannot be told"
		return st
	}
	st.State, st.BrokerProducerID, st.BrokerEpoch, st.Partitions = b.State, b.ProducerID, b.Epoch, b.Partitions
	open := b.State == "Ongoing" || b.State == "PrepareCommit"
	switch {
	case b.ProducerID != p.ProducerID:
		st.Verdict = SinkUnknown
		st.Why = fmt.Sprintf("the id now belongs to producer id %d (state %s), not the snapshot's %d: the broker forgot the old one (transactional.id.expiration.ms, 7 days by default) and the id was used again, so whether the snapshot's transaction committed cannot be told", b.ProducerID, b.State, p.ProducerID)
	case b.Epoch > p.Epoch && (open || b.State == "CompleteCommit"):
		st.Verdict, st.Several = SinkUnknown, true
		st.Why = fmt.Sprintf("the id carries a newer transaction (epoch %d, state %s) than the snapshot's (epoch %d): POOLING transaction naming or transactions v2 (an epoch bump per commit) reuse one id, so whether the snapshot's committed cannot be told", b.Epoch, b.State, p.Epoch)
	case open && b.Epoch == p.Epoch:
		st.Verdict = SinkOpen
		st.Deadline = b.Start.Add(b.Timeout).UTC()
		st.Why = fmt.Sprintf("%s since %s with transaction.timeout.ms %d: a restore commits it until %s, after which the broker aborts it and its output is lost",
			b.State, b.Start.UTC().Format(time.RFC3339Nano), b.Timeout.Milliseconds(), st.Deadline.Format(time.RFC3339Nano))
	case b.State == "CompleteCommit" && b.Epoch == p.Epoch:
		st.Verdict = SinkCommitted
		st.Why = "CompleteCommit: the old job committed it"
	case b.State == "CompleteAbort" || b.State == "PrepareAbort" || b.State == "Empty":
		st.Verdict = SinkLost
		st.Why = fmt.Sprintf("%s at epoch %d: nothing of the snapshot's transaction (epoch %d) is open to commit (aborted, by the transaction timeout or a fence): a restore's commit gets INVALID_TXN_STATE or ProducerFenced and Flink drops the committable", b.State, b.Epoch, p.Epoch)
	default:
		st.Verdict = SinkUnknown
		st.Why = fmt.Sprintf("state %s at epoch %d (the snapshot's epoch %d): not one resumekit maps", b.State, b.Epoch, p.Epoch)
	}
	return st
}

// SinkChecker returns the checker that answers for a KafkaSink: KafkaSink
// when set, else the sources' Kafka checker when it can (the sink writes
// to the same cluster); nil when none.
func (c *Checkers) SinkChecker() KafkaTransactions {
	if c == nil {
		return nil
	}
	if c.KafkaSink != nil {
		return c.KafkaSink
	}
	t, _ := c.Kafka.(KafkaTransactions)
	return t
}

// SinkTimeout returns the transaction timeout assumed for a KafkaSink
// nothing was asked of: KafkaSinkTimeout, or the broker default.
func (c *Checkers) SinkTimeout() time.Duration {
	if c == nil || c.KafkaSinkTimeout <= 0 {
		return DefaultKafkaTransactionTimeout
	}
	return c.KafkaSinkTimeout
}

// MemoTransactions wraps t so that each transactional id is described at
// most once, and the prefix listing made once: a restore and a salvage
// resolver of one chain that share the checker set (resumectl's resolve)
// then cost one DescribeTransactions per coordinator broker, not one per
// resolver. Use one per resolve: answers are not refreshed. Safe for
// concurrent use.
func MemoTransactions(t KafkaTransactions) KafkaTransactions {
	if t == nil {
		return nil
	}
	if m, ok := t.(*memoTxns); ok {
		return m
	}
	return &memoTxns{t: t, known: map[string]KafkaTxn{}, asked: map[string]bool{}, lists: map[string][]string{}}
}

type memoTxns struct {
	t     KafkaTransactions
	mu    sync.Mutex
	known map[string]KafkaTxn
	asked map[string]bool
	lists map[string][]string
}

func (m *memoTxns) DescribeTransactions(ctx context.Context, ids []string) (map[string]KafkaTxn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var missing []string
	for _, id := range ids {
		if !m.asked[id] && !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		got, err := m.t.DescribeTransactions(ctx, missing)
		if err != nil {
			return nil, err
		}
		for _, id := range missing {
			m.asked[id] = true
			if t, ok := got[id]; ok {
				m.known[id] = t
			}
		}
	}
	out := make(map[string]KafkaTxn, len(ids))
	for _, id := range ids {
		if t, ok := m.known[id]; ok {
			out[id] = t
		}
	}
	return out, nil
}

func (m *memoTxns) ListTransactions(ctx context.Context, prefix string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l, ok := m.lists[prefix]; ok {
		return slices.Clone(l), nil
	}
	l, err := m.t.ListTransactions(ctx, prefix)
	if err != nil {
		return nil, err
	}
	m.lists[prefix] = l
	return slices.Clone(l), nil
}
