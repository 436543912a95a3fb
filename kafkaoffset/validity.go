package kafkaoffset

import (
	"fmt"
	"time"
)

// validUntil is the Kafka time-to-loss rule: a partition's start record
// (the first at or after the start offset) leaves retention no earlier than
// its timestamp plus the topic's retention.ms (Kafka deletes whole
// segments once their newest record is older than that, so a record may
// stay longer, never shorter, by time). The earliest such moment over the
// partitions is when the start may lose data. A partition whose start is
// the end offset (no record yet) constrains nothing. It returns the zero
// time and why when unknown: a topic whose retention.ms was not read or
// is unlimited, or a start record whose time was not read.
func validUntil(ps []*PartitionOffsets) (time.Time, string) {
	var at time.Time
	var why string
	for _, p := range ps {
		if p.Offset < 0 || p.Offset >= p.End {
			continue
		}
		c := p.Config
		switch {
		case !c.RetentionRead:
			return time.Time{}, fmt.Sprintf("valid until unknown: retention.ms of topic %s not read", p.Topic)
		case c.Retention < 0:
			continue // unlimited
		case p.StartMillis < 0:
			return time.Time{}, fmt.Sprintf("valid until unknown: the time of %s's record at offset %d was not read", p.name(), p.Offset)
		}
		t := time.UnixMilli(p.StartMillis).Add(c.Retention).UTC()
		if at.IsZero() || t.Before(at) {
			at = t
			why = fmt.Sprintf("valid until %s: kafka %s: its start record (offset %d) has timestamp %s, and topic %s keeps records for retention.ms %s (%d ms)",
				at.Format(time.RFC3339), p.name(), p.Offset, fmtMillis(p.StartMillis), p.Topic, c.Retention, c.Retention.Milliseconds())
			if c.RetentionBytes >= 0 {
				why += fmt.Sprintf("; retention.bytes %d is set too: deletion by size can come earlier, which no time tells", c.RetentionBytes)
			}
		}
	}
	return at, why
}
