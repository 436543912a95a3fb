package kafkaoffset

import (
	"fmt"
	"strings"
	"time"

	"github.com/resumekit/resumekit/resume"
)

// gradeCompaction says which topics are compacted and grades the starts that
// compaction may have cut short. Compaction keeps the newest record of each
// key and, delete.retention.ms after it compacted a tombstone, removes the
// tombstone too (LogCleaner): a reader whose progress is older than that
// never sees the delete. The log start check cannot see either gap. Under
// Options.Strict such a start is graded data loss, else it is a warning.
// Topics whose configuration could not be read are assumed not compacted,
// in a warning.
func (r *Resolver) gradeCompaction(c *resume.Candidate, ps []*PartitionOffsets, now time.Time) {
	seen := map[string]bool{}
	var unread []string
	var unreadErr error
	for _, p := range ps {
		if seen[p.Topic] {
			continue
		}
		seen[p.Topic] = true
		switch cfg := p.Config; {
		case cfg.Err != nil && cfg.CleanupPolicy == "":
			unread = append(unread, p.Topic)
			if unreadErr == nil {
				unreadErr = cfg.Err
			}
		case cfg.Compacted():
			c.Reasons = append(c.Reasons, fmt.Sprintf("topic %q has cleanup.policy=%s: compaction keeps only the newest record of each key and removes a tombstone delete.retention.ms (%s) after compacting it; the log start check cannot see the gaps it leaves",
				p.Topic, cfg.CleanupPolicy, fmtRetention(cfg.DeleteRetention)))
		}
	}
	if len(unread) > 0 {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnConfigsUnread, "the configuration of %s could not be read (%v): assumed cleanup.policy=delete (removed tombstones of a compacted topic are not checked) and message.timestamp.type=CreateTime",
			strings.Join(unread, ", "), unreadErr))
	}

	var risky []*PartitionOffsets
	detail := map[*PartitionOffsets]string{}
	for _, p := range ps {
		if !p.Config.Compacted() || (p.From != FromCommit && p.From != FromTime) {
			continue // a start at the end reads nothing; one at the log start of a partition never read reads its whole compacted state
		}
		ms := int64(-1)
		switch {
		case p.From == FromTime:
			ms = r.at.UnixMilli()
		case p.CommitMillis >= 0:
			ms = p.CommitMillis
		case p.PrevMillis >= 0:
			ms = p.PrevMillis
		}
		switch {
		case ms < 0:
			detail[p] = fmt.Sprintf(" (how far behind is unknown; delete.retention.ms %s)", fmtRetention(p.Config.DeleteRetention))
		case p.Config.DeleteRetention < 0:
			detail[p] = fmt.Sprintf(" (%s behind; delete.retention.ms unknown)", now.Sub(time.UnixMilli(ms)).Round(time.Second))
		case now.Sub(time.UnixMilli(ms)) > p.Config.DeleteRetention:
			detail[p] = fmt.Sprintf(" (%s behind; delete.retention.ms %s)", now.Sub(time.UnixMilli(ms)).Round(time.Second), fmtRetention(p.Config.DeleteRetention))
		default:
			continue
		}
		risky = append(risky, p)
	}
	if len(risky) == 0 {
		return
	}
	text := fmt.Sprintf("%d partitions of compacted topics start further behind than delete.retention.ms: compaction may have removed tombstones written since, and the new job never sees those deletes: %s",
		len(risky), names(risky, func(p *PartitionOffsets) string { return detail[p] }))
	c.Warnings = append(c.Warnings, resume.Warnf(WarnTombstonesMayBeGone, "%s", text))
	if r.strict {
		c.Guarantee = resume.DataLoss
		c.Reasons = append(c.Reasons, "possible loss (Options.Strict): "+text)
	}
}

func fmtRetention(d time.Duration) string {
	if d < 0 {
		return "unknown"
	}
	return d.String()
}
