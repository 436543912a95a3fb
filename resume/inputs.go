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
