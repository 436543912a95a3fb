package resume

import (
	"fmt"
	"strings"
)

// InputStart is where a position starts reading one input, and what a live
// check of that input proved gone.
type InputStart struct {
	// Input names the input the same way in every resolver:
	// KafkaInput(topic, partition) for a Kafka partition.
	Input string
	// Offset is the position's own start in the input's order (for Kafka
	// the next offset to read as the snapshot or commit had it, before any
	// move to the log start).
	Offset int64
	// GoneBelow, when not negative, is what a live check proved: every
	// record below it is gone (for Kafka the log start offset listed).
	// -1 when the input was not checked.
	GoneBelow int64
}

// KafkaInput names a Kafka partition as an [InputStart.Input]:
// "kafka:<topic>/<partition>".
func KafkaInput(topic string, partition int32) string {
	return fmt.Sprintf("kafka:%s/%d", topic, partition)
}

// PaimonInput names a Paimon table's snapshot sequence as an
// [InputStart.Input]: "paimon:<db.table>" (the SQL identifier, with
// "$branch_<b>" for a branch other than main); the Offset is the next
// snapshot id to read.
func PaimonInput(table string) string {
	return "paimon:" + table
}

// InputStarter is implemented by positions that can say where they start
// each input (kafkaoffset, flinkckpt and salvage positions). The chain uses
// it to keep a decision consistent: a candidate that starts an input below
// what another candidate's live check proved gone is graded
// [DataLoss], whatever its resolver said ([WarnProvedLost]).
type InputStarter interface {
	InputStarts() []InputStart
}

// provedLost grades down every candidate that starts an input below what
// any candidate proved gone of it.
func provedLost(cands []*Candidate) {
	type proof struct {
		below    int64
		resolver string
	}
	gone := map[string]proof{}
	starts := make([][]InputStart, len(cands))
	for k, c := range cands {
		is, ok := c.Position.(InputStarter)
		if !ok {
			continue
		}
		starts[k] = is.InputStarts()
		for _, s := range starts[k] {
			if p, seen := gone[s.Input]; s.GoneBelow > 0 && (!seen || s.GoneBelow > p.below) {
				gone[s.Input] = proof{s.GoneBelow, c.Resolver}
			}
		}
	}
	for k, c := range cands {
		if c.Guarantee <= DataLoss {
			continue
		}
		var lost []string
		for _, s := range starts[k] {
			if p, ok := gone[s.Input]; ok && s.Offset >= 0 && s.Offset < p.below {
				lost = append(lost, fmt.Sprintf("%s starts at %d, and %s found everything below %d gone", s.Input, s.Offset, p.resolver, p.below))
			}
		}
		if len(lost) == 0 {
			continue
		}
		if len(lost) > 10 {
			lost = append(lost[:10], fmt.Sprintf("and %d more", len(lost)-10))
		}
		c.Warnings = append(c.Warnings, Warnf(WarnProvedLost, "graded data-loss, not %s: another candidate's live check proved input this position starts below gone: %s", c.Guarantee, strings.Join(lost, "; ")))
		c.Guarantee = DataLoss
	}
}

// SinkPender is implemented by positions of a snapshot whose sink
// committer held output it had not committed, and that nothing proved or
// asserted committed since (flinkckpt and salvage positions). Only a
// restore of that snapshot commits it: any other start at or above the
// snapshot's source positions never does, and the chain grades it
// [DataLoss] ([WarnSinkPending]).
type SinkPender interface {
	// SinkPending returns what is pending (the sink, the checkpoint, the
	// transactions), "" when nothing is; the snapshot's source positions
	// are its InputStarts.
	SinkPending() string
}

// sinkPending grades down every candidate that starts an input at or
// above the source position of a snapshot whose sink output is pending
// there, unless the candidate is a position of a snapshot itself (a
// SinkPender grades its own sink: a restore commits it, a salvage counts
// it).
func sinkPending(cands []*Candidate) {
	type pend struct {
		starts   map[string]int64
		what     string
		resolver string
	}
	var pends []pend
	for _, c := range cands {
		sp, ok := c.Position.(SinkPender)
		if !ok {
			continue
		}
		what := sp.SinkPending()
		is, ok := c.Position.(InputStarter)
		if what == "" || !ok {
			continue
		}
		p := pend{starts: map[string]int64{}, what: what, resolver: c.Resolver}
		for _, s := range is.InputStarts() {
			if s.Offset >= 0 {
				p.starts[s.Input] = s.Offset
			}
		}
		if len(p.starts) > 0 {
			pends = append(pends, p)
		}
	}
	for _, c := range cands {
		if c.Guarantee <= DataLoss {
			continue
		}
		if _, ok := c.Position.(SinkPender); ok {
			continue
		}
		is, ok := c.Position.(InputStarter)
		if !ok {
			continue
		}
		for _, p := range pends {
			var at []string
			for _, s := range is.InputStarts() {
				if o, ok := p.starts[s.Input]; ok && s.Offset >= o {
					at = append(at, fmt.Sprintf("%s at %d (the snapshot's %d)", s.Input, s.Offset, o))
				}
			}
			if len(at) == 0 {
				continue
			}
			if len(at) > 10 {
				at = append(at[:10], fmt.Sprintf("and %d more", len(at)-10))
			}
			c.Warnings = append(c.Warnings, Warnf(WarnSinkPending, "graded data-loss, not %s: this start is at or above the source position of %s's snapshot (%s), whose sink output there was pending and not proven committed: %s; only a restore of that snapshot commits it (check the sink, or assert it committed: --flink-sink-committed)",
				c.Guarantee, p.resolver, strings.Join(at, ", "), p.what))
			c.Guarantee = DataLoss
			break
		}
	}
}
