package flinkckpt

import (
	"fmt"
	"strings"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume"
)

// legacyStop grades the restore of a stop-with-savepoint that holds the
// legacy FlinkKafkaConsumer's offsets replay (WarnLegacyStopOffsets).
// Flink stops a legacy SourceFunction before the synchronous savepoint,
// and FlinkKafkaConsumerBase.snapshotState leaves its union state as it
// was once the source no longer runs: the savepoint records the offsets of
// the checkpoint before the stop, while the job's output and its other
// operators' state ran to the stop. Conformance U4 on Flink 1.20.3: the
// stop's savepoint held exactly the offsets of the checkpoint before it,
// 3,240 records short of the committed output; the consumer restored from
// it seeks there and reads them again. Not for a Flink 2.x job, which
// cannot restore that state into its operator (upgradeFails) or drops it
// (majorUpgrade).
func (r *Resolver) legacyStop(c *resume.Candidate, best *snap) {
	md := best.md
	if md.Action != metadata.ActionSuspend && md.Action != metadata.ActionTerminate {
		return
	}
	if v, err := parseFlinkVersion(r.opts.FlinkVersion); err == nil && v.Known() && v.AtLeast(2, 0) {
		return
	}
	var ops []string
	for _, op := range md.Operators {
		for _, name := range operatorStateNames(op) {
			if name == "topic-partition-offset-states" {
				ops = append(ops, "operator "+op.ID+uidSuffix(op))
			}
		}
	}
	if len(ops) == 0 {
		return
	}
	if c.Guarantee > resume.Replay {
		c.Guarantee = resume.Replay
	}
	c.Warnings = append(c.Warnings, resume.Warnf(WarnLegacyStopOffsets, "%s is the savepoint of a stop-with-savepoint (post-checkpoint action %s) and %s %s a legacy FlinkKafkaConsumer: Flink stops the source before the savepoint, and a closed FlinkKafkaConsumer snapshots no new offsets, so its \"topic-partition-offset-states\" are those of the checkpoint before the stop while the output and the other operators' state ran to the stop; the restored consumer reads the records between again (replay, counted twice in state; seen on Flink 1.20.3). A savepoint taken while the job runs (flink savepoint) records current offsets",
		best.name(), md.Action, strings.Join(ops, ", "), isAre(len(ops))))
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return fmt.Sprintf("(%d) are", n)
}
