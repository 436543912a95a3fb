package kafkaoffset

import (
	"fmt"
	"strings"

	"github.com/resumekit/resumekit/resume/redact"
)

// IsolationLevel is the isolation level of the consumer the new job reads
// with ([Options.IsolationLevel]): which end of the log it can reach.
type IsolationLevel string

// The isolation levels (the Kafka consumer's isolation.level values).
const (
	// ReadCommitted: the job reads only committed transactional records
	// and never past the last stable offset (LSO), the first offset of the
	// oldest open transaction. Standard behind exactly-once producers
	// (Flink's KafkaSink with EXACTLY_ONCE). The default ("" means it):
	// every start it yields is safe for a read_uncommitted job too, at the
	// cost of reading an open transaction's records again.
	ReadCommitted IsolationLevel = "read_committed"
	// ReadUncommitted: the job reads up to the high watermark, open and
	// aborted transactions included (the Kafka consumer's own default).
	// Starts are not lowered to the LSO; a read_committed job started
	// from them skips the records of transactions open when they were
	// listed.
	ReadUncommitted IsolationLevel = "read_uncommitted"
)

// orDefault returns l, or ReadCommitted for "".
func (l IsolationLevel) orDefault() IsolationLevel {
	if l == "" {
		return ReadCommitted
	}
	return l
}

func (l IsolationLevel) valid() error {
	switch l.orDefault() {
	case ReadCommitted, ReadUncommitted:
		return nil
	}
	return fmt.Errorf("kafkaoffset: unknown isolation level %s: want %s or %s", redact.Quote(string(l)), ReadCommitted, ReadUncommitted)
}

// String returns the level's name, read_committed for "".
func (l IsolationLevel) String() string { return string(l.orDefault()) }

// openTransactions lists the partitions whose last stable offset is below
// the high watermark: a transaction was open when they were listed.
func openTransactions(ps []*PartitionOffsets) string {
	var open []*PartitionOffsets
	for _, p := range ps {
		if p.LastStable >= 0 && p.LastStable < p.End {
			open = append(open, p)
		}
	}
	if len(open) == 0 {
		return ""
	}
	return fmt.Sprintf("%d partitions have an open transaction (last stable offset below the high watermark): a read_committed job reads nothing past the LSO until it ends, and a hanging transaction (its producer gone, transaction.timeout.ms not yet passed) stalls it: %s",
		len(open), names(open, func(p *PartitionOffsets) string {
			return fmt.Sprintf(" (LSO %d, high watermark %d)", p.LastStable, p.End)
		}))
}

// lowerToStable lowers a start above the last stable offset to it, for a
// read_committed job: records from the LSO on belong to a transaction still
// open (or come after one), and a read_committed reader starting above the
// LSO never reads the transaction's records below its start once it
// commits. It appends why to the reason.
func lowerToStable(p *PartitionOffsets) {
	if p.LastStable < 0 || p.Offset <= p.LastStable {
		return
	}
	var b strings.Builder
	b.WriteString(p.Reason)
	fmt.Fprintf(&b, "; lowered from %d to the last stable offset %d (an open transaction; high watermark %d): a read_committed reader starting at %d would never read the transaction's records below it once it commits",
		p.Offset, p.LastStable, p.End, p.Offset)
	p.Reason = b.String()
	p.Offset = p.LastStable
	p.LoweredToStable = true
}
