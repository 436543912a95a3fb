package kafkaoffset

import (
	"fmt"

	"github.com/resumekit/resumekit/resume/redact"
)

// CommitSource says how the old job committed the group's offsets
// ([Options.CommitSource]), which decides what a commit proves.
type CommitSource string

// The commit sources.
const (
	// CommitOnCheckpoint: the old job committed when a checkpoint
	// completed (KafkaSource's commit.offsets.on.checkpoint, the default,
	// with enable.auto.commit unset or false). Every record below a commit
	// was processed and checkpointed: a restart from the commits replays,
	// never skips. The default ("" means it); the candidate says the
	// assumption in a warning ([WarnCommitSourceAssumed]).
	CommitOnCheckpoint CommitSource = "checkpoint"
	// CommitAuto: the old job's consumer auto-committed
	// (enable.auto.commit=true, which KafkaSource honours): it commits its
	// fetch position every auto.commit.interval.ms, ahead of records still
	// in flight in the job. A restart from those commits skips them:
	// graded data loss.
	CommitAuto CommitSource = "auto"
	// CommitUnknown: the caller does not know. A commit may then be ahead
	// of processing, and possible loss counts as loss: graded like
	// CommitAuto, with a reason that says the source is unknown (the one
	// rule resumekit applies everywhere: a start that cannot be shown to
	// skip nothing is not called a replay).
	CommitUnknown CommitSource = "unknown"
)

func (s CommitSource) orDefault() CommitSource {
	if s == "" {
		return CommitOnCheckpoint
	}
	return s
}

func (s CommitSource) valid() error {
	switch s.orDefault() {
	case CommitOnCheckpoint, CommitAuto, CommitUnknown:
		return nil
	}
	return fmt.Errorf("kafkaoffset: unknown commit source %s: want %s, %s or %s", redact.Quote(string(s)), CommitOnCheckpoint, CommitAuto, CommitUnknown)
}

// String returns the source's name, checkpoint for "".
func (s CommitSource) String() string { return string(s.orDefault()) }
