package flinkckpt

import (
	"fmt"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"strings"

	"github.com/resumekit/resumekit/resume"
)

// jobCheck is what the resolver learned about a snapshot from
// Options.Job: the check itself, and whether the snapshot may be offered.
type jobCheck struct {
	compat *jobgraph.Compat
	// sources names the source state of each operator holding some (by
	// operator id): a FLIP-27 reader's, a legacy SourceFunction's.
	sources map[string]string
	// reject says why the snapshot cannot be offered ("" when it can).
	reject string
}

// gradeForJob checks the snapshot s against Options.Job (nil without one).
// A snapshot whose restore fails — state the new job does not take without
// AllowNonRestoredState, or a parallelism the snapshot's max parallelism
// forbids — is rejected with the operators named.
func (r *Resolver) gradeForJob(s *snap) *jobCheck {
	if r.opts.Job == nil {
		return nil
	}
	c := jobgraph.CheckCompat(s.md, r.opts.Job)
	jc := &jobCheck{compat: c, sources: sourceStates(s.md)}
	var fatal []string
	for _, p := range c.Problems {
		if p.Fatal {
			fatal = append(fatal, p.Text)
		}
	}
	switch {
	case len(fatal) > 0:
		jc.reject = "the new job cannot restore it: " + strings.Join(fatal, "; ")
	case len(c.Dropped) > 0 && !r.opts.AllowNonRestoredState:
		jc.reject = fmt.Sprintf("the new job has no operator for the state of %s: the restore fails (\"Cannot map checkpoint/savepoint state for operator … to the new program\"); with AllowNonRestoredState (--allowNonRestoredState) that state would be dropped%s",
			c.DroppedNames(), unpredictableHint(r.opts.Job))
	}
	return jc
}

// allUIDsAdvice ends the unknown-operators warning: say that the
// description names every operator (--flink-all-uids), unless it says
// itself which operators it cannot name (a compiled plan's connector
// operators): those are likely the state's owners, and claiming all uids
// would call their state dropped.
func allUIDsAdvice(j *jobgraph.Job) string {
	if j == nil || len(j.Unpredictable) == 0 {
		return " or say that the description names every operator (Job.AllUIDs, --flink-all-uids)"
	}
	return fmt.Sprintf("; the description says it does not name every operator (%s): they are likely these, and claiming that it does (Job.AllUIDs, --flink-all-uids) would call their state dropped", strings.Join(j.Unpredictable, "; "))
}

func unpredictableHint(j *jobgraph.Job) string {
	if len(j.Unpredictable) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d operator(s) of the new job have no predictable id and could take it: %s)", len(j.Unpredictable), strings.Join(j.Unpredictable, "; "))
}

// applyJob adds to the candidate what the check says: a reason, and with
// dropped state (AllowNonRestoredState) the grade exact-input at best
// (data-loss when an operator coordinator's state — a FLIP-27 source's
// split enumerator, which holds the input positions — is dropped), a coded
// warning naming the dropped operators, and --allowNonRestoredState in the
// launch. above are the newer snapshots passed over, for the warning that
// an older snapshot was chosen.
func (r *Resolver) applyJob(c *resume.Candidate, jc *jobCheck, above []passed, s *snap, live *liveResult) {
	if jc == nil {
		return
	}
	cc := jc.compat
	restored, stateless := 0, 0
	for _, o := range cc.Operators {
		switch o.Match {
		case jobgraph.MatchRestored:
			restored++
		case jobgraph.MatchStateless:
			stateless++
		}
	}
	why := fmt.Sprintf("restores into the new job: %d of %d operators matched by id, %d without state skipped, %d dropped",
		restored, len(cc.Operators), stateless, len(cc.Dropped))
	if len(cc.Unknown) > 0 {
		why += fmt.Sprintf(", %d unknown (matching no operator the description names)", len(cc.Unknown))
	}
	if len(cc.NewWithoutState) > 0 {
		why += fmt.Sprintf("; the new job's operators %s are not in it and start empty", strings.Join(cc.NewWithoutState, ", "))
	}
	c.Reasons = append(c.Reasons, why)
	c.Reasons = append(c.Reasons, cc.Notes...)
	var incompatible []string
	for _, p := range above {
		if p.kind == passIncompatible {
			incompatible = append(incompatible, p.name)
		}
	}
	if len(incompatible) > 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnOlderThanIncompatible, "older snapshot chosen because the new job cannot restore newer ones (%s): they completed, and the new job reads again what they had read past this one: %s",
			strings.Join(incompatible, ", "), olderReadAgain(s, live)))
	}
	var maybe []string
	for _, o := range cc.Operators {
		if o.Match == jobgraph.MatchRestored && o.Maybe && o.HasState {
			maybe = append(maybe, describeOperator(o))
		}
	}
	if len(maybe) > 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnConditionalRestore, "state restored into operators the new job creates only under conditions its description does not settle (%s): if it does not create them, the restore fails or, with --allowNonRestoredState, drops their state",
			strings.Join(maybe, ", ")))
	}
	// The rules that need the new job's vertices (its chaining), which
	// no description here gives: said where they can bite.
	changed := len(cc.NewWithoutState) > 0
	var finished, channels []string
	for _, o := range cc.Operators {
		changed = changed || o.Match != jobgraph.MatchRestored
		if o.Match == jobgraph.MatchRestored && o.Finished {
			finished = append(finished, describeOperator(o))
		}
		if o.ChannelState {
			channels = append(channels, describeOperator(o))
		}
	}
	if changed && len(finished) > 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnFinishedVertices, "the new job's operators and the snapshot's do not match one to one (a changed job, or one described in part), and it restores the fully finished operators %s: Flink refuses the restore if it chains one of them with an operator that has not finished (\"mixed operator finished state\") or puts a finished vertex after one that is not (VertexFinishedStateChecker); resumekit does not know the new job's chaining",
			strings.Join(finished, ", ")))
	}
	if changed && len(channels) > 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnUnalignedChangedJob, "an unaligned checkpoint's in-flight data (operators %s) into a new job whose operators and the snapshot's do not match one to one (a changed job, or one described in part): Flink gives it to the first and last operators of the vertices that held it, so a changed chaining around them fails the restore; resumekit does not know the new job's chaining — take a savepoint, or restore into the unchanged job",
			strings.Join(channels, ", ")))
	}
	if len(cc.Unknown) > 0 {
		text := fmt.Sprintf("no operator of the new job's description has the id of %s, which hold state: Flink restores them if they are uid-less operators (ids generated from the topology, which no uid gives) that the new job has unchanged, and otherwise fails the restore (\"Cannot map checkpoint/savepoint state for operator … to the new program\"); add their ids (Job.AddOperatorID, --flink-operator-id, as Flink's logs and web UI show them)%s",
			cc.UnknownNames(), allUIDsAdvice(r.opts.Job))
		if len(cc.Dropped) > 0 {
			// The launch carries --allowNonRestoredState (below): Flink
			// would drop their state too, unnoticed.
			text += "; with --allowNonRestoredState in the launch their state is dropped if the new job lacks them"
			for _, o := range cc.UnknownOperators() {
				if o.CoordinatorState {
					c.Guarantee = resume.DataLoss
					text += "; one holds an operator coordinator's state (a FLIP-27 source's split enumerator): graded data-loss"
					break
				}
			}
		}
		c.Warnings = append(c.Warnings, resume.Warnf(WarnUnknownOperators, "%s", text))
	}
	if len(cc.Dropped) == 0 {
		return
	}
	// Only with AllowNonRestoredState: gradeForJob rejected it otherwise.
	if c.Guarantee > resume.ExactInput {
		c.Guarantee = resume.ExactInput
	}
	c.Warnings = append(c.Warnings, resume.Warnf(WarnDroppedState, "the new job drops the state of %s (--allowNonRestoredState): exactly-once for what remains is not exactly-once for the job, graded exact-input at best%s",
		cc.DroppedNames(), unpredictableHint(r.opts.Job)))
	// A dropped source is a source whatever its kind: a FLIP-27 source's
	// enumerator or reader state, or a legacy SourceFunction's offsets
	// (FlinkKafkaConsumer, Debezium, Paimon's MonitorFunction).
	var coordinators []string
	for _, o := range cc.DroppedOperators() {
		switch what, ok := jc.sources[o.ID]; {
		case o.CoordinatorState:
			coordinators = append(coordinators, describeOperator(o)+": an operator coordinator's state, a FLIP-27 source's split enumerator")
		case ok:
			coordinators = append(coordinators, describeOperator(o)+": "+what)
		}
	}
	if len(coordinators) > 0 {
		c.Guarantee = resume.DataLoss
		c.Warnings = append(c.Warnings, resume.Warnf(WarnDroppedSourceState, "the dropped state includes source positions (%s): that source starts from its startup options, so input may be skipped",
			strings.Join(coordinators, "; ")))
	}
	if p, ok := c.Position.(Position); ok {
		p.AllowNonRestoredState = true
		c.Position = p
	}
}

// sourceStates names, by operator id, the source state each operator of
// md holds in its operator state: a FLIP-27 reader's "SourceReaderState",
// or a legacy SourceFunction's offsets.
func sourceStates(md *metadata.Checkpoint) map[string]string {
	names := map[string]string{
		"SourceReaderState":             "a FLIP-27 source's reader state (its splits' positions)",
		"topic-partition-offset-states": "the legacy FlinkKafkaConsumer's offsets (topic-partition-offset-states)",
		"offset-states":                 "Flink CDC's legacy Debezium source offsets (offset-states)",
		"next-snapshot":                 "Paimon's legacy MonitorFunction next snapshot (next-snapshot)",
	}
	out := map[string]string{}
	for i := range md.Operators {
		op := &md.Operators[i]
		for _, st := range op.SubtaskStates {
			for _, h := range []*metadata.OperatorHandle{st.ManagedOperator, st.RawOperator} {
				if h == nil {
					continue
				}
				for _, si := range h.States {
					if what, ok := names[si.Name]; ok {
						out[op.ID] = what
					}
				}
			}
		}
	}
	return out
}

// describeOperator names a snapshot operator for compatgrade's messages.
func describeOperator(o jobgraph.CompatOperator) string { return o.Describe() }

// olderReadAgain says, per source of the chosen snapshot s (inline state),
// what becomes of the input that newer snapshots had read past it: read
// again from the restored positions (duplicates where sinks committed the
// newer checkpoints), lost or a failing restore where the input left its
// system's retention — graded by the live source checks when they ran
// (live non-nil), said unchecked otherwise.
func olderReadAgain(s *snap, live *liveResult) string {
	st, _ := sourcestate.Decode(s.md, nil)
	checked := "not checked (no live checks: Options.Live)"
	if live != nil {
		checked = "checked against the live system and graded above"
	}
	var parts []string
	seen := map[sourcestate.Kind]bool{}
	for i := range st.Sources {
		k := st.Sources[i].Kind
		if seen[k] {
			continue
		}
		seen[k] = true
		switch k {
		case sourcestate.KindKafka:
			parts = append(parts, "Kafka sources replay it from the restored offsets, and lose what the log no longer holds (data-loss; "+checked+")")
		case sourcestate.KindPaimon:
			parts = append(parts, "Paimon sources replay it from the restored snapshot, and the restore fails where those snapshots expired ("+checked+"); a consumer-id's consumer file already stands past it, so snapshots between may have expired under it")
		case sourcestate.KindMySQLCDC:
			parts = append(parts, "MySQL CDC sources replay it from the restored binlog position, and fail where the binlog was purged ("+checked+")")
		case sourcestate.KindPostgresCDC:
			parts = append(parts, "Postgres CDC sources restart at the restored LSN, but the slot's confirmed position followed the newer checkpoints and the WAL before it may be gone: the restore fails or loses it ("+checked+")")
		default:
			parts = append(parts, fmt.Sprintf("%s sources: resumekit cannot tell whether their input still holds it (loss if not)", k))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "no source's state was recognised, so whether the input still holds it is not known (loss if not)")
	}
	return strings.Join(parts, "; ") + "; sinks that committed the newer checkpoints (transactional Kafka, Paimon) publish it again: duplicates downstream"
}
