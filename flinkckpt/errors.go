package flinkckpt

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

// ErrEmptyLocation is wrapped when nothing at all is stored under the
// prefix: a first deploy, or a mistyped prefix. It wraps
// [resume.ErrNoPosition] (there is honestly nothing to offer), so a chain
// falls back to other sources; a deploy tool that requires state checks it
// with errors.Is and fails instead (resumectl resolve --flink-require).
var ErrEmptyLocation = error(emptyLocationError{})

type emptyLocationError struct{}

func (emptyLocationError) Error() string {
	return "nothing at all is stored there: a first deploy, or a mistyped prefix"
}

func (emptyLocationError) Unwrap() error { return resume.ErrNoPosition }

// ErrIncompatible is wrapped when nothing restorable was offered and
// snapshots were passed over because the new job (Options.Job) cannot
// restore them: state it would drop, or a parallelism it refuses. It wraps
// [resume.ErrNoPosition] and [resume.ErrIncompatible] — the state is there
// but of no use to this job,
// so a chain falls back to other sources; the best of those is usually the
// snapshot's own source positions (package salvage, resumectl resolve
// with the new job given). Check it with errors.Is.
var ErrIncompatible = error(incompatibleError{})

type incompatibleError struct{}

func (incompatibleError) Error() string {
	return "no snapshot restores into the new job (its source positions can still be salvaged)"
}

// Unwrap returns resume.ErrNoPosition (a resolver's "nothing to offer") and
// resume.ErrIncompatible (a chain that chose nothing says why).
func (incompatibleError) Unwrap() []error {
	return []error{resume.ErrNoPosition, resume.ErrIncompatible}
}

// ErrBroken is wrapped when nothing restorable was offered and completed
// snapshots were passed over because they cannot be restored (referenced
// files missing or of the wrong size, a truncated or corrupt _metadata, a
// restore a live check says fails): the job had state, and starting it
// empty loses that state. It wraps [resume.ErrNoPosition] (a chain falls
// back to other sources, e.g. Kafka offsets) and [resume.ErrRefused], so a
// chain that chooses nothing reports it as refused (resumectl exit 4),
// never as nothing to restore (exit 3, a first deploy). Check it with
// errors.Is.
var ErrBroken = error(brokenError{})

type brokenError struct{}

func (brokenError) Error() string {
	return "every snapshot that completed is broken: the state is lost, not absent"
}

// Unwrap returns resume.ErrNoPosition (a resolver's "nothing to offer") and
// resume.ErrRefused (a chain that chose nothing says the snapshots there
// were refused).
func (brokenError) Unwrap() []error {
	return []error{resume.ErrNoPosition, resume.ErrRefused}
}

// ErrNoFlinkPath is wrapped when the snapshot to choose has no known Flink
// path: its references are all relative (a canonical savepoint) or none
// contains its key, and no Flink root was given or derived. Resolve fails
// rather than choose an older snapshot or nothing: pass Options.FlinkRoot.
// Check it with errors.Is.
var ErrNoFlinkPath = errors.New("flinkckpt: no Flink path")

// NoFlinkPathError is Resolve's error wrapping ErrNoFlinkPath: it names
// the snapshot it would choose, which what needs no Flink path can still
// use (package salvage reads its source state by key). Get it with
// errors.As.
type NoFlinkPathError struct {
	// Key is the snapshot dir's key (ending in "/").
	Key string
	// Location is where it is: 0 for the resolver's own bucket, i for
	// Options.Locations[i-1].
	Location int
	msg      string
}

// Error says which snapshot has no Flink path and how to give one.
func (e *NoFlinkPathError) Error() string { return e.msg }

// Unwrap returns ErrNoFlinkPath.
func (e *NoFlinkPathError) Unwrap() error { return ErrNoFlinkPath }

// ErrMapping is wrapped when nothing restorable was found and snapshots
// failed because their absolute references do not map to the location: a
// Flink root that contradicts the references, or references on the
// snapshot's own file system outside it. It is a failure, not "no
// position": the state is probably there under another name. Check it with
// errors.Is.
var ErrMapping = errors.New("flinkckpt: Flink paths do not map to the location")

// ErrLayoutBelow is wrapped when a location holds no chk-<n> or savepoint
// dir but Flink's layout is one level below it (the location is a level
// too high: F1 where the checkpoint root is F1/ck). It is a failure that
// says where, never "no position": a deploy script reads that as a first
// deploy and starts the job empty. Check it with errors.Is.
var ErrLayoutBelow = errors.New("flinkckpt: Flink's layout is one level below the location")

// ErrUnverified is wrapped when nothing restorable was offered and
// snapshots were passed over because references could not be checked (no
// root maps them): the state is probably there, so this is a failure, not
// "no position". Map the references (Options.ExtraRoots) or accept them
// (Options.AllowUnverified). Check it with errors.Is.
var ErrUnverified = errors.New("flinkckpt: snapshots could not be verified")

// ErrIntent is wrapped when nothing restorable was offered and snapshots
// were passed over because they cannot serve Options.Intent (unaligned
// checkpoints for an upgrade): a failure, not "no position". Check it with
// errors.Is.
var ErrIntent = errors.New("flinkckpt: no snapshot serves the intent")

// ErrStillRunning is wrapped by a *StillRunningError. Check it with
// errors.Is.
var ErrStillRunning = errors.New("flinkckpt: the old job is still running")

// TooLargeError is returned when a _metadata file is larger than the limit
// (Options.MaxMetadataSize): the snapshot is too large to inspect, and
// resolution stops there rather than fall back to an older snapshot or a
// stateless start. It matches metadata.ErrTooLarge with errors.Is.
type TooLargeError struct {
	// Key of the _metadata object.
	Key string
	// Size is its size in bytes; -1 when the stream was longer than the
	// limit without saying so beforehand.
	Size int64
	// Limit is the limit in force.
	Limit int64
}

// Error names the key, the size, the limit and how to raise it.
func (e *TooLargeError) Error() string {
	size := fmt.Sprintf("%d bytes", e.Size)
	if e.Size < 0 {
		size = "more than that"
	}
	return fmt.Sprintf("flinkckpt: %s is too large to inspect: %s, limit %d bytes (raise Options.MaxMetadataSize, --flink-max-metadata-size)",
		redact.QuoteKey(e.Key), size, e.Limit)
}

// Is reports metadata.ErrTooLarge.
func (e *TooLargeError) Is(target error) bool { return target == metadata.ErrTooLarge }

// StillRunningError is returned when the observation window
// (Options.Observe) saw the location change: a new chk-<n>, job dir or
// savepoint dir appeared, so the old job still runs.
type StillRunningError struct {
	// Location is the prefix observed.
	Location string
	// Window is how long it was observed.
	Window time.Duration
	// Appeared lists what appeared (keys of the new dirs).
	Appeared []string
}

// Error says what appeared while observing.
func (e *StillRunningError) Error() string {
	return fmt.Sprintf("flinkckpt: the old job is still running: within %s under %s appeared %s (stop it first: with execution.checkpointing.num-retained 1 it deletes the chosen checkpoint at its next one)",
		e.Window, redact.QuoteKey(e.Location), strings.Join(e.Appeared, ", "))
}

// Is reports ErrStillRunning.
func (e *StillRunningError) Is(target error) bool { return target == ErrStillRunning }

// ErrSeveralApplications is wrapped by an *ApplicationsError. Check it
// with errors.Is.
var ErrSeveralApplications = errors.New("flinkckpt: snapshots of several applications")

// ErrNoMetadata is wrapped when a checkpoint or savepoint dir has no
// _metadata: the checkpoint is in progress, failed, or being deleted (Flink
// deletes _metadata first). Check it with errors.Is.
var ErrNoMetadata = errors.New("flinkckpt: no _metadata")

// ErrStateUnreadable is wrapped when a source operator's state file could
// not be read from storage for a reason other than its absence (an
// unreachable store, a denied request): the state may well be there, so a
// caller treats it as a failure to look, not as a snapshot without usable
// source state. Check it with errors.Is.
var ErrStateUnreadable = errors.New("flinkckpt: source state file unreadable")
