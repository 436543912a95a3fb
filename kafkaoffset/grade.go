package kafkaoffset

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/resumekit/resumekit/resume"
)

// choose picks p's start offset from its listed offsets. It is pure: the
// rules, in order, are
//   - a commit below the log start: the log start, data loss of the records
//     in between (retention or DeleteRecords removed them unread);
//   - a commit above the end offset: no start (ErrCommitAboveEnd);
//   - a commit inside [start, end]: the commit;
//   - with a time: the first offset at or after it, data loss when that is
//     the log start, records were deleted below it and the first retained
//     record is after the time (they may have been at or after it); with no
//     record at or after the time, the end offset (what kafka-consumer-groups
//     --to-datetime and Flink's timestamp initializer do);
//   - otherwise the log start, as Flink starts newly discovered partitions.
func choose(p *PartitionOffsets, hasAt bool, atMillis int64) {
	p.DataLoss, p.Lost, p.Err = false, 0, nil
	switch {
	case p.Committed >= 0 && p.Committed < p.Start:
		p.Offset, p.From = p.Start, FromCommit
		p.DataLoss, p.Lost = true, p.Start-p.Committed
		p.Reason = fmt.Sprintf("committed %d is below the log start %d: %d records were deleted before they were read; starts at the log start",
			p.Committed, p.Start, p.Lost)
	case p.Committed > p.End:
		p.Offset, p.From = -1, FromCommit
		p.Reason = fmt.Sprintf("committed %d is above the end offset %d", p.Committed, p.End)
		p.Err = fmt.Errorf("kafkaoffset: %s: committed offset %d is above the end offset %d (topic truncated, or deleted and recreated?): %w",
			p.name(), p.Committed, p.End, ErrCommitAboveEnd)
	case p.Committed >= 0:
		p.Offset, p.From = p.Committed, FromCommit
		p.Reason = fmt.Sprintf("committed %d (log %d..%d, %d records after it)", p.Committed, p.Start, p.End, p.End-p.Committed)
	case hasAt && p.ByTime >= 0:
		p.Offset, p.From = p.ByTime, FromTime
		p.Reason = fmt.Sprintf("no commit; first record at or after %s is offset %d (timestamp %s)",
			fmtMillis(atMillis), p.ByTime, fmtMillis(p.ByTimeMillis))
		if p.Committed < 0 && p.ByTime == p.Start && p.Start > 0 && p.ByTimeMillis > atMillis {
			p.DataLoss, p.Lost = true, p.Start
			p.Reason = fmt.Sprintf("the time %s is older than the retained data: the first retained record (offset %d) has timestamp %s; up to %d deleted records below it may be at or after the time",
				fmtMillis(atMillis), p.Start, fmtMillis(p.ByTimeMillis), p.Start)
		}
	case hasAt:
		p.Offset, p.From = p.End, FromEnd
		p.Reason = fmt.Sprintf("no record at or after %s: starts at the end offset %d", fmtMillis(atMillis), p.End)
	default:
		p.Offset, p.From = p.Start, FromLogStart
		p.Reason = fmt.Sprintf("no commit: starts at the log start %d, as Flink starts newly discovered partitions (%d records)", p.Start, p.End-p.Start)
	}
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
	by := map[string][]*PartitionOffsets{}
	var lost []*PartitionOffsets
	var lostRecords int64
	for i := range res {
		p := &res[i]
		by[p.From] = append(by[p.From], p)
		if p.DataLoss {
			lost = append(lost, p)
			lostRecords += p.Lost
		}
	}
	if r.group != "" && !r.hasAt && len(by[FromCommit]) == 0 {
		return resume.Candidate{}, fmt.Errorf("kafkaoffset: group %q has no commits on %s: %w",
			r.group, strings.Join(r.topics, ", "), resume.ErrNoPosition)
	}

	pos := &Position{Topics: append([]string(nil), r.topics...), Group: r.group, Mode: ModeSpecificOffsets}
	if r.hasAt {
		pos.TimestampMillis = r.at.UnixMilli()
	}
	if r.group == "" {
		pos.Mode = ModeTimestamp
	}
	for _, p := range res {
		pp := Partition{Topic: p.Topic, Partition: p.Partition, Start: p.Start, End: p.End, Offset: p.Offset, From: p.From, Reason: p.Reason}
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
	what := "end offsets, then log start offsets"
	if r.group != "" {
		what += fmt.Sprintf(", the commits of group %q", r.group)
	}
	if r.hasAt {
		what += fmt.Sprintf(", the offsets at %s", fmtMillis(r.at.UnixMilli()))
	}
	c.Reasons = append(c.Reasons, fmt.Sprintf("listed %s for %d partitions of %s", what, len(res), strings.Join(r.topics, ", ")))
	intact := 0 // commits still inside the log; lost ones are reported below
	for _, p := range by[FromCommit] {
		if !p.DataLoss {
			intact++
		}
	}
	if n := intact; n > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("%d of %d partitions start at group %q's committed offsets: a replay point, not an exact one, since KafkaSource subtasks commit asynchronously after each completed checkpoint and a failed commit is only logged, so partitions can sit at different checkpoints",
			n, len(res), r.group))
	}
	if n := len(by[FromTime]); n > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("%d partitions start at the first record at or after %s (ListOffsets by time)", n, fmtMillis(r.at.UnixMilli())))
	}
	if r.window > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("group %q's committed offsets did not move during a %s observation window", r.group, r.window))
	}

	if len(lost) > 0 {
		c.Guarantee = resume.DataLoss
		c.Reasons = append(c.Reasons, fmt.Sprintf("data loss on %d partition(s), %d records: %s", len(lost), lostRecords,
			names(lost, func(p *PartitionOffsets) string {
				if p.From == FromCommit {
					return fmt.Sprintf(" (%d records: committed %d, log start %d)", p.Lost, p.Committed, p.Start)
				}
				return fmt.Sprintf(" (up to %d records deleted below log start %d)", p.Lost, p.Start)
			})))
	}

	// At: the start time for partitions by time, the time of the record
	// before the commit for the others (OffsetFetch has no commit time);
	// the oldest of them.
	var at time.Time
	var unread []*PartitionOffsets
	readTimes := 0
	for i := range res {
		p := &res[i]
		var t time.Time
		switch p.From {
		case FromTime, FromEnd:
			t = r.at
		case FromCommit:
			if p.PrevMillis >= 0 {
				t = time.UnixMilli(p.PrevMillis).UTC()
				readTimes++
			} else if !p.DataLoss && p.Committed > p.Start {
				unread = append(unread, p)
			}
		}
		if !t.IsZero() && (at.IsZero() || t.Before(at)) {
			at = t
		}
	}
	c.At = at
	byTime := len(by[FromTime]) + len(by[FromEnd])
	switch {
	case readTimes > 0:
		s := fmt.Sprintf("At is the oldest timestamp of the record just before a committed offset (read for %d partitions)", readTimes)
		if byTime > 0 {
			s = fmt.Sprintf("At is the oldest of the start time (%d partitions by time) and the timestamps of the records just before the committed offsets (read for %d partitions)", byTime, readTimes)
		}
		if len(unread) > 0 {
			s += fmt.Sprintf("; not read for %d: %s", len(unread), names(unread, nil))
		}
		c.Reasons = append(c.Reasons, s)
	case byTime > 0:
		c.Reasons = append(c.Reasons, "At is the start time")
	case len(by[FromCommit]) > 0:
		c.Reasons = append(c.Reasons, "At is unknown: no record just before a committed offset was read")
	}

	if r.group != "" && len(by[FromCommit]) == 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnNoCommits, "group %q has no commits on %s (an unknown group, offsets expired after offsets.retention.minutes, 7 days by default, or another group.id): every partition starts by time",
			r.group, strings.Join(r.topics, ", ")))
	}
	if ps := by[FromLogStart]; len(ps) > 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnUncommittedPartitions, "%d partitions have no commit and start at the log start offset, as Flink starts newly discovered partitions (added after the commit, or never read): %s",
			len(ps), names(ps, func(p *PartitionOffsets) string { return fmt.Sprintf(" (%d records)", p.End-p.Start) })))
	}
	if ps := by[FromEnd]; len(ps) > 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnStartAtEnd, "%d partitions have no record at or after %s and start at the end offset: %s",
			len(ps), fmtMillis(r.at.UnixMilli()), names(ps, nil)))
		// A partition whose every record was deleted (start == end > 0)
		// answers "nothing at or after the time" whatever the deleted
		// records' times were: it cannot be told whether the old job had
		// read them.
		var emptied []*PartitionOffsets
		for _, p := range ps {
			if p.Start > 0 && p.Start == p.End {
				emptied = append(emptied, p)
			}
		}
		if len(emptied) > 0 {
			c.Warnings = append(c.Warnings, resume.Warnf(WarnPartitionEmptied, "%d partitions hold no records at all, every one deleted (retention or DeleteRecords): whether any deleted record was at or after %s cannot be told; if the old job had not read them they are lost: %s",
				len(emptied), fmtMillis(r.at.UnixMilli()), names(emptied, func(p *PartitionOffsets) string { return fmt.Sprintf(" (%d deleted)", p.Start) })))
		}
	}
	if len(by[FromTime])+len(by[FromEnd]) > 0 {
		now := r.now()
		if r.at.After(now) {
			c.Warnings = append(c.Warnings, resume.Warnf(WarnStartInFuture, "the start time %s is in the future (now %s)", fmtMillis(r.at.UnixMilli()), fmtMillis(now.UnixMilli())))
		} else {
			c.Warnings = append(c.Warnings, resume.Warnf(WarnRewindLag, "starting by time rewinds %s before now: if the old job lagged more than that when it stopped, the records it had not yet read from before the start time are skipped",
				now.Sub(r.at).Round(time.Second)))
		}
	}
	if r.group != "" && r.window == 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnNotObserved, "the old job was not checked for being stopped (no observation window): KafkaSource uses assign(), so an empty group proves nothing; a job still running keeps committing"))
	}
	if len(r.topics) > 1 && pos.Mode == ModeSpecificOffsets {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnSeveralTopics, "several topics: scan.startup.specific-offsets covers one topic; start the job with DataStream OffsetsInitializer.offsets(...) built from the position's partitions"))
	}
	return c, nil
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
	return fmt.Errorf("%w: group %q's commits moved within %s: %s", ErrStillCommitting, group, window, strings.Join(changes, ", "))
}

func fmtOffset(o int64, ok bool) string {
	if !ok {
		return "none"
	}
	return fmt.Sprint(o)
}
