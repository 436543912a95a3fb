package kafkaoffset

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/redact"
)

// choose picks p's start offset from its listed offsets. It is pure: the
// rules, in order, are
//   - a commit below the log start: the log start, data loss of the records
//     in between (retention or DeleteRecords removed them unread);
//   - a commit above the end offset: no start (ErrCommitAboveEnd);
//   - a commit inside [start, end]: the commit;
//   - with a time: the first offset at or after it, data loss when that is
//     the log start and records were deleted below it: they may have been
//     at or after the time. That includes a first retained record stamped
//     exactly at the time: deleted records can share its millisecond (a
//     batch's records share one timestamp under LogAppendTime, and
//     DeleteRecords cuts inside batches), and whether any did cannot be
//     told (possible loss counts as loss);
//   - with a time and every record deleted (start = end > 0): the end
//     offset, data loss of up to start records, the same question as the
//     case before with no record left to compare (possible loss counts as
//     loss);
//   - with a time and no record at or after it: the end offset (what
//     kafka-consumer-groups --to-datetime and Flink's timestamp initializer
//     do);
//   - without a commit and a time: the Kafka start rule's earliest marker
//     (livecheck.KafkaStart), as Flink starts newly discovered partitions:
//     the log start, and with records deleted (log start above 0) data
//     loss of the offsets below it: the old job may never have read them,
//     its commit never sent (possible loss counts as loss).
//
// Then, when the last stable offset was listed (read_committed), a start
// above it is lowered to it (lowerToStable).
func choose(p *PartitionOffsets, hasAt bool, atMillis int64) {
	p.DataLoss, p.Lost, p.Err, p.LoweredToStable = false, 0, nil, false
	if p.Committed >= 0 {
		// The Kafka start rule, shared with the checks of Flink snapshots'
		// source positions (package livecheck).
		v, err := livecheck.KafkaStart(p.Committed, p.Start, p.End)
		p.From = FromCommit
		switch {
		case err != nil:
			p.Offset = -1
			p.Reason = fmt.Sprintf("committed %d is above the end offset %d", p.Committed, p.End)
			p.Err = fmt.Errorf("kafkaoffset: %s: committed offset %d is above the end offset %d (topic truncated, or deleted and recreated?): %w",
				p.name(), p.Committed, p.End, ErrCommitAboveEnd)
			return
		case v.Lost > 0:
			p.Offset, p.DataLoss, p.Lost = v.Offset, true, v.Lost
			p.Reason = fmt.Sprintf("committed %d is below the log start %d: %d records were deleted before they were read; starts at the log start",
				p.Committed, p.Start, p.Lost)
		default:
			p.Offset = v.Offset
			p.Reason = fmt.Sprintf("committed %d (log %d..%d, %d records after it)", p.Committed, p.Start, p.End, p.End-p.Committed)
		}
		lowerToStable(p)
		return
	}
	switch {
	case hasAt && p.ByTime >= 0:
		p.Offset, p.From = p.ByTime, FromTime
		p.Reason = fmt.Sprintf("no commit; first record at or after %s is offset %d (timestamp %s)",
			fmtMillis(atMillis), p.ByTime, fmtMillis(p.ByTimeMillis))
		switch {
		case p.ByTime != p.Start || p.Start == 0:
		case p.ByTimeMillis > atMillis:
			p.DataLoss, p.Lost = true, p.Start
			p.Reason = fmt.Sprintf("the time %s is older than the retained data: the first retained record (offset %d) has timestamp %s; up to %d deleted records below it may be at or after the time",
				fmtMillis(atMillis), p.Start, fmtMillis(p.ByTimeMillis), p.Start)
		default:
			// At the time itself: the deleted records just below may
			// share its millisecond.
			p.DataLoss, p.Lost = true, p.Start
			p.Reason = fmt.Sprintf("the first retained record (offset %d) is stamped exactly at the time %s and records below it were deleted: up to %d of them may share that millisecond, which cannot be told (possible loss counts as loss)",
				p.Start, fmtMillis(atMillis), p.Start)
		}
	case hasAt && p.Start > 0 && p.Start == p.End:
		p.Offset, p.From = p.End, FromEnd
		p.DataLoss, p.Lost = true, p.Start
		p.Reason = fmt.Sprintf("no record at or after %s: every record was deleted (log start = end = %d); up to %d deleted records may have been at or after the time, which cannot be told (possible loss counts as loss); starts at the end offset",
			fmtMillis(atMillis), p.Start, p.Start)
	case hasAt:
		p.Offset, p.From = p.End, FromEnd
		p.Reason = fmt.Sprintf("no record at or after %s: starts at the end offset %d", fmtMillis(atMillis), p.End)
	default:
		// No commit (never sent: KafkaSource commits asynchronously and
		// only logs a failed one) and no time: the partition is one
		// nothing was read of, started by the Kafka start rule's earliest
		// marker, shared with salvage and the restore check (package
		// livecheck): with records deleted, the old job may never have
		// read them (possible loss counts as loss).
		v, _ := livecheck.KafkaStart(livecheck.MarkerEarliest, p.Start, p.End)
		p.Offset, p.From = v.Offset, FromLogStart
		if v.Lost > 0 {
			p.DataLoss, p.Lost = true, v.Lost
			p.Reason = fmt.Sprintf("no commit, and the offsets below the log start %d were deleted: the old job may never have read them (its commit may never have been sent), so up to %d offsets (0..%d) count as lost; starts at the log start (%d records)",
				p.Start, p.Lost, p.Start-1, p.End-p.Start)
			break
		}
		p.Reason = fmt.Sprintf("no commit: starts at the log start %d, as Flink starts newly discovered partitions (%d records)", p.Start, p.End-p.Start)
	}
	lowerToStable(p)
}

func fmtMillis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)
}

// maxNamed is how many partitions a reason or warning names before "and N more".
const maxNamed = 10

func names(ps []*PartitionOffsets, detail func(*PartitionOffsets) string) string {
	var b strings.Builder
	for i, p := range ps {
		if i == maxNamed {
			fmt.Fprintf(&b, ", and %d more", len(ps)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.name())
		if detail != nil {
			b.WriteString(detail(p))
		}
	}
	return b.String()
}

// candidate grades the partitions' choices into a candidate.
func (r *Resolver) candidate(res []PartitionOffsets) (resume.Candidate, error) {
	by := map[OffsetSource][]*PartitionOffsets{}
	var all, lost, commits []*PartitionOffsets
	var lostRecords int64
	for i := range res {
		p := &res[i]
		all = append(all, p)
		by[p.From] = append(by[p.From], p)
		if p.DataLoss {
			lost = append(lost, p)
			lostRecords += p.Lost
		}
		if p.From == FromCommit && !p.DataLoss {
			commits = append(commits, p) // commits still inside the log
		}
	}
	if r.group != "" && !r.hasAt && len(by[FromCommit]) == 0 {
		return resume.Candidate{}, fmt.Errorf("kafkaoffset: group %s has no commits on %s: %w",
			redact.Quote(r.group), strings.Join(r.topics, ", "), resume.ErrNoPosition)
	}
	now := r.now()

	pos := &Position{Topics: append([]string(nil), r.topics...), Group: r.group, Mode: ModeSpecificOffsets, IsolationLevel: r.isolation}
	if r.hasAt {
		pos.TimestampMillis = r.at.UnixMilli()
	}
	byTime, why := r.launchesByTime(res, now)
	if byTime {
		pos.Mode = ModeTimestamp
	}
	for _, p := range res {
		pp := Partition{Topic: p.Topic, Partition: p.Partition, Start: p.Start, End: p.End, Offset: p.Offset, From: p.From, Reason: p.Reason}
		if p.LastStable >= 0 {
			pp.LastStable = ptr(p.LastStable)
		}
		if p.Committed >= 0 {
			pp.Committed = ptr(p.Committed)
		}
		if p.ByTime >= 0 {
			pp.ByTime = ptr(p.ByTime)
		}
		pos.Partitions = append(pos.Partitions, pp)
	}
	sortPartitions(pos.Partitions, pos.Topics)

	c := resume.Candidate{Resolver: r.name, Position: pos, Guarantee: resume.Replay}
	what := "end offsets"
	if r.isolation == ReadCommitted {
		what += ", last stable offsets"
	}
	what += ", log start offsets, the topics' cleanup.policy, delete.retention.ms and message.timestamp.type"
	if r.group != "" {
		what += fmt.Sprintf(", the commits of group %q", r.group)
	}
	if r.hasAt {
		what += fmt.Sprintf(", the offsets at %s", fmtMillis(r.at.UnixMilli()))
	}
	c.Reasons = append(c.Reasons, fmt.Sprintf("listed %s for %d partitions of %s", what, len(res), strings.Join(r.topics, ", ")))
	if n := len(commits); n > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("%d of %d partitions start at group %q's committed offsets: a replay point, not an exact one, since KafkaSource subtasks commit asynchronously after each completed checkpoint and a failed commit is only logged, so partitions can sit at different checkpoints",
			n, len(res), r.group))
	}
	if n := len(by[FromTime]); n > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("%d partitions start at the first record at or after %s (ListOffsets by time)", n, fmtMillis(r.at.UnixMilli())))
	}
	c.Reasons = append(c.Reasons, r.isolationReason(all))
	if why != "" {
		c.Reasons = append(c.Reasons, why)
	}

	lastCommit := r.commitTimes(&c, all, now)
	if r.window > 0 {
		s := fmt.Sprintf("group %q's committed offsets did not move during a %s observation window; that proves nothing about a job whose checkpoint interval is longer than %s: KafkaSource commits only when a checkpoint completes",
			r.group, r.window, r.window)
		switch h := commitsHidden(commits); {
		case !lastCommit.IsZero() && h != "":
			s += fmt.Sprintf("; no commit record read falls inside the window (the last read is at %s), but %s", lastCommit.UTC().Format(time.RFC3339), h)
		case !lastCommit.IsZero():
			s += fmt.Sprintf("; no commit record falls inside the window (the last is at %s)", lastCommit.UTC().Format(time.RFC3339))
		}
		c.Reasons = append(c.Reasons, s)
	}

	if len(lost) > 0 {
		c.Guarantee = resume.DataLoss
		c.Reasons = append(c.Reasons, fmt.Sprintf("data loss on %d partition(s), %d records: %s", len(lost), lostRecords,
			names(lost, func(p *PartitionOffsets) string {
				if p.From == FromCommit {
					return fmt.Sprintf(" (%d records: committed %d, log start %d)", p.Lost, p.Committed, p.Start)
				}
				if p.From == FromLogStart {
					return fmt.Sprintf(" (no commit: up to %d offsets 0..%d deleted below log start %d)", p.Lost, p.Start-1, p.Start)
				}
				return fmt.Sprintf(" (up to %d records deleted below log start %d)", p.Lost, p.Start)
			})))
	}
	r.gradeCommitSource(&c, commits)

	if until, why := validUntil(all); why != "" {
		c.ValidUntil = until
		c.Reasons = append(c.Reasons, why)
	}
	at, atReason, future := r.startTime(res, now)
	c.At = at
	if atReason != "" {
		c.Reasons = append(c.Reasons, atReason)
	}
	r.gradeCompaction(&c, all, now)

	if r.group != "" && len(by[FromCommit]) == 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnNoCommits, "group %q has no commits on %s (an unknown group, offsets expired after offsets.retention.minutes, 7 days by default, or another group.id): every partition starts by time",
			r.group, strings.Join(r.topics, ", ")))
	}
	if ps := by[FromLogStart]; len(ps) > 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnUncommittedPartitions, "%d partitions have no commit and start at the log start offset, as Flink starts newly discovered partitions (added after the commit, or never read): %s",
			len(ps), names(ps, func(p *PartitionOffsets) string { return fmt.Sprintf(" (%d records)", p.End-p.Start) })))
	}
	var truncated []*PartitionOffsets
	for _, p := range by[FromLogStart] {
		if p.DataLoss {
			truncated = append(truncated, p)
		}
	}
	if len(truncated) > 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnUncommittedTruncated, "%d partitions have no commit and records deleted below their log start (retention or DeleteRecords): the old job may never have read them (KafkaSource commits asynchronously and only logs a failed commit), so they count as lost: %s",
			len(truncated), names(truncated, func(p *PartitionOffsets) string {
				return fmt.Sprintf(" (%s)", offsetsText(p.Start))
			})))
	}
	if ps := by[FromEnd]; len(ps) > 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnStartAtEnd, "%d partitions have no record at or after %s and start at the end offset: %s",
			len(ps), fmtMillis(r.at.UnixMilli()), names(ps, nil)))
		// A partition whose every record was deleted (start == end > 0)
		// answers "nothing at or after the time" whatever the deleted
		// records' times were: graded as loss by choose.
		var emptied []*PartitionOffsets
		for _, p := range ps {
			if p.Start > 0 && p.Start == p.End {
				emptied = append(emptied, p)
			}
		}
		if len(emptied) > 0 {
			c.Warnings = append(c.Warnings, resume.Warnf(WarnPartitionEmptied, "%d partitions hold no records at all, every one deleted (retention or DeleteRecords): whether any deleted record was at or after %s cannot be told, so they count as lost: %s",
				len(emptied), fmtMillis(r.at.UnixMilli()), names(emptied, func(p *PartitionOffsets) string { return fmt.Sprintf(" (%d deleted)", p.Start) })))
		}
	}
	if len(by[FromTime])+len(by[FromEnd]) > 0 {
		if r.at.After(now) {
			c.Warnings = append(c.Warnings, resume.Warnf(WarnStartInFuture, "the start time %s is in the future (now %s)", fmtMillis(r.at.UnixMilli()), fmtMillis(now.UnixMilli())))
		} else {
			c.Warnings = append(c.Warnings, resume.Warnf(WarnRewindLag, "starting by time rewinds %s before now: if the old job lagged more than that when it stopped, the records it had not yet read from before the start time are skipped",
				now.Sub(r.at).Round(time.Second)))
		}
	}
	if text := openTransactions(all); text != "" {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnOpenTransaction, "%s", text))
	}
	if len(future) > 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnFutureTime, "%d partitions have a commit or record time after now (%s), which At counts as now: %s",
			len(future), fmtMillis(now.UnixMilli()), strings.Join(future, ", ")))
	}
	if w, ok := idleWarning(commits, lastCommit, now); ok {
		c.Warnings = append(c.Warnings, w)
	}
	if r.group != "" && r.window == 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnNotObserved, "the old job was not checked for being stopped (no observation window): KafkaSource uses assign(), so an empty group proves nothing; a job still running keeps committing"))
	}
	if len(r.topics) > 1 && pos.Mode == ModeSpecificOffsets {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnSeveralTopics, "several topics: scan.startup.specific-offsets covers one topic; start the job with DataStream OffsetsInitializer.offsets(...) built from the position's partitions"))
	}
	return c, nil
}

// launchesByTime reports whether the position launches by time
// (scan.startup.mode=timestamp): only without a group, and only when Flink's
// timestamp initializer, which looks the time up again when the job starts,
// lands every partition on the chosen offset. It does not for a start
// lowered to the last stable offset (the initializer knows nothing of open
// transactions and starts above it again), nor for a start at the end
// offset when the time is after now (the initializer would skip the records
// written until then). When it does not, the returned reason says why the
// launch names the offsets instead.
func (r *Resolver) launchesByTime(res []PartitionOffsets, now time.Time) (bool, string) {
	if r.group != "" || !r.hasAt {
		return false, ""
	}
	var lowered, future, other []*PartitionOffsets
	for i := range res {
		p := &res[i]
		switch {
		case p.LoweredToStable:
			lowered = append(lowered, p)
		case p.From == FromEnd && r.at.After(now):
			future = append(future, p)
		case p.From != FromTime && p.From != FromEnd:
			// Without a group, choose starts every partition by time or at
			// the end; anything else is not the initializer's answer.
			other = append(other, p)
		}
	}
	if len(lowered)+len(future)+len(other) == 0 {
		return true, ""
	}
	var parts []string
	if len(lowered) > 0 {
		parts = append(parts, fmt.Sprintf("it knows nothing of open transactions and would start above the last stable offset again: %s",
			names(lowered, func(p *PartitionOffsets) string {
				if p.ByTime >= 0 {
					return fmt.Sprintf(" (by time %d, lowered to %d)", p.ByTime, p.Offset)
				}
				return fmt.Sprintf(" (at the end offset, lowered to %d)", p.Offset)
			})))
	}
	if len(future) > 0 {
		parts = append(parts, fmt.Sprintf("the time %s is after now, so it would skip the records written until then to %s",
			fmtMillis(r.at.UnixMilli()), names(future, nil)))
	}
	if len(other) > 0 {
		parts = append(parts, fmt.Sprintf("%s start where no time lookup would", names(other, nil)))
	}
	return false, fmt.Sprintf("launched with the chosen offsets (scan.startup.mode=specific-offsets), not by time: Flink's timestamp initializer looks %s up again when the job starts, and %s",
		fmtMillis(r.at.UnixMilli()), strings.Join(parts, "; "))
}

// isolationReason states the isolation level the offsets assume and which
// starts it lowered.
func (r *Resolver) isolationReason(ps []*PartitionOffsets) string {
	if r.isolation == ReadUncommitted {
		return "the offsets assume a read_uncommitted reader (Options.IsolationLevel): starts are not lowered to the last stable offset, and a read_committed job started from them skips the records of transactions open when they were listed"
	}
	var lowered []*PartitionOffsets
	for _, p := range ps {
		if p.LoweredToStable {
			lowered = append(lowered, p)
		}
	}
	s := "the offsets assume a read_committed reader (Options.IsolationLevel; also safe for a read_uncommitted one): a start above a partition's last stable offset is lowered to it"
	if len(lowered) > 0 {
		s += fmt.Sprintf("; lowered on %d partitions: %s", len(lowered), names(lowered, func(p *PartitionOffsets) string {
			return fmt.Sprintf(" (to %d, high watermark %d)", p.LastStable, p.End)
		}))
	}
	return s
}

// gradeCommitSource grades the starts at commits by how the old job
// committed (Options.CommitSource).
func (r *Resolver) gradeCommitSource(c *resume.Candidate, commits []*PartitionOffsets) {
	if len(commits) == 0 {
		return
	}
	list := names(commits, nil)
	switch r.commitSource {
	case CommitAuto:
		c.Guarantee = resume.DataLoss
		c.Reasons = append(c.Reasons, fmt.Sprintf("possible loss: auto-commit runs ahead of processing: the old job's consumer committed its fetch position every auto.commit.interval.ms (enable.auto.commit=true, Options.CommitSource auto), ahead of records still in flight in the job, and a restart from those commits skips them; %d partitions start at a commit: %s. To replay instead, start by a time before the old job stopped (a time without the group)",
			len(commits), list))
	case CommitUnknown:
		c.Guarantee = resume.DataLoss
		c.Reasons = append(c.Reasons, fmt.Sprintf("possible loss: how the old job committed is unknown (Options.CommitSource unknown): had it auto-committed (enable.auto.commit=true), its commits run ahead of processing and a restart from them skips the records in flight; possible loss counts as loss; %d partitions start at a commit: %s",
			len(commits), list))
	default:
		c.Warnings = append(c.Warnings, resume.Warnf(WarnCommitSourceAssumed, "assumed: the old job committed when its checkpoints completed (KafkaSource's commit.offsets.on.checkpoint, with enable.auto.commit unset or false), so every record below a commit was processed; had its consumer auto-committed, the commits run ahead of records in flight and this start skips them: set Options.CommitSource to auto or unknown"))
	}
}

// idleWarning says that a running idle job cannot be told apart when every
// commit equals its partition's end offset.
func idleWarning(commits []*PartitionOffsets, lastCommit, now time.Time) (resume.Warning, bool) {
	if len(commits) == 0 {
		return resume.Warning{}, false
	}
	for _, p := range commits {
		if p.Committed != p.End {
			return resume.Warning{}, false
		}
	}
	s := "every committed offset equals its partition's end offset: the old job had read everything, and a job still running with no new input commits the same offsets on every checkpoint, so a running idle job cannot be told apart from a stopped one by its offsets"
	if !lastCommit.IsZero() {
		s += fmt.Sprintf("; its last commit record is at %s, %s before now: only a job whose checkpoint interval is longer than that can still be running",
			lastCommit.UTC().Format(time.RFC3339), now.Sub(lastCommit).Round(time.Second))
	}
	return resume.Warnf(WarnIdleIndistinguishable, "%s", s), true
}

func ptr(v int64) *int64 { return &v }

// moved compares the commits read before the observation window with those
// of the lookup after it.
func moved(before map[tp]int64, res []PartitionOffsets, group string, window time.Duration) error {
	after := map[tp]int64{}
	for _, p := range res {
		if p.Committed >= 0 {
			after[p.key()] = p.Committed
		}
	}
	var changes []string
	for k, b := range before {
		if a, ok := after[k]; !ok || a != b {
			changes = append(changes, fmt.Sprintf("%s/%d %d→%s", k.t, k.p, b, fmtOffset(a, ok)))
		}
	}
	for k, a := range after {
		if _, ok := before[k]; !ok {
			changes = append(changes, fmt.Sprintf("%s/%d none→%d", k.t, k.p, a))
		}
	}
	if len(changes) == 0 {
		return nil
	}
	slices.Sort(changes)
	if len(changes) > maxNamed {
		changes = append(changes[:maxNamed], fmt.Sprintf("and %d more", len(changes)-maxNamed))
	}
	return fmt.Errorf("%w: group %s's commits moved within %s: %s", ErrStillCommitting, redact.Quote(group), window, strings.Join(changes, ", "))
}

func fmtOffset(o int64, ok bool) string {
	if !ok {
		return "none"
	}
	return fmt.Sprint(o)
}

// recommitted fails when a commit record's time falls inside the
// observation window although the offsets did not move: a running job whose
// input is idle re-commits unchanged offsets on every checkpoint. The
// commit time is the broker's clock, the window's start ours.
func recommitted(res []PartitionOffsets, group string, window time.Duration, start time.Time) error {
	var in []string
	for _, p := range res {
		if p.CommitMillis >= 0 && p.CommitMillis >= start.UnixMilli() {
			in = append(in, fmt.Sprintf("%s at %s", p.name(), fmtMillis(p.CommitMillis)))
		}
	}
	if len(in) == 0 {
		return nil
	}
	slices.Sort(in)
	if len(in) > maxNamed {
		in = append(in[:maxNamed], fmt.Sprintf("and %d more", len(in)-maxNamed))
	}
	return fmt.Errorf("%w: group %s committed inside the %s observation window (from %s) with unchanged offsets, as a running job with idle input does: %s",
		ErrStillCommitting, redact.Quote(group), window, start.UTC().Format(time.RFC3339), strings.Join(in, ", "))
}
