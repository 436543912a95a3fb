package salvage

import (
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/resume"
)

// legacyKafkaOffsets is the legacy FlinkKafkaConsumer's union list state.
const legacyKafkaOffsets = "topic-partition-offset-states"

// legacyStop grades a salvage of a stop-with-savepoint's FlinkKafkaConsumer
// offsets replay. Flink stops a legacy SourceFunction before the
// synchronous savepoint, and FlinkKafkaConsumerBase.snapshotState leaves
// its union state as it was when the source is no longer running: the
// savepoint records the offsets of the checkpoint before the stop, while
// the output the job committed with the savepoint runs to the stop.
// Conformance U4 on Flink 1.20.3 (flink-connector-kafka 3.4.0-1.20): the
// stop's savepoint held exactly the offsets of the checkpoint before it,
// and a KafkaSource started there output again the 3,240 records the old
// job had processed between the two.
func (x *resolution) legacyStop(md *metadata.Checkpoint, s *sourcestate.Source) {
	if s.Kind != sourcestate.KindKafka || (md.Action != metadata.ActionSuspend && md.Action != metadata.ActionTerminate) {
		return
	}
	for _, op := range md.Operators {
		if op.ID != s.OperatorID || !holdsState(op, legacyKafkaOffsets) {
			continue
		}
		x.grade(resume.Replay)
		x.warn(WarnLegacyStopOffsets, "source %s is a legacy FlinkKafkaConsumer in the savepoint of a stop-with-savepoint (post-checkpoint action %s): Flink stops the source before the savepoint, and a closed FlinkKafkaConsumer snapshots no new offsets, so its %q are those of the checkpoint before the stop; the records it read between that checkpoint and the stop were output and committed, and a start at these offsets reads them again (replay; seen on Flink 1.20.3). A savepoint taken while the job runs (flink savepoint) records current offsets",
			s.OperatorID, md.Action, legacyKafkaOffsets)
		return
	}
}

// holdsState reports whether an operator's operator state has one named name.
func holdsState(op metadata.Operator, name string) bool {
	for _, st := range op.SubtaskStates {
		for _, h := range []*metadata.OperatorHandle{st.ManagedOperator, st.RawOperator} {
			if h == nil {
				continue
			}
			for _, si := range h.States {
				if si.Name == name {
					return true
				}
			}
		}
	}
	return false
}
