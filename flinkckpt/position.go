package flinkckpt

import (
	"encoding/json"
	"fmt"

	"github.com/resumekit/resumekit/resume"
)

// Position kinds.
const (
	KindCheckpoint = "flink-checkpoint"
	KindSavepoint  = "flink-savepoint"
)

// Position is a Flink checkpoint or savepoint to restore from.
type Position struct {
	// Path is the snapshot dir as Flink names it (a file-system URI such as
	// s3a://bucket/ck/<job>/chk-42), what flink run -s takes; "" when it
	// could not be determined (no Flink root given or inferable).
	Path string `json:"path"`
	// Key is the snapshot dir's key in the bucket (ending in "/").
	Key string `json:"key"`
	// JobID is the job dir the checkpoint is in ("" for savepoints and
	// layouts without job dirs).
	JobID        string `json:"job_id"`
	CheckpointID int64  `json:"checkpoint_id"`
	Savepoint    bool   `json:"savepoint"`
	// Format is CANONICAL or NATIVE for savepoints whose properties say so.
	Format string `json:"format"`
	// Version is the _metadata format version.
	Version int `json:"version"`
	// Drained marks a savepoint taken with stop --drain.
	Drained bool `json:"drained,omitempty"`
	// AllowNonRestoredState: the new job (Options.Job) has no operator for
	// some of the snapshot's state and is launched with
	// --allowNonRestoredState, which drops it (Options.AllowNonRestoredState).
	AllowNonRestoredState bool `json:"allow_non_restored_state,omitempty"`
}

var _ resume.Position = Position{}

// Kind returns "flink-savepoint" or "flink-checkpoint".
func (p Position) Kind() string {
	if p.Savepoint {
		return KindSavepoint
	}
	return KindCheckpoint
}

// String describes the position, e.g. "chk-42 of job 6f1e…" or "savepoint
// savepoint-7bd90b-3a2cda6957cb (checkpoint 3)".
func (p Position) String() string {
	name := lastSegment(p.Key)
	if p.Savepoint {
		return fmt.Sprintf("savepoint %s (checkpoint %d)", name, p.CheckpointID)
	}
	if p.JobID != "" {
		return fmt.Sprintf("%s of job %s", name, p.JobID)
	}
	return name
}

// Launch returns flink run -s <path> and both configuration keys for the
// restore path (execution.state-recovery.path since 1.20,
// execution.savepoint.path before; every version accepts both), and with
// AllowNonRestoredState --allowNonRestoredState and both keys for it
// (execution.state-recovery.ignore-unclaimed-state,
// execution.savepoint.ignore-unclaimed-state). It is empty when Path is
// unknown.
func (p Position) Launch() resume.Launch {
	if p.Path == "" {
		return resume.Launch{}
	}
	l := resume.Launch{
		Args: []string{"-s", p.Path},
		Config: map[string]string{
			"execution.state-recovery.path": p.Path,
			"execution.savepoint.path":      p.Path,
		},
	}
	if p.AllowNonRestoredState {
		l.Args = append(l.Args, "--allowNonRestoredState")
		l.Config[resume.ConfigIgnoreUnclaimedState] = "true"
		l.Config[resume.ConfigSavepointIgnoreUnclaimedState] = "true"
	}
	return l
}

// MarshalJSON encodes the position with its exported fields.
func (p Position) MarshalJSON() ([]byte, error) {
	type plain Position
	return json.Marshal(plain(p))
}

// PositionOf returns the flinkckpt position inside p: a Position or
// *Position, or a *resume.RawPosition read back from a decision document
// whose kind is flink-checkpoint or flink-savepoint.
func PositionOf(p resume.Position) (*Position, error) {
	out, err := resume.PositionAs[Position](p, KindCheckpoint, KindSavepoint)
	if err != nil {
		return nil, fmt.Errorf("flinkckpt: %w", err)
	}
	return out, nil
}
