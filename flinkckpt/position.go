package flinkckpt

import (
	"encoding/json"
	"fmt"

	"github.com/resumekit/resumekit/resume"
)

// The Kinds of a [Position]: a checkpoint, or a savepoint.
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
	// Location is the location Key is in: 0 the resolver's own bucket and
	// prefix, i > 0 Options.Locations[i-1].
	Location int `json:"location,omitempty"`
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
	// KindUnknown marks a snapshot whose kind nothing tells: a _metadata of
	// version 2 or 3 (no properties) in a dir named neither chk-<n> nor
	// savepoint-… (a hand copy). Savepoint is false then, and String says
	// "snapshot".
	KindUnknown bool `json:"kind_unknown,omitempty"`
	// Verified is true when every file the snapshot references was checked
	// and found with its recorded size.
	Verified bool `json:"verified"`
	// ReferencedFiles, CheckedFiles and UncheckedFiles count the distinct
	// files the snapshot references, those checked, and those that could
	// not be (no root maps them; all of them with verification off).
	ReferencedFiles int `json:"referenced_files"`
	CheckedFiles    int `json:"checked_files"`
	UncheckedFiles  int `json:"unchecked_files"`
	// ExtraRoots are the Flink roots of Options.ExtraRoots through which
	// referenced files were found and checked (a copied tree's old place,
	// DSTL files under another base path): the restore reads them there.
	ExtraRoots []string `json:"extra_roots,omitempty"`
	// ClaimMode is the launch's claim mode (NO_CLAIM, CLAIM, LEGACY); ""
	// when the new job's Flink has none (before 1.15).
	ClaimMode string `json:"claim_mode,omitempty"`
	// FlinkVersion is the new job's Flink version when given: it picks the
	// run line's claim-mode flag.
	FlinkVersion string `json:"flink_version,omitempty"`
	// Deployment is how the new job is started (Options.Deployment) when
	// given: "application" leaves -claimMode out of the run line
	// (FLINK-40559).
	Deployment Deployment `json:"deployment,omitempty"`
	// StateBackend is the state backend family the keyed state handles show
	// (rocksdb-incremental, full, canonical, changelog), or forst when the
	// keyed state meta info shows ForSt's async state (BackendForSt); ""
	// without keyed state.
	StateBackend Backend `json:"state_backend,omitempty"`
	// Unaligned marks an unaligned checkpoint (in-flight data recorded):
	// restorable into the same job, unchanged, on the same Flink minor
	// version and state backend only; rescaling and patch upgrades are
	// supported.
	Unaligned bool `json:"unaligned,omitempty"`
	// FinishedOperators counts operators that had fully finished.
	FinishedOperators int `json:"finished_operators,omitempty"`
	// PostCheckpointAction is a savepoint's NONE (the job kept running),
	// SUSPEND (stop) or TERMINATE (stop --drain), when recorded (v4+).
	PostCheckpointAction string `json:"post_checkpoint_action,omitempty"`
	// AllowNonRestoredState: the new job (Options.Job) has no operator for
	// some of the snapshot's state and is launched with
	// --allowNonRestoredState, which drops it (Options.AllowNonRestoredState).
	AllowNonRestoredState bool `json:"allow_non_restored_state,omitempty"`
	// Considered lists the other snapshots the resolver looked at: those it
	// passed over (incomplete, broken, unverified, refused, incompatible),
	// per job dir and savepoint dir, and the other dirs' heads it ranked
	// below this one; empty when there were none. The timeline draws them.
	Considered []ConsideredSnapshot `json:"considered,omitempty"`
	// Live is what checking the snapshot's sources against the live
	// systems found (Options.Live); nil when nothing was checked. (A
	// pointer keeps Position comparable.)
	Live *LiveCheck `json:"live,omitempty"`
	// Sinks are the snapshot's Sink V2 committers that held pending work,
	// and what their sinks said of it; empty when none did.
	Sinks []SinkCheck `json:"sinks,omitempty"`
	// Inputs are where the snapshot's KafkaSources continue each
	// partition, decoded with or without a live check (InputStarts).
	Inputs []resume.InputStart `json:"-"`
}

// LiveCheck is what checking a snapshot's sources against the live
// systems that serve them found (Options.Live).
type LiveCheck struct {
	// Sources has one entry per source operator, in _metadata order.
	Sources []SourceCheck `json:"sources"`
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
	switch {
	case p.Savepoint:
		return fmt.Sprintf("savepoint %s (checkpoint %d)", name, p.CheckpointID)
	case p.KindUnknown:
		return fmt.Sprintf("snapshot %s (checkpoint %d)", name, p.CheckpointID)
	}
	if p.JobID != "" {
		return fmt.Sprintf("%s of job %s", name, p.JobID)
	}
	return name
}

// Launch returns flink run -s <path> and both configuration keys for the
// restore path (execution.state-recovery.path since 1.20,
// execution.savepoint.path before; every version accepts both) and for the
// claim mode (execution.state-recovery.claim-mode since 1.20,
// execution.savepoint-restore-mode in 1.15–1.19). With a FlinkVersion the
// run line names the claim mode too: -claimMode from 1.20, -restoreMode in
// 1.15–1.19; never for Deployment "application", whose command line does
// not parse the flag (FLINK-40559). With AllowNonRestoredState it adds --allowNonRestoredState and
// both keys for it (execution.state-recovery.ignore-unclaimed-state,
// execution.savepoint.ignore-unclaimed-state). Its Options are the table
// options the live check of its sources set (scan.startup.mode=earliest-offset
// for a KafkaSource below the log start). It is empty when Path is
// unknown.
func (p Position) Launch() resume.Launch {
	l := launch(p.Path, ClaimMode(p.ClaimMode), p.FlinkVersion, p.Deployment)
	if p.Path != "" && p.AllowNonRestoredState {
		l.Args = append(l.Args, "--allowNonRestoredState")
		l.Config[resume.ConfigIgnoreUnclaimedState] = "true"
		l.Config[resume.ConfigSavepointIgnoreUnclaimedState] = "true"
	}
	if o := liveOptions(p.Live); p.Path != "" && len(o) > 0 {
		l.Options = o
	}
	return l
}

var _ resume.InputStarter = Position{}

// InputStarts returns where the snapshot's KafkaSources continue each
// partition, with the log start the live check listed (Live), so that a
// chain grades it by what other candidates proved gone and others by what
// it proved. Without a live check (no Options.Live) the positions decoded
// from the snapshot's inline source state, proving nothing gone
// (GoneBelow -1): a chain in which another resolver proved records below
// them deleted still grades the restore data-loss.
func (p Position) InputStarts() []resume.InputStart {
	if p.Live == nil {
		return p.Inputs
	}
	var out []resume.InputStart
	for _, s := range p.Live.Sources {
		for _, k := range s.Kafka {
			if k.Offset >= 0 {
				out = append(out, resume.InputStart{Input: resume.KafkaInput(k.Topic, k.Partition), Offset: k.Offset, GoneBelow: k.LogStart})
			}
		}
		if s.Paimon != nil && s.Paimon.Table != "" {
			out = append(out, resume.InputStart{Input: resume.PaimonInput(s.Paimon.Table), Offset: s.Paimon.NextSnapshot, GoneBelow: -1})
		}
	}
	return out
}

// MarshalJSON encodes the position with its exported fields.
func (p Position) MarshalJSON() ([]byte, error) {
	type plain Position
	return json.Marshal(plain(p))
}

// PositionOf returns the position in p: a Position, a copy of a *Position,
// or a [*resume.RawPosition] of kind "flink-checkpoint" or "flink-savepoint" read back from a decision
// document, decoded. Any other position is an error.
func PositionOf(p resume.Position) (*Position, error) {
	out, err := resume.PositionAs[Position](p, KindCheckpoint, KindSavepoint)
	if err != nil {
		return nil, fmt.Errorf("flinkckpt: %w", err)
	}
	return out, nil
}
