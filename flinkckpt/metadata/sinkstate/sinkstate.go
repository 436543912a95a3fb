package sinkstate

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/opstate"
)

// CommitterStateName is the name of the operator list state in which a
// Sink V2 committer (CommitterOperator) keeps the committables it has not
// committed yet (STREAMING_COMMITTER_RAW_STATES_DESC). Flink 1.14's Sink V1
// committer operators used the same name.
const CommitterStateName = "streaming_committer_raw_states"

// Magic is the first int32 of a CommittableCollectorSerializer payload
// (and of Flink 1.13–1.14's StreamingCommitterState).
const Magic = 0xb91f252c

// EndOfInput is the checkpoint id under which a committer keeps the
// committables of the end of input (Long.MAX_VALUE): a bounded job's last
// ones, committed when the job finishes.
const EndOfInput = math.MaxInt64

// maxID is the largest checkpoint id accepted other than EndOfInput: 2^62,
// as metadata.MaxCheckpointID.
const maxID = 1 << 62

// Options configures [Decode]: how state held outside _metadata is read.
// It is opstate's, shared with sourcestate: ReadStream returns a file's (or
// a merged file segment's) bytes, MaxStreamSize bounds a stream and an
// element, MaxDecodedSize the bytes decoded out of the snapshot's
// compressed streams, Context stops a decode. A nil *Options reads inline
// state only.
type Options = opstate.Options

// Format is the format of a committer operator's state.
type Format string

// Formats.
const (
	// FormatCollector is Flink's CommittableCollectorSerializer (Sink V2,
	// and Flink 1.13–1.14's StreamingCommitterState as its version 1).
	FormatCollector Format = "committable-collector"
	// FormatUnknown is state under CommitterStateName that is no
	// CommittableCollector (a connector's own committer, e.g. Paimon's):
	// its elements are counted, not interpreted.
	FormatUnknown Format = "unknown"
)

// Request states (CommitRequestState's ordinals).
const (
	stateReceived  = 0
	stateRetry     = 1
	stateFailed    = 2
	stateCommitted = 3
)

// State is the committer state of a checkpoint or savepoint: one Committer
// per operator that holds CommitterStateName, in the _metadata's operator
// order.
type State struct {
	CheckpointID int64
	Committers   []Committer
}

// Committer is the state of one committer operator.
type Committer struct {
	// OperatorID is the operator id (32 hex characters); Name and UID are
	// recorded from _metadata version 5 on (Flink 2.x; 1.20 writes 4).
	OperatorID string
	Name, UID  string
	// Format is FormatCollector when every element decodes as a
	// CommittableCollector, FormatUnknown otherwise ("" when there is no
	// element).
	Format Format
	// Elements counts the list state's elements, every subtask's.
	Elements int
	// Subtasks are the decoded elements, in subtask order (FormatCollector).
	Subtasks []Subtask
	// Paimon is Paimon's committer's state (FormatPaimon), nil otherwise.
	Paimon *PaimonCommitter
	// Notes say why a committer's format is unknown.
	Notes []string
	// Err is set when the operator's state could not be read or decoded;
	// what was decoded before the error is kept.
	Err error
}

// Subtask is one committer subtask's collector: its checkpoints that still
// hold committables.
type Subtask struct {
	// Subtask is the committer subtask whose state holds the element.
	Subtask int32
	// Version is CommittableCollectorSerializer's version: 1 (Flink
	// 1.13–1.14's StreamingCommitterState) or 2.
	Version int32
	// Checkpoints are in the order the state lists them.
	Checkpoints []Checkpoint
}

// Checkpoint is what one committer subtask holds for one checkpoint.
type Checkpoint struct {
	// CheckpointID is the checkpoint whose transactions the committables
	// are; 0 for Legacy ones; EndOfInput for the end of input's.
	CheckpointID int64
	// Legacy: collector version 1, whose committables have no checkpoint
	// id (Flink restores them as the first checkpoint's).
	Legacy bool
	// WriterSubtasks is the number of writer subtasks the checkpoint
	// expects committables from (checkpoint serializer version 1); 0 when
	// not recorded.
	WriterSubtasks int32
	// Writers counts the writer subtasks listed.
	Writers int
	// Pending counts the committables received and not committed yet
	// (state RECEIVED or RETRY): prepared transactions a restore commits and
	// a stateless start never does. Legacy committables are all pending.
	Pending int
	// Committed and Failed count the committables in a final state still
	// listed (committed, or failed and given up).
	Committed, Failed int
	// Drained counts committables already committed and passed on
	// (subtask serializer versions 0 and 1 record it).
	Drained int
	// Kafka are the pending committables that are KafkaSink transactions
	// (ParseKafkaCommittable); Other counts the pending ones of any other
	// type (a connector resumekit does not decode: possibly pending
	// output all the same).
	Kafka []KafkaCommittable
	Other int
}

// committable records a pending committable's type.
func (cp *Checkpoint) committable(version int32, b []byte) {
	if k, err := ParseKafkaCommittable(version, b); err == nil {
		cp.Kafka = append(cp.Kafka, k)
		return
	}
	cp.Other++
}

// Pending is the pending committables of one checkpoint, summed over a
// committer's subtasks.
type Pending struct {
	CheckpointID int64 `json:"checkpoint_id"`
	// Legacy: committables without a checkpoint id (collector version 1).
	Legacy       bool `json:"legacy,omitempty"`
	Committables int  `json:"committables"`
	// Kafka are the KafkaSink transactions among them (every subtask's),
	// Other counts the committables of any other type.
	Kafka []KafkaCommittable `json:"kafka,omitempty"`
	Other int                `json:"other,omitempty"`
}

// Pending returns the checkpoints that still have pending committables,
// each with their count summed over the subtasks, by checkpoint id.
func (c *Committer) Pending() []Pending {
	type key struct {
		id     int64
		legacy bool
	}
	n := 0
	for _, s := range c.Subtasks {
		n += len(s.Checkpoints)
	}
	out := make([]Pending, 0, min(n, 1024))
	at := make(map[key]int, n) // one lookup per subtask checkpoint: linear in the state
	slot := func(id int64, legacy bool) *Pending {
		i, ok := at[key{id, legacy}]
		if !ok {
			i = len(out)
			at[key{id, legacy}] = i
			out = append(out, Pending{CheckpointID: id, Legacy: legacy})
		}
		return &out[i]
	}
	for _, s := range c.Subtasks {
		for _, cp := range s.Checkpoints {
			if cp.Pending == 0 {
				continue
			}
			p := slot(cp.CheckpointID, cp.Legacy)
			p.Committables += cp.Pending
			p.Kafka = append(p.Kafka, cp.Kafka...)
			p.Other += cp.Other
		}
	}
	if c.Paimon != nil {
		for _, pc := range c.Paimon.Committables {
			slot(pc.Identifier, false).Committables++
		}
	}
	slices.SortStableFunc(out, func(a, b Pending) int { return cmp.Compare(a.CheckpointID, b.CheckpointID) })
	return out
}

// PendingCommittables returns the number of pending committables of every
// subtask and checkpoint.
func (c *Committer) PendingCommittables() int {
	n := 0
	for _, p := range c.Pending() {
		n += p.Committables
	}
	return n
}

// Decode finds every operator of cp whose operator state holds
// CommitterStateName and decodes each subtask's element. A committer
// whose elements are no CommittableCollector is FormatUnknown with a note.
// Committers whose state could not be read or decoded carry their own Err,
// joined in the returned error; the others are complete either way.
func Decode(cp *metadata.Checkpoint, opts *Options) (*State, error) {
	st := &State{CheckpointID: cp.CheckpointID}
	var errs []error
	budget := opts.NewBudget()
	for i := range cp.Operators {
		if err := budget.Err(); err != nil {
			return st, errors.Join(append(errs, err)...)
		}
		c, ok := decodeOperator(&cp.Operators[i], opts, budget)
		if !ok {
			continue
		}
		if c.Err != nil {
			errs = append(errs, c.Err)
		}
		st.Committers = append(st.Committers, c)
	}
	return st, errors.Join(errs...)
}

// Committer returns the committer with operator id id, or nil.
func (s *State) Committer(id string) *Committer {
	for i := range s.Committers {
		if s.Committers[i].OperatorID == id {
			return &s.Committers[i]
		}
	}
	return nil
}

func decodeOperator(op *metadata.Operator, opts *Options, budget *opstate.Budget) (Committer, bool) {
	c := Committer{OperatorID: op.ID, Name: op.Name, UID: op.UID}
	found := false
	var errs []error
	fail := func(sub int32, err error) {
		if errors.Is(err, opstate.ErrMalformed) && !errors.Is(err, ErrMalformed) {
			err = fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		errs = append(errs, fmt.Errorf("sinkstate: committer %s: subtask %d: %w", op.ID, sub, err))
	}
	unknown := false
	paimon := isPaimon(op)
	if paimon {
		c.Paimon = &PaimonCommitter{}
	}
	for _, sub := range op.SubtaskStates {
		h := sub.ManagedOperator
		if h == nil {
			continue
		}
		for _, s := range h.States {
			if paimon && s.Name == CommitUserStateName && len(s.Offsets) > 0 {
				if err := readCommitUsers(c.Paimon, h, s.Offsets, sub.Index, opts, budget); err != nil {
					fail(sub.Index, err)
				}
				continue
			}
			if s.Name != CommitterStateName {
				continue
			}
			found = true
			if len(s.Offsets) == 0 {
				continue
			}
			stream, err := opts.Stream(h.Stream)
			if err != nil {
				fail(sub.Index, err)
				continue
			}
			var elems []opstate.Element
			ls, err := opstate.Open(stream, budget, s.Offsets)
			if err == nil {
				elems, err = ls.Elements(CommitterStateName, "element", s.Offsets, sub.Index)
			}
			c.Elements += len(elems)
			if err != nil {
				fail(sub.Index, err)
			}
			for _, e := range elems {
				if paimon {
					pc, err := ParsePaimonCommittable(e.Version, e.Data)
					pc.Subtask = e.Subtask
					if err != nil {
						fail(e.Subtask, err)
						continue
					}
					c.Paimon.Committables = append(c.Paimon.Committables, pc)
					continue
				}
				if !looksCollector(e) {
					unknown = true
					c.Notes = append(c.Notes, fmt.Sprintf("subtask %d: element of serializer version %d (%d bytes) is no CommittableCollector (version 1 or 2 starting with magic %08x): a connector's own committer state, not decoded", e.Subtask, e.Version, len(e.Data), uint32(Magic)))
					continue
				}
				st, err := parseCollector(e.Version, e.Data)
				st.Subtask = e.Subtask
				if err != nil {
					fail(e.Subtask, err)
					continue
				}
				c.Subtasks = append(c.Subtasks, st)
			}
		}
	}
	if !found {
		return c, false
	}
	switch {
	case paimon:
		c.Format = FormatPaimon
	case unknown:
		c.Format = FormatUnknown
	case c.Elements > 0:
		c.Format = FormatCollector
	}
	c.Err = errors.Join(errs...)
	return c, true
}

// looksCollector reports an element of a CommittableCollectorSerializer
// version that starts with its magic number.
func looksCollector(e opstate.Element) bool {
	return (e.Version == 1 || e.Version == 2) && len(e.Data) >= 4 &&
		uint32(e.Data[0])<<24|uint32(e.Data[1])<<16|uint32(e.Data[2])<<8|uint32(e.Data[3]) == Magic
}

// ParseCollector decodes one committer subtask's element: a
// CommittableCollectorSerializer payload of the given version (the
// element's SimpleVersionedSerialization version).
func ParseCollector(version int32, data []byte) (Subtask, error) {
	return parseCollector(version, data)
}

func parseCollector(version int32, data []byte) (Subtask, error) {
	st := Subtask{Version: version}
	c := newCursor("CommittableCollector", version, data)
	if m := c.I32("magic number"); c.Err == nil && uint32(m) != Magic {
		c.Off = 0
		c.Fail("magic number %08x, want %08x", uint32(m), uint32(Magic))
	}
	switch version {
	case 1:
		// StreamingCommitterState: the committable serializer's version
		// and the committables, none with a checkpoint id.
		cv := c.I32("committable serializer version")
		n := c.Count("committables", 4)
		cp := Checkpoint{Legacy: true, Pending: n}
		for i := 0; i < n && c.Err == nil; i++ {
			cp.committable(cv, c.Bytes("committable"))
		}
		c.End()
		if c.Err == nil && n > 0 {
			st.Checkpoints = append(st.Checkpoints, cp)
		}
	case 2:
		sv := c.I32("checkpoint serializer version")
		if c.Err == nil && (sv < 0 || sv > 1) {
			c.Off -= 4
			c.Fail("checkpoint serializer version %d, want 0 or 1", sv)
		}
		n := c.Count("checkpoints", 4)
		for i := 0; i < n && c.Err == nil; i++ {
			start := c.Off
			b := c.Bytes("checkpoint")
			if c.Err != nil {
				break
			}
			cp, err := parseCheckpoint(sv, b)
			if err != nil {
				var fe *FormatError
				if errors.As(err, &fe) {
					fe.Offset += int64(start + 4)
				}
				return st, err
			}
			st.Checkpoints = append(st.Checkpoints, cp)
		}
		c.End()
	default:
		c.Off = 0
		c.Fail("version %d, want 1 or 2", version)
	}
	return st, c.Err
}

// parseCheckpoint reads one CheckpointCommittableManager: int64 id,
// int32 writer subtasks (version 1), then the subtask managers.
func parseCheckpoint(version int32, b []byte) (Checkpoint, error) {
	c := newCursor("CommittableCollector checkpoint", version, b)
	cp := Checkpoint{CheckpointID: c.I64("checkpoint id")}
	if c.Err == nil && (cp.CheckpointID < 0 || cp.CheckpointID > maxID && cp.CheckpointID != EndOfInput) {
		c.Off -= 8
		c.Fail("checkpoint id %d (want 0 to 2^62, or Long.MAX_VALUE for the end of input)", cp.CheckpointID)
	}
	if version >= 1 {
		cp.WriterSubtasks = c.I32("number of writer subtasks")
		if c.Err == nil && cp.WriterSubtasks < 0 {
			c.Off -= 4
			c.Fail("number of writer subtasks %d", cp.WriterSubtasks)
		}
	}
	sv := c.I32("subtask serializer version")
	if c.Err == nil && (sv < 0 || sv > 2) {
		c.Off -= 4
		c.Fail("subtask serializer version %d, want 0 to 2", sv)
	}
	n := c.Count("writer subtasks", 4)
	for i := 0; i < n && c.Err == nil; i++ {
		start := c.Off
		sb := c.Bytes("writer subtask")
		if c.Err != nil {
			break
		}
		if err := parseSubtask(sv, sb, &cp); err != nil {
			var fe *FormatError
			if errors.As(err, &fe) {
				fe.Offset += int64(start + 4)
			}
			return cp, err
		}
		cp.Writers++
	}
	c.End()
	return cp, c.Err
}

// parseSubtask reads one SubtaskCommittableManager into cp's counts:
// int32 subtask id (version 1 on), the requests, int32 committables,
// int32 drained (versions 0 and 1), int32 failed.
func parseSubtask(version int32, b []byte, cp *Checkpoint) error {
	c := newCursor("CommittableCollector writer subtask", version, b)
	if version >= 1 {
		if id := c.I32("subtask id"); c.Err == nil && id < 0 {
			c.Off -= 4
			c.Fail("subtask id %d", id)
		}
	}
	rv := c.I32("request serializer version")
	if c.Err == nil && rv != 0 {
		c.Off -= 4
		c.Fail("request serializer version %d, want 0", rv)
	}
	n := c.Count("requests", 4)
	for i := 0; i < n && c.Err == nil; i++ {
		start := c.Off
		rb := c.Bytes("request")
		if c.Err != nil {
			break
		}
		r := newCursor("CommittableCollector request", 0, rb)
		cv := r.I32("committable serializer version")
		cb := r.Bytes("committable")
		if retries := r.I32("number of retries"); r.Err == nil && retries < 0 {
			r.Off -= 4
			r.Fail("number of retries %d", retries)
		}
		state := r.I32("state")
		r.End()
		if r.Err == nil && (state < stateReceived || state > stateCommitted) {
			r.Off -= 4
			r.Fail("request state %d, want 0 to 3 (received, retry, failed, committed)", state)
		}
		if r.Err != nil {
			var fe *FormatError
			if errors.As(r.Err, &fe) {
				fe.Offset += int64(start + 4)
			}
			return r.Err
		}
		switch state {
		case stateReceived, stateRetry:
			cp.Pending++
			cp.committable(cv, cb)
		case stateFailed:
			cp.Failed++
		case stateCommitted:
			cp.Committed++
		}
	}
	if committables := c.I32("number of committables"); c.Err == nil && committables < 0 {
		c.Off -= 4
		c.Fail("number of committables %d", committables)
	}
	if version < 2 {
		d := c.I32("number drained")
		if c.Err == nil && d < 0 {
			c.Off -= 4
			c.Fail("number drained %d", d)
		}
		cp.Drained += int(d)
	}
	if f := c.I32("number failed"); c.Err == nil && f < 0 {
		c.Off -= 4
		c.Fail("number failed %d", f)
	}
	c.End()
	return c.Err
}
