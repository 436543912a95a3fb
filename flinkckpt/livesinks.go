package flinkckpt

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/internal/quotecap"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// Sink committer types, as SinkCheck.Type names them.
const (
	SinkTypeKafka   = "kafka"
	SinkTypePaimon  = "paimon"
	SinkTypeUnknown = "unknown"
)

// SinkCheck is one Sink V2 committer of the snapshot to restore that held
// pending work (committables it had not committed when the snapshot was
// taken), and what the sink said of it. A restore re-commits them; whether
// that still works is the sink's to say. Its JSON is an element of the
// position's "sinks".
type SinkCheck struct {
	OperatorID string `json:"operator_id"`
	UID        string `json:"uid,omitempty"`
	// Type is SinkTypeKafka (a KafkaSink: its transactions decoded),
	// SinkTypePaimon, or SinkTypeUnknown (a committer resumekit does not
	// decode: possibly pending, never ignored).
	Type string `json:"type"`
	// Pending are the checkpoints with pending committables, by id.
	Pending []sinkstate.Pending `json:"pending"`
	// Undecodable says why the committer's state could not be decoded.
	Undecodable string `json:"undecodable,omitempty"`
	// Checked: the sink was asked; Verdict is then livecheck's (committed,
	// open, lost, unknown) and Transactions each transaction's answer.
	// For a Paimon committer asked of its table (Live.PaimonSink) Verdict
	// is the table's state (committed, not-committed, unknown) and
	// PaimonTable the table's answer.
	Checked      bool                       `json:"checked"`
	Verdict      string                     `json:"verdict,omitempty"`
	Transactions []livecheck.KafkaSinkTxn   `json:"transactions,omitempty"`
	PaimonTable  *livecheck.PaimonSinkCheck `json:"paimon_table,omitempty"`
	// CommittedAsserted: Options.SinkCommitted (--flink-sink-committed)
	// asserts the old job committed every transaction.
	CommittedAsserted bool `json:"committed_asserted,omitempty"`

	// commitUser is a Paimon committer's commit user ("" when none);
	// sinkTopics the topics the new job's plan says its Kafka sink writes.
	commitUser string
	sinkTopics []string
}

// label names the committer by uid when known, and by operator id.
func (s SinkCheck) label() string {
	if s.UID != "" {
		return fmt.Sprintf("%q (operator %s)", s.UID, s.OperatorID)
	}
	return "operator " + s.OperatorID
}

// checkpoints names the pending checkpoint ids.
func (s SinkCheck) checkpoints() string {
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
	return strings.Join(ids, ", ")
}

// sinkResult is what checking one snapshot's committers came to.
type sinkResult struct {
	sinks    []SinkCheck
	reasons  []string
	warnings []resume.Warning
	lost     bool
	// until is the earliest deadline, assumed when no sink answered for it.
	until   time.Time
	why     string
	assumed bool
}

func (r *sinkResult) deadline(t time.Time, why string, assumed bool) {
	if t.IsZero() || !r.until.IsZero() && !t.Before(r.until) {
		return
	}
	r.until, r.why, r.assumed = t, why, assumed
}

// checkSinks reads the committer state of s and asks the sink of every
// KafkaSink committer with pending transactions (Options.Live's sink
// checker). It runs with or without Options.Live: without a checker the
// grade stays and a flink.sink-not-checked warning gives an assumed
// deadline. Storage failing to return a committer's state file, and a
// sink that does not answer, are errors: a failure to look.
func (r *Resolver) checkSinks(ctx context.Context, s *snap, path string) (*sinkResult, error) {
	st, err := SinkState(ctx, s.loc.bucket, &Snapshot{Key: s.key, Path: path, Metadata: s.md})
	if st == nil || ctx.Err() != nil || errors.Is(err, ErrStateUnreadable) {
		if err == nil {
			err = ctx.Err()
		}
		return nil, fmt.Errorf("flinkckpt: %s: sink committer state: %w", s.name(), err)
	}
	return r.checkDecodedSinks(ctx, s, st)
}

// checkDecodedSinks checks the decoded committer state st of s, committer
// by committer.
func (r *Resolver) checkDecodedSinks(ctx context.Context, s *snap, st *sinkstate.State) (*sinkResult, error) {
	out := &sinkResult{}
	name := s.name()
	live := r.opts.Live
	for _, sc := range SinkCommitters(st, r.opts.Job) {
		// Committers, their checkpoints and transactions are as many as
		// the input holds: a cancelled context stops the loops.
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("flinkckpt: %s: sink committer state: %w", name, err)
		}
		var txns []livecheck.KafkaPendingTxn
		n := 0
		for _, p := range sc.Pending {
			for _, k := range p.Kafka {
				if n++; n%4096 == 0 && ctx.Err() != nil {
					return nil, fmt.Errorf("flinkckpt: %s: sink committer %s: %w", name, sc.label(), ctx.Err())
				}
				txns = append(txns, livecheck.KafkaPendingTxn{CheckpointID: p.CheckpointID, TransactionalID: k.TransactionalID, ProducerID: k.ProducerID, Epoch: k.Epoch})
			}
		}
		other := 0
		for _, p := range sc.Pending {
			other += p.Other
		}
		switch {
		case r.opts.SinkCommitted:
			sc.CommittedAsserted = true
			out.warnings = append(out.warnings, resume.Warnf(WarnSinkCommittedAsserted, "%s: sink committer %s held committables prepared at checkpoint %s; SinkCommitted (--flink-sink-committed) asserts the old job committed every one", name, sc.label(), sc.checkpoints()))
		case sc.Type == SinkTypePaimon:
			if err := r.checkPaimonSink(ctx, name, &sc, out); err != nil {
				return nil, err
			}
		case sc.Type == SinkTypeUnknown:
			why := sc.Undecodable
			if why == "" {
				why = fmt.Sprintf("%d committable(s) of a type resumekit does not decode", other)
			}
			out.warnings = append(out.warnings, resume.Warnf(WarnSinkNotChecked, "%s: sink committer %s: unknown type, possibly pending (%s): a restore re-commits what it holds, but whether its sink still takes them was not checked", name, sc.label(), why))
		case live.SinkChecker() == nil:
			timeout := live.SinkTimeout()
			until := s.mod.Add(timeout).UTC()
			out.warnings = append(out.warnings, resume.Warnf(WarnSinkNotChecked, "%s: KafkaSink committer %s holds %d transaction(s) prepared at checkpoint %s (%s), not checked against the sink's brokers (no sink checker: Options.Live.Kafka or .KafkaSink, --kafka-brokers, --kafka-sink-brokers): if the old job stopped between completing the checkpoint and committing them, a restore after %s (the snapshot's time + an assumed transaction timeout of %s: the broker default transaction.max.timeout.ms, or --kafka-sink-transaction-timeout) finds them aborted and loses their output",
				name, sc.label(), len(txns), sc.checkpoints(), txnIDs(txns), until.Format(time.RFC3339), timeout))
			out.deadline(until, fmt.Sprintf("valid until %s (assumed): KafkaSink committer %s's transactions of checkpoint %s time out at the latest an assumed %s after the snapshot (they began before it, so possibly earlier)", until.Format(time.RFC3339), sc.label(), sc.checkpoints(), timeout), true)
		default:
			res, err := live.WithSinkTopics(sc.sinkTopics).CheckKafkaSink(ctx, txns)
			if err != nil {
				return nil, fmt.Errorf("flinkckpt: %s: KafkaSink committer %s: %w", name, sc.label(), err)
			}
			k := res.Sink
			sc.Checked, sc.Verdict, sc.Transactions = true, k.Verdict, k.Transactions
			if lost := k.Lost(); len(lost) > 0 {
				out.lost = true
				out.warnings = append(out.warnings, resume.Warnf(WarnSinkOutputLost, "data loss: %s: KafkaSink committer %s: the output of %d transaction(s) is lost: %s; a restore commits nothing of them",
					name, sc.label(), len(lost), livecheck.TxnText(lost)))
			}
			if unk := k.Unknown(); len(unk) > 0 {
				timeout := live.SinkTimeout()
				until := s.mod.Add(timeout).UTC()
				out.warnings = append(out.warnings, resume.Warnf(WarnSinkUnknown, "%s: KafkaSink committer %s: the brokers cannot say what became of %d transaction(s): %s; graded as if unchecked (assumed deadline %s)",
					name, sc.label(), len(unk), livecheck.TxnText(unk), until.Format(time.RFC3339)))
				out.deadline(until, fmt.Sprintf("valid until %s (assumed): KafkaSink committer %s's transactions the brokers could not decide time out at the latest an assumed %s after the snapshot", until.Format(time.RFC3339), sc.label(), timeout), true)
			}
			if open := k.Open(); len(open) > 0 {
				out.reasons = append(out.reasons, fmt.Sprintf("%s: KafkaSink committer %s: %d transaction(s) still open, committed by the restore until the earliest deadline; after it the broker aborts them and a restore loses their output: %s", name, sc.label(), len(open), livecheck.TxnText(open)))
				out.deadline(res.ValidUntil, res.ValidWhy, false)
			}
			if k.Verdict == livecheck.SinkCommitted {
				out.reasons = append(out.reasons, fmt.Sprintf("%s: KafkaSink committer %s: every pending transaction (%s) was committed by the old job (CompleteCommit)", name, sc.label(), txnIDs(txns)))
			}
		}
		out.sinks = append(out.sinks, sc)
	}
	return out, nil
}

// checkPaimonSink asks the Paimon sink's table (Options.Live.PaimonSink)
// whether the committer's pending checkpoints reached it, by Paimon's rule
// (FileStoreCommitImpl.filterCommitted: committed iff the commit user's
// latest snapshot has a commitIdentifier ≥ the checkpoint). A restore
// commits what is not committed (Paimon re-commits restored committables
// above the user's latest identifier), so the restore's grade stays; the
// answer decides whether the output is pending for every other start
// (SinkPending, chain.sink-pending). Without a table, or a commit user,
// the committer stays unchecked: pending for the chain.
func (r *Resolver) checkPaimonSink(ctx context.Context, name string, sc *SinkCheck, out *sinkResult) error {
	t := r.opts.Live.PaimonSinkTable()
	if t == nil || sc.commitUser == "" {
		return nil
	}
	var ids []int64
	for _, p := range sc.Pending {
		if !p.Legacy && p.CheckpointID != sinkstate.EndOfInput {
			ids = append(ids, p.CheckpointID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	c, err := livecheck.CheckPaimonSink(ctx, t, sc.commitUser, ids)
	if err != nil {
		return fmt.Errorf("flinkckpt: %s: Paimon sink committer %s: %w", name, sc.label(), err)
	}
	var why []string
	for _, p := range c.Checkpoints {
		why = append(why, p.Why)
	}
	sc.Checked, sc.Verdict, sc.PaimonTable = true, string(c.State()), c
	switch c.State() {
	case livecheck.PaimonCommitted:
		out.reasons = append(out.reasons, fmt.Sprintf("%s: Paimon sink committer %s: the sink table %s says checkpoint %s was committed (%s): a restore skips it, and no start loses its output", name, sc.label(), c.Table, sc.checkpoints(), strings.Join(why, "; ")))
	case livecheck.PaimonNotCommitted:
		out.reasons = append(out.reasons, fmt.Sprintf("%s: Paimon sink committer %s: the sink table %s says checkpoint %s was not committed (%s): a restore of this snapshot commits it; any other start loses its output", name, sc.label(), c.Table, sc.checkpoints(), strings.Join(why, "; ")))
		out.warnings = append(out.warnings, resume.Warnf(WarnPaimonRestoreFailsOnce, "%s: Paimon sink committer %s: checkpoint %s is not in the sink table %s, so the restored committer commits it and then fails the new job once on purpose (Paimon's RestoreAndFailCommittableStateManager.recover, paimon-flink-common: \"This exception is intentionally thrown after committing the restored checkpoints\", so its writers start from the new snapshot; Paimon 1.3 has no option that turns it off): the new job needs a restart strategy that allows a restart (restart-strategy.type not none, e.g. fixed-delay with restart-strategy.fixed-delay.attempts ≥ 1; with checkpointing on and none configured, Flink's default restarts); it then restores the same snapshot and commits nothing twice. Without one the new job ends FAILED after the commit", name, sc.label(), sc.checkpoints(), c.Table))
	default:
		out.warnings = append(out.warnings, resume.Warnf(WarnSinkUnknown, "%s: Paimon sink committer %s: the sink table %s cannot say whether checkpoint %s was committed (%s): a restore commits it again, so if the old job had committed it and that snapshot expired since, its rows are committed twice; graded as if unchecked", name, sc.label(), c.Table, sc.checkpoints(), strings.Join(why, "; ")))
	}
	return nil
}

// SinkCommitters lists the committers of st that hold pending work (or
// whose state could not be decoded), each with its type: a KafkaSink's
// (its transactions decoded), Paimon's, or unknown (possibly pending,
// named). job names a committer by its uid when the snapshot does not.
// Nothing is asked of any sink: Checked is false.
func SinkCommitters(st *sinkstate.State, job *jobgraph.Job) []SinkCheck {
	var out []SinkCheck
	for i := range st.Committers {
		c := &st.Committers[i]
		sc := SinkCheck{OperatorID: c.OperatorID, UID: c.UID, Pending: c.Pending(), Type: SinkTypeKafka}
		if op, ok := job.Operator(c.OperatorID); ok {
			if op.UID != "" {
				sc.UID = op.UID
			}
			sc.sinkTopics = op.SinkTopics
		}
		other := 0
		for _, p := range sc.Pending {
			other += p.Other
		}
		switch {
		case c.Err != nil:
			sc.Type, sc.Undecodable = SinkTypeUnknown, c.Err.Error()
		case c.Format == sinkstate.FormatUnknown:
			sc.Type, sc.Undecodable = SinkTypeUnknown, fmt.Sprintf("%d element(s) of a committer state format resumekit does not decode: %s", c.Elements, strings.Join(c.Notes, "; "))
		case c.Paimon != nil:
			sc.Type, sc.commitUser = SinkTypePaimon, c.Paimon.CommitUser
		case len(sc.Pending) == 0:
			continue // nothing to commit
		case other > 0:
			sc.Type = SinkTypeUnknown
		}
		if sc.Pending == nil {
			sc.Pending = []sinkstate.Pending{}
		}
		out = append(out, sc)
	}
	return out
}

// txnIDs lists transactional ids.
func txnIDs(ts []livecheck.KafkaPendingTxn) string {
	var ids []string
	for _, t := range ts {
		ids = append(ids, t.TransactionalID)
	}
	return "transactional ids " + quotecap.Join(ids, ", ")
}

// apply puts the sink findings on the candidate: a lost output grades
// data-loss; the earliest deadline becomes ValidUntil when earlier.
func (o *sinkResult) apply(c *resume.Candidate) {
	if o == nil {
		return
	}
	if o.lost {
		c.Guarantee = resume.DataLoss
	}
	c.Reasons = append(c.Reasons, o.reasons...)
	c.Warnings = append(c.Warnings, o.warnings...)
	if !o.until.IsZero() && (c.ValidUntil.IsZero() || o.until.Before(c.ValidUntil)) {
		c.ValidUntil, c.ValidUntilAssumed = o.until, o.assumed
		c.Reasons = append(c.Reasons, o.why)
	} else if o.why != "" {
		c.Reasons = append(c.Reasons, o.why)
	}
	if p, ok := c.Position.(Position); ok && len(o.sinks) > 0 {
		p.Sinks = o.sinks
		c.Position = p
	}
}

// inputStarts decodes where the snapshot's KafkaSources continue each
// partition, and its Paimon sources their table (when a split names the
// table's directory), when no live check did (live nil): inline source
// state only, no storage call.
func inputStarts(s *snap, live *liveResult) []resume.InputStart {
	if live != nil {
		return nil
	}
	st, _ := sourcestate.Decode(s.md, nil)
	var out []resume.InputStart
	for i := range st.Sources {
		src := &st.Sources[i]
		if src.Kind == sourcestate.KindPaimon && src.Err == nil {
			if pp, ok, _ := src.Paimon.Position(); ok && livecheck.PaimonTableName(pp.Table) != "" {
				out = append(out, resume.InputStart{Input: resume.PaimonInput(livecheck.PaimonTableName(pp.Table)), Offset: pp.NextSnapshot, GoneBelow: -1})
			}
		}
		if src.Kind != sourcestate.KindKafka || src.Err != nil {
			continue
		}
		ps, _ := src.Kafka.Positions()
		for _, p := range ps {
			if p.Offset >= 0 {
				out = append(out, resume.InputStart{Input: resume.KafkaInput(p.Topic, p.Partition), Offset: p.Offset, GoneBelow: -1})
			}
		}
	}
	return out
}

var _ resume.SinkPender = Position{}

// SinkPending says which committers of the snapshot held output that
// neither the sink (committed) nor the caller (Options.SinkCommitted)
// proved committed: only a restore of the snapshot commits it, so the chain
// grades a start at or above the snapshot's source positions data-loss.
// "" when none.
func (p Position) SinkPending() string {
	var out []string
	for _, s := range p.Sinks {
		if s.CommittedAsserted || s.Verdict == livecheck.SinkCommitted {
			continue
		}
		what := fmt.Sprintf("%s sink committer %s, checkpoint %s", s.Type, s.label(), s.checkpoints())
		if s.Verdict != "" {
			what += " (" + s.Verdict + ")"
		}
		out = append(out, what)
	}
	return strings.Join(out, "; ")
}
