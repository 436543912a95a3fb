package salvage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
	"github.com/resumekit/resumekit/internal/quotecap"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// SinkPending is a Sink V2 committer of the salvaged snapshot that held
// committables (prepared transactions) it had not committed: a stateless
// start never commits them. Its JSON is {"operator_id", "uid",
// "pending": [{"checkpoint_id", "committables"}], "lost", "unknown",
// "committed_asserted"}.
type SinkPending struct {
	OperatorID string `json:"operator_id"`
	// UID is the committer's uid ("Sink Committer: <sink uid>") when the
	// new job's description or the snapshot names it.
	UID string `json:"uid,omitempty"`
	// Pending are the checkpoints with pending committables, summed over
	// the committer's subtasks.
	Pending []sinkstate.Pending `json:"pending"`
	// Lost counts the committables whose output a start at the position
	// loses: all pending ones, unless CommittedAsserted.
	Lost int `json:"lost"`
	// Unknown, when set, says why the committer's state could not be
	// decoded: it may hold prepared transactions (counted as loss).
	Unknown string `json:"unknown,omitempty"`
	// CommittedAsserted: Options.SinkCommitted asserts the old job
	// committed every transaction (Lost is 0).
	CommittedAsserted bool `json:"committed_asserted,omitempty"`
	// CommittedByStop names what proved the snapshot a completed
	// stop-with-savepoint's, whose transactions the old job committed
	// before it ended (Lost is 0).
	CommittedByStop string `json:"committed_by_stop,omitempty"`
	// Verdict is what the sink's brokers said of a KafkaSink's
	// transactions (livecheck: committed, open, lost, unknown) when a sink
	// checker was given (Options.Live); Transactions each one's answer.
	// Only committed lifts the loss: a stateless start commits nothing.
	Verdict      string                   `json:"verdict,omitempty"`
	Transactions []livecheck.KafkaSinkTxn `json:"transactions,omitempty"`
	// PaimonTable is what the Paimon sink's table answered for a Paimon
	// committer's pending checkpoints (Live.PaimonSink).
	PaimonTable *livecheck.PaimonSinkCheck `json:"paimon_table,omitempty"`
}

// label names the committer by uid when known, and by operator id.
func (s SinkPending) label() string {
	if s.UID != "" {
		return fmt.Sprintf("%q (operator %s)", s.UID, s.OperatorID)
	}
	return "operator " + s.OperatorID
}

// committables returns the pending committables' total.
func (s SinkPending) committables() int {
	n := 0
	for _, p := range s.Pending {
		n += p.Committables
	}
	return n
}

// checkpoints says at which checkpoints the committables were prepared.
func (s SinkPending) checkpoints() string {
	var ids []string
	for _, p := range s.Pending {
		switch {
		case p.Legacy:
			ids = append(ids, "no checkpoint id (Flink 1.14 committer state)")
		case p.CheckpointID == sinkstate.EndOfInput:
			ids = append(ids, "the end of input")
		default:
			ids = append(ids, fmt.Sprint(p.CheckpointID))
		}
	}
	word := "checkpoint "
	if len(ids) > 1 {
		word = "checkpoints "
	}
	return word + quotecap.Join(ids, ", ")
}

// text says what the committer held, in one line.
func (s SinkPending) text() string {
	if s.Unknown != "" {
		return fmt.Sprintf("sink committer %s: its state could not be decoded (%s): it may hold prepared transactions", s.label(), s.Unknown)
	}
	return fmt.Sprintf("sink committer %s held %d committable(s) prepared at %s and not committed when the snapshot was taken", s.label(), s.committables(), s.checkpoints())
}

// sinks reads the snapshot's committer state: every committer that held
// prepared transactions (or whose state could not be decoded) grades the
// candidate data-loss, unless Options.SinkCommitted asserts they were
// committed. Storage failing to return a committer's state file is an
// error (a failure to look).
func (x *resolution) sinks(ctx context.Context, bucket *blob.Bucket, snap *flinkckpt.Snapshot, pos *Position) error {
	st, err := flinkckpt.SinkState(ctx, bucket, snap)
	if st == nil || ctx.Err() != nil || errors.Is(err, flinkckpt.ErrStateUnreadable) {
		if err == nil {
			err = ctx.Err()
		}
		return fmt.Errorf("salvage: %w", err)
	}
	stop, err := x.stopProof(ctx, snap)
	if err != nil {
		return err
	}
	for i := range st.Committers {
		c := &st.Committers[i]
		sp := SinkPending{OperatorID: c.OperatorID, UID: c.UID, Pending: c.Pending()}
		if sp.Pending == nil {
			sp.Pending = []sinkstate.Pending{}
		}
		if op, ok := x.r.o.Job.Operator(c.OperatorID); ok && op.UID != "" {
			sp.UID = op.UID
		}
		switch {
		case c.Err != nil:
			sp.Unknown = c.Err.Error()
		case c.Format == sinkstate.FormatUnknown:
			sp.Unknown = fmt.Sprintf("%d element(s) of a committer state format resumekit does not decode: %s", c.Elements, strings.Join(c.Notes, "; "))
		case len(sp.Pending) == 0:
			continue // an empty collector: nothing to commit, nothing lost
		}
		if stop == "" && sp.Unknown == "" && x.r.o.live().SinkChecker() != nil && !x.r.o.SinkCommitted {
			var txns []livecheck.KafkaPendingTxn
			other := 0
			for _, p := range sp.Pending {
				other += p.Other
				for _, k := range p.Kafka {
					txns = append(txns, livecheck.KafkaPendingTxn{CheckpointID: p.CheckpointID, TransactionalID: k.TransactionalID, ProducerID: k.ProducerID, Epoch: k.Epoch})
				}
			}
			if other == 0 && len(txns) > 0 {
				var topics []string
				if op, ok := x.r.o.Job.Operator(c.OperatorID); ok {
					topics = op.SinkTopics
				}
				res, err := x.r.o.live().WithSinkTopics(topics).CheckKafkaSink(ctx, txns)
				if err != nil {
					return fmt.Errorf("salvage: KafkaSink committer %s: %w", sp.label(), err)
				}
				sp.Verdict, sp.Transactions = res.Sink.Verdict, res.Sink.Transactions
				if res.Sink.Verdict == livecheck.SinkCommitted {
					x.reason("%s: the sink's brokers answer CompleteCommit for every one: the old job committed them, nothing is lost", sp.text())
					pos.Sinks = append(pos.Sinks, sp)
					continue
				}
				x.reason("KafkaSink committer %s: the sink's brokers say %s: %s", sp.label(), res.Sink.Verdict, livecheck.TxnText(res.Sink.Transactions))
			}
		}
		var table *livecheck.PaimonSinkCheck
		if stop == "" && !x.r.o.SinkCommitted && c.Format == sinkstate.FormatPaimon && c.Err == nil && c.Paimon.CommitUser != "" && x.r.o.live().PaimonSink != nil {
			var ids []int64
			for _, p := range sp.Pending {
				ids = append(ids, p.CheckpointID)
			}
			table, err = livecheck.CheckPaimonSink(ctx, x.r.o.live().PaimonSink, c.Paimon.CommitUser, ids)
			if err != nil {
				return fmt.Errorf("salvage: sink committer %s: %w", sp.label(), err)
			}
			sp.PaimonTable = table
		}
		switch {
		case stop != "":
			sp.CommittedByStop = stop
			x.warn(WarnSinkCommittedByStop, "%s; %s: Flink ends a stopped job only after its sink committers committed the savepoint's transactions (notifyCheckpointComplete of the synchronous savepoint), so none is lost", sp.text(), stop)
		case x.r.o.SinkCommitted:
			sp.CommittedAsserted = true
			x.warn(WarnSinkCommittedAsserted, "%s; SinkCommitted (--flink-sink-committed) asserts the old job committed every transaction of the snapshot, so none is lost", sp.text())
		case table != nil && table.State() == livecheck.PaimonCommitted:
			x.warn(WarnSinkCommittedChecked, "%s; the Paimon sink table %s says they were committed (%s), so none is lost", sp.text(), table.Table, paimonWhy(table))
		case table != nil:
			sp.Lost = sp.committables()
			x.grade(resume.DataLoss)
			x.reason("%s; the Paimon sink table %s: %s: a stateless start never commits them (only a restore of this snapshot does), so their output is lost: graded data-loss", sp.text(), table.Table, paimonWhy(table))
			x.warn(WarnSinkTransactionsPending, "%s; the Paimon sink table %s: %s: a stateless start never commits them, so their output is lost; a restore of this snapshot commits them (Paimon re-commits restored committables)", sp.text(), table.Table, paimonWhy(table))
		default:
			x.notChecked(sp, c, snap)
			sp.Lost = sp.committables()
			x.grade(resume.DataLoss)
			x.reason("%s: a stateless start never commits them (only a restore of this snapshot does: Flink re-commits restored committables), so their output is lost unless the old job committed them before it stopped: graded data-loss", sp.text())
			x.warn(WarnSinkTransactionsPending, "%s: a stateless start never commits them, so their output is lost unless the old job committed them before it stopped (it normally does when the checkpoint completes; a crash between _metadata and the commit leaves them open). Check the sink (its committed transactions or files for checkpoint %s) and, when every one was committed, pass --flink-sink-committed (salvage.Options.SinkCommitted)",
				sp.text(), pendingIDs(sp))
		}
		pos.Sinks = append(pos.Sinks, sp)
	}
	return nil
}

// notChecked warns salvage.sink-not-checked for a committer whose sink
// nothing asked (no checker for its kind, or a committer resumekit does
// not decode): the data-loss grade then stands on the assumption that the
// old job had not committed them, and the warning says what is at stake:
// asking the sink may prove them committed, and if they are not, only a
// restore of the snapshot commits them, for a KafkaSink only until an
// assumed deadline (the snapshot's time + the assumed transaction
// timeout), after which every start loses their output. The deadline is
// the restore's, not this start's: the salvage candidate's ValidUntil is
// left to its sources (a stateless start never commits them either way).
// A committer whose sink was asked (Verdict set) is not warned.
func (x *resolution) notChecked(sp SinkPending, c *sinkstate.Committer, snap *flinkckpt.Snapshot) {
	if sp.Verdict != "" {
		return
	}
	live := x.r.o.live()
	other, kafka := 0, 0
	for _, p := range sp.Pending {
		other += p.Other
		kafka += len(p.Kafka)
	}
	switch {
	case sp.Unknown != "" || other > 0 || c.Format == sinkstate.FormatUnknown:
		x.warn(WarnSinkNotChecked, "%s: its committables are of a type resumekit does not decode, so no sink was asked whether the old job committed them: graded as lost; check the sink and, when every one was committed, pass --flink-sink-committed (salvage.Options.SinkCommitted)", sp.text())
	case c.Format == sinkstate.FormatPaimon:
		why := "no Paimon sink table given (Options.Live.PaimonSink, --paimon-sink-table)"
		if live.PaimonSink != nil {
			why = "the committer state records no commit user"
		}
		x.warn(WarnSinkNotChecked, "%s: not checked against the sink table (%s): graded as lost, though the old job normally commits them once the checkpoint completes; the table's snapshots by commit user (Paimon's own rule) would say, and only a restore of this snapshot commits them if it did not", sp.text(), why)
	case kafka > 0 && live.SinkChecker() == nil:
		timeout := live.SinkTimeout()
		until := snap.ModTime.Add(timeout).UTC()
		x.warn(WarnSinkNotChecked, "%s: not checked against the sink's brokers (no sink checker: Options.Live.Kafka or .KafkaSink, --kafka-brokers, --kafka-sink-brokers): graded as lost, though the old job normally commits them once the checkpoint completes, and DescribeTransactions would say; if it did not, only a restore of this snapshot commits them, and only until %s (assumed: the snapshot's time + a transaction timeout of %s, the broker default transaction.max.timeout.ms or --kafka-sink-transaction-timeout), after which the broker aborts them and every start loses their output",
			sp.text(), until.Format(time.RFC3339), timeout)
	}
}

// pendingIDs lists the pending checkpoint ids for the warning ("8", "3, 4";
// "the snapshot's" when none is known).
func pendingIDs(s SinkPending) string {
	var ids []string
	for _, p := range s.Pending {
		if !p.Legacy && p.CheckpointID != sinkstate.EndOfInput {
			ids = append(ids, fmt.Sprint(p.CheckpointID))
		}
	}
	if len(ids) == 0 {
		return "of the snapshot"
	}
	return quotecap.Join(ids, ", ")
}

// stopProof says what proves the snapshot a completed stop-with-savepoint's
// ("" when nothing does): its properties' post-checkpoint action, else
// Options.StopProof.
func (x *resolution) stopProof(ctx context.Context, snap *flinkckpt.Snapshot) (string, error) {
	if md := snap.Metadata; md != nil && md.Savepoint {
		switch md.Action {
		case metadata.ActionSuspend:
			return fmt.Sprintf("the savepoint's _metadata properties record a stop-with-savepoint (post-checkpoint action SUSPEND: flink stop) at checkpoint %d", md.CheckpointID), nil
		case metadata.ActionTerminate:
			return fmt.Sprintf("the savepoint's _metadata properties record a stop-with-savepoint (post-checkpoint action TERMINATE: flink stop --drain) at checkpoint %d", md.CheckpointID), nil
		}
	}
	if x.r.o.StopProof == nil {
		return "", nil
	}
	p, err := x.r.o.StopProof(ctx, snap)
	if err != nil {
		return "", fmt.Errorf("salvage: whether the job stopped at %s: %w", snap.Path, err)
	}
	return p, nil
}

var _ resume.SinkPender = Position{}

// SinkPending says which committers of the snapshot held output a start
// at its positions loses (Lost > 0); "" when none.
func (p Position) SinkPending() string {
	var out []string
	for _, s := range p.Sinks {
		if s.Lost > 0 {
			out = append(out, fmt.Sprintf("sink committer %s, %s", s.label(), s.checkpoints()))
		}
	}
	return strings.Join(out, "; ")
}

// paimonWhy joins what the table said about each pending checkpoint.
func paimonWhy(t *livecheck.PaimonSinkCheck) string {
	var w []string
	for _, c := range t.Checkpoints {
		w = append(w, c.Why)
	}
	return strings.Join(w, "; ")
}
