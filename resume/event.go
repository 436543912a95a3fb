package resume

import (
	"strconv"
	"time"
)

// EventKind says what an [Event] reports.
type EventKind int

const (
	// EventListed: a resolver listed a location (Key: its prefix; Count:
	// the snapshots or entries found).
	EventListed EventKind = iota + 1
	// EventMetadataRead: a snapshot's _metadata was read and parsed (Key:
	// its dir).
	EventMetadataRead
	// EventVerified: a snapshot's referenced files were checked (Key: its
	// dir; Count: the files checked).
	EventVerified
	// EventSourceChecked: a resolver of the chain returned (Resolver: its
	// name; Err: its error, nil or a no-position error for an answer).
	EventSourceChecked
	// EventStorageCall: one storage call ended (Op: list, read,
	// attributes, write, delete; Key; Duration; Err). Emitted by tools that
	// wrap their buckets (resumectl --verbose), not by the resolvers.
	EventStorageCall
)

var eventKindNames = [...]string{
	EventListed:        "listed",
	EventMetadataRead:  "metadata-read",
	EventVerified:      "verified",
	EventSourceChecked: "source-checked",
	EventStorageCall:   "storage-call",
}

// String returns listed, metadata-read, verified, source-checked or
// storage-call.
func (k EventKind) String() string {
	if k >= EventListed && k <= EventStorageCall {
		return eventKindNames[k]
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// Event is one step of a resolve, for progress lines, a deploy tool's logs
// or tracing: [Policy.OnEvent] receives the chain's, flinkckpt's
// Options.OnEvent a resolver's. Events of concurrent work arrive
// concurrently: the hook must be safe for concurrent use, and fast (it runs
// on the resolver's goroutine).
type Event struct {
	Kind EventKind
	// Resolver is the resolver's name ("" when not known).
	Resolver string
	// Key is the storage key or prefix the step was about, if any.
	Key string
	// Op is the storage call of an EventStorageCall.
	Op string
	// Count is the number of things the step found or checked, if any.
	Count int
	// Duration is how long a storage call took (EventStorageCall).
	Duration time.Duration
	// Err is the step's error, if any.
	Err error
}

// emit calls f with e unless f is nil; a panicking hook is ignored, so
// that a tool's logging never breaks a decision.
func emit(f func(Event), e Event) {
	if f == nil {
		return
	}
	defer func() { _ = recover() }()
	f(e)
}

// Emit calls f with e unless f is nil, ignoring a panic of f: resolver
// packages call their Options.OnEvent through it.
func Emit(f func(Event), e Event) { emit(f, e) }
