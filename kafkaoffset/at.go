package kafkaoffset

import (
	"fmt"
	"strings"
	"time"

	"github.com/resumekit/resumekit/resume"
)

// commitTimes says in a reason what the group's commit records told, and
// returns the group's last commit time over the partitions with a commit
// (zero when none was read).
func (r *Resolver) commitTimes(c *resume.Candidate, ps []*PartitionOffsets, now time.Time) time.Time {
	var withCommit, missing []*PartitionOffsets
	last := int64(-1)
	for _, p := range ps {
		if p.Err != nil || p.Committed < 0 {
			continue
		}
		withCommit = append(withCommit, p)
		if p.CommitMillis >= 0 {
			last = max(last, p.CommitMillis)
		} else {
			missing = append(missing, p)
		}
	}
	switch {
	case r.group == "" || len(withCommit) == 0:
		return time.Time{}
	case r.noCommitTimes:
		c.Reasons = append(c.Reasons, fmt.Sprintf("the group's commit times were not read from %s (Options.SkipCommitTimes)", ConsumerOffsetsTopic))
		return time.Time{}
	case last < 0:
		c.Reasons = append(c.Reasons, fmt.Sprintf("group %q's last commit time is unknown: %s", r.group, firstCommitTimeErr(missing)))
		return time.Time{}
	}
	lastAt := time.UnixMilli(last).UTC()
	s := fmt.Sprintf("group %q's commit records in %s: the last commit was at %s, %s before now (read for %d partitions)",
		r.group, ConsumerOffsetsTopic, lastAt.Format(time.RFC3339), now.Sub(lastAt).Round(time.Second), len(withCommit)-len(missing))
	if len(missing) > 0 {
		s += fmt.Sprintf("; not read for %d (%s): %s", len(missing), firstCommitTimeErr(missing), names(missing, nil))
	} else if h := commitsHidden(withCommit); h != "" {
		s += "; as far as read: " + h
	}
	c.Reasons = append(c.Reasons, s)
	return lastAt
}

// commitsHidden says why newer commit records may not have been read, ""
// when every record was readable.
func commitsHidden(ps []*PartitionOffsets) string {
	for _, p := range ps {
		if p.commitsHidden != "" {
			return p.commitsHidden
		}
	}
	return ""
}

func firstCommitTimeErr(ps []*PartitionOffsets) string {
	for _, p := range ps {
		if p.CommitTimeErr != nil {
			return p.CommitTimeErr.Error()
		}
	}
	return "no commit record found"
}

// startTime computes the candidate's At: for a start at a commit, the
// commit's time from the group's commit records (the broker's clock), else
// the time of the record just before the commit (a producer-set CreateTime,
// or the broker's LogAppendTime); for a start by time, the start time; the
// oldest of them. A time after now counts as now: a producer can stamp a
// record with any CreateTime, years ahead, and a broker clock can run ahead
// of ours. It returns At, the reason saying where At comes from, and the
// partitions whose time was after now.
func (r *Resolver) startTime(res []PartitionOffsets, now time.Time) (time.Time, string, []string) {
	var (
		at                              time.Time
		future                          []string
		byCommit, byCreate, byLog, byAt int
		unread                          []*PartitionOffsets
		hasCommitStart                  bool
	)
	nowMillis := now.UnixMilli()
	for i := range res {
		p := &res[i]
		ms := int64(-1)
		switch p.From {
		case FromTime, FromEnd:
			ms = min(r.at.UnixMilli(), nowMillis) // a future start time has its own warning
			byAt++
		case FromCommit:
			hasCommitStart = true
			what := ""
			switch {
			case p.CommitMillis >= 0:
				ms, what = p.CommitMillis, "commit time"
				byCommit++
			case p.PrevMillis >= 0 && (p.PrevLogAppendTime || p.Config.LogAppendTime()):
				// A LogAppendTime topic's records carry the broker's
				// clock (a batch appended before the topic switched is
				// still marked CreateTime: PrevLogAppendTime tells).
				ms, what = p.PrevMillis, "LogAppendTime of the record before the commit"
				byLog++
			case p.PrevMillis >= 0:
				ms, what = p.PrevMillis, "CreateTime of the record before the commit"
				byCreate++
			case !p.DataLoss && p.Committed > p.Start:
				unread = append(unread, p)
			}
			if ms > nowMillis {
				if len(future) < maxNamed {
					future = append(future, fmt.Sprintf("%s (%s %s)", p.name(), what, fmtMillis(ms)))
				}
				ms = nowMillis
			}
		}
		if ms >= 0 {
			if t := time.UnixMilli(ms).UTC(); at.IsZero() || t.Before(at) {
				at = t
			}
		}
	}

	var parts []string
	if byCommit > 0 {
		parts = append(parts, fmt.Sprintf("the commit times of the group's commit records (read for %d partitions from %s, the broker's clock)", byCommit, ConsumerOffsetsTopic))
	}
	if byCreate+byLog > 0 {
		kind := "CreateTime, set by the producer"
		switch {
		case byCreate == 0:
			kind = "LogAppendTime, the broker's clock"
		case byLog > 0:
			kind = fmt.Sprintf("%d LogAppendTime, %d CreateTime", byLog, byCreate)
		}
		parts = append(parts, fmt.Sprintf("the timestamps of the records just before the committed offsets (read for %d partitions; %s)", byCreate+byLog, kind))
	}
	if byAt > 0 && len(parts) > 0 {
		parts = append(parts, fmt.Sprintf("the start time (%d partitions by time)", byAt))
	}
	var reason string
	switch {
	case len(parts) == 1:
		reason = "At is the oldest of " + parts[0]
	case len(parts) > 1:
		reason = "At is the oldest of " + strings.Join(parts, ", ")
	case byAt > 0:
		reason = "At is the start time"
	case hasCommitStart:
		reason = "At is unknown: neither a commit time nor the record just before a committed offset was read"
	}
	if reason != "" && len(unread) > 0 {
		reason += fmt.Sprintf("; not read for %d: %s", len(unread), names(unread, nil))
	}
	if len(future) > 0 && reason != "" {
		reason += "; times after now count as now"
	}
	return at, reason, future
}
