package sinkstate

import (
	"fmt"
	"math"
	"slices"
	"unicode/utf16"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/opstate"
)

// CommitUserStateName is the operator union list state in which Paimon's
// writer and committer operators keep the job's commit user
// (StateUtils.getSingleValueFromState): one Java String (Flink's
// StringSerializer) per subtask, all equal. An operator holding it beside
// CommitterStateName is Paimon's committer ([FormatPaimon]).
const CommitUserStateName = "commit_user_state"

// FormatPaimon is Paimon's own committer (paimon-flink's CommitterOperator
// with a RestoreCommittableStateManager): CommitterStateName holds one
// ManifestCommittable (or, for a multi-table CDC sink, one
// WrappedManifestCommittable) per checkpoint not committed when the
// snapshot was taken, and CommitUserStateName the commit user.
const FormatPaimon Format = "paimon"

// Versions of Paimon's committable serializers.
const (
	// paimonWrappedVersion is WrappedManifestCommittableSerializer's only
	// version (multi-table sinks).
	paimonWrappedVersion = 1
	// paimonMinVersion and paimonMaxVersion bound
	// ManifestCommittableSerializer's versions: 2 (Paimon 0.4–0.8), 3
	// (0.8–1.1), 4 (1.2 on: properties). Paimon refuses any above 4.
	paimonMinVersion = 2
	paimonMaxVersion = 4
)

// PaimonCommitter is what Paimon's committer operator held.
type PaimonCommitter struct {
	// CommitUser is the commit user its snapshots carry ("commitUser" in
	// the table's snapshot files); "" when the state holds none.
	CommitUser string
	// Committables are the committables held, every subtask's, in state
	// order (Paimon sorts them by identifier).
	Committables []PaimonCommittable
}

// Identifiers returns the committables' distinct identifiers (checkpoint
// ids), ascending.
func (p *PaimonCommitter) Identifiers() []int64 {
	var ids []int64
	for _, c := range p.Committables {
		ids = append(ids, c.Identifier)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// PaimonCommittable is one ManifestCommittable (the files one checkpoint
// wrote, to be committed as one snapshot) or one WrappedManifestCommittable
// (a multi-table sink's, one ManifestCommittable per table).
type PaimonCommittable struct {
	// Subtask is the committer subtask whose state holds it.
	Subtask int32
	// Version is the serializer version: 2 to 4 (ManifestCommittable), or
	// 1 for a WrappedManifestCommittable (Tables set).
	Version int32
	// Identifier is the checkpoint id the committable was prepared at (a
	// snapshot's "commitIdentifier" once committed); EndOfInput for a
	// bounded job's last one.
	Identifier int64
	// Watermark is the committable's watermark (HasWatermark false when
	// null).
	Watermark    int64
	HasWatermark bool
	// LogOffsets and Properties count the committable's log offsets and
	// properties (version 4).
	LogOffsets, Properties int
	// MessageVersion is CommitMessageSerializer's version and Messages the
	// number of commit messages (one per partition and bucket written);
	// the messages themselves are not decoded.
	MessageVersion int32
	Messages       int
	// Tables are a WrappedManifestCommittable's tables ("db.table"), each
	// with its ManifestCommittable's identifier.
	Tables []PaimonTableCommittable
}

// PaimonTableCommittable is one table's part of a multi-table committable.
type PaimonTableCommittable struct {
	Table      string
	Identifier int64
}

// ParsePaimonCommittable decodes one element of Paimon's committer state:
// a ManifestCommittableSerializer payload of version 2 to 4, or a
// WrappedManifestCommittableSerializer payload of version 1 (the element's
// SimpleVersionedSerialization version).
func ParsePaimonCommittable(version int32, data []byte) (PaimonCommittable, error) {
	if version == paimonWrappedVersion {
		return parseWrapped(data)
	}
	return parseManifestCommittable(version, data)
}

func parseManifestCommittable(version int32, data []byte) (PaimonCommittable, error) {
	pc := PaimonCommittable{Version: version}
	c := newCursor("Paimon ManifestCommittable", version, data)
	if version < paimonMinVersion || version > paimonMaxVersion {
		c.Fail("version %d, want %d to %d (or %d, a WrappedManifestCommittable)", version, paimonMinVersion, paimonMaxVersion, paimonWrappedVersion)
		return pc, c.Err
	}
	pc.Identifier = c.I64("identifier")
	if c.Err == nil && (pc.Identifier < 0 || pc.Identifier > maxID && pc.Identifier != EndOfInput) {
		c.Off -= 8
		c.Fail("identifier %d (want a checkpoint id, 0 to 2^62, or Long.MAX_VALUE for the end of input)", pc.Identifier)
	}
	null := c.Boolean("watermark is null")
	if c.Err == nil && !null {
		pc.Watermark, pc.HasWatermark = c.I64("watermark"), true
	}
	n := c.Count("log offsets", 12)
	for i := 0; i < n && c.Err == nil; i++ {
		c.I32("log offset bucket")
		c.I64("log offset")
	}
	pc.LogOffsets = n
	if version == paimonMaxVersion {
		n := c.Count("properties", 4)
		for i := 0; i < n && c.Err == nil; i++ {
			c.UTF("property key")
			c.UTF("property value")
		}
		pc.Properties = n
	}
	pc.MessageVersion = c.I32("commit message serializer version")
	if c.Err == nil && pc.MessageVersion < 1 {
		c.Off -= 4
		c.Fail("commit message serializer version %d", pc.MessageVersion)
	}
	// A commit message is at least a partition (int32 length), a bucket
	// and a total bucket count: 12 bytes.
	pc.Messages = c.Count("commit messages", 12)
	if c.Err == nil && pc.Messages > 0 && c.Left() == 0 {
		c.Fail("%d commit messages and no bytes after the count", pc.Messages)
	}
	if c.Err == nil && pc.Messages == 0 {
		c.End()
	}
	return pc, c.Err
}

func parseWrapped(data []byte) (PaimonCommittable, error) {
	pc := PaimonCommittable{Version: paimonWrappedVersion}
	c := newCursor("Paimon WrappedManifestCommittable", paimonWrappedVersion, data)
	pc.Identifier = c.I64("checkpoint id")
	if c.Err == nil && (pc.Identifier < 0 || pc.Identifier > maxID && pc.Identifier != EndOfInput) {
		c.Off -= 8
		c.Fail("checkpoint id %d (want 0 to 2^62, or Long.MAX_VALUE for the end of input)", pc.Identifier)
	}
	pc.Watermark, pc.HasWatermark = c.I64("watermark"), true
	n := c.Count("tables", 8)
	for i := 0; i < n && c.Err == nil; i++ {
		name := c.Bytes("table name")
		start := c.Off
		value := c.Bytes("table committable")
		if c.Err != nil {
			break
		}
		// The table's ManifestCommittable is written by the current
		// serializer, its identifier first.
		if len(value) < 8 {
			c.Off = start
			c.Fail("table committable of %d bytes, want at least 8 (its identifier)", len(value))
			break
		}
		id := int64(uint64(value[0])<<56 | uint64(value[1])<<48 | uint64(value[2])<<40 | uint64(value[3])<<32 |
			uint64(value[4])<<24 | uint64(value[5])<<16 | uint64(value[6])<<8 | uint64(value[7]))
		pc.Tables = append(pc.Tables, PaimonTableCommittable{Table: string(name), Identifier: id})
	}
	c.End()
	return pc, c.Err
}

// maxStringValue bounds a commit user's length (UTF-16 units): Paimon's are
// a UUID, with an optional prefix.
const maxStringValue = 1 << 16

// readCommitUser reads the Java String (Flink's StringValue encoding) at
// offset off of a subtask's operator state stream, asking the stream for
// only as many bytes as the string needs so far.
func readCommitUser(stream *opstate.Stream, off int64, subtask int32) (string, error) {
	what := fmt.Sprintf("%s element of subtask %d", CommitUserStateName, subtask)
	n := int64(1)
	for {
		b, err := stream.At(off, n, what)
		if err != nil {
			return "", err
		}
		s, null, more, err := StringValue(b)
		switch {
		case err != nil:
			return "", fmt.Errorf("%s at stream offset %d: %w", what, off, err)
		case more > 0:
			n += int64(more)
		case null:
			return "", fmt.Errorf("%w: %s at stream offset %d: a null string", ErrMalformed, what, off)
		default:
			return s, nil
		}
	}
}

// StringValue decodes a Java String as Flink's StringSerializer writes it
// (StringValue.writeString) at the start of b: its length plus one as a
// 7-bit varint (0 is null), then each UTF-16 unit as a varint. more > 0
// says b ends before the string does and at least that many more bytes are
// needed; bytes after the string are not looked at. Errors wrap
// ErrMalformed.
func StringValue(b []byte) (s string, null bool, more int, err error) {
	c := newCursor("Java String (StringValue)", 0, b)
	c.HasVersion = false
	off := 0
	varint := func(field string, max uint64) (uint64, int, bool) {
		var v uint64
		for shift := 0; ; shift += 7 {
			if off >= len(b) {
				return 0, 1, false
			}
			x := b[off]
			off++
			v |= uint64(x&0x7f) << shift
			if v > max || shift > 28 {
				c.Off = off - 1
				c.Fail("%s: varint above %d", field, max)
				return 0, 0, false
			}
			if x < 0x80 {
				return v, 0, true
			}
		}
	}
	l, more, ok := varint("length", maxStringValue+1)
	if !ok {
		return "", false, more, c.Err
	}
	if l == 0 {
		return "", true, 0, nil
	}
	n := int(l - 1)
	units := make([]uint16, 0, min(n, len(b)))
	for i := 0; i < n; i++ {
		u, more, ok := varint("UTF-16 unit", math.MaxUint16)
		if !ok {
			if c.Err != nil {
				return "", false, 0, c.Err
			}
			return "", false, more + (n - i - 1), nil
		}
		units = append(units, uint16(u))
	}
	return string(utf16.Decode(units)), false, 0, nil
}

// isPaimon reports an operator whose state holds both CommitterStateName
// and CommitUserStateName: Paimon's committer (Paimon's writers hold the
// commit user only, Flink's Sink V2 committers the committables only).
func isPaimon(op *metadata.Operator) bool {
	committer, user := false, false
	for _, sub := range op.SubtaskStates {
		if sub.ManagedOperator == nil {
			continue
		}
		for _, s := range sub.ManagedOperator.States {
			committer = committer || s.Name == CommitterStateName
			user = user || s.Name == CommitUserStateName
		}
	}
	return committer && user
}

// readCommitUsers reads one subtask's commit_user_state elements into p:
// every element must name the same user (Paimon fails a restore otherwise).
func readCommitUsers(p *PaimonCommitter, h *metadata.OperatorHandle, offsets []int64, subtask int32, opts *Options, budget *opstate.Budget) error {
	raw, err := opts.Stream(h.Stream)
	if err != nil {
		return err
	}
	if err := opstate.CheckOffsets(CommitUserStateName, offsets, subtask); err != nil {
		return err
	}
	stream, err := opstate.Open(raw, budget, offsets)
	if err != nil {
		return err
	}
	for _, off := range offsets {
		u, err := readCommitUser(stream, off, subtask)
		if err != nil {
			return err
		}
		switch {
		case p.CommitUser == "":
			p.CommitUser = u
		case p.CommitUser != u:
			return fmt.Errorf("%w: %s names commit users %q and %q (Paimon refuses to restore a committer whose commit users differ)", ErrMalformed, CommitUserStateName, p.CommitUser, u)
		}
	}
	return nil
}
