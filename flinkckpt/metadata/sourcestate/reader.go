package sourcestate

import (
	"encoding/binary"
	"fmt"
)

// ReaderStateName is the name of the operator list state in which a FLIP-27
// SourceOperator keeps its reader's splits (SourceOperator.SPLITS_STATE_DESC).
const ReaderStateName = "SourceReaderState"

// maxProxyVersion is the newest OperatorBackendSerializationProxy version
// known (Flink 1.20 writes 6); a stream of a newer version is reported, not
// guessed at.
const maxProxyVersion = 6

// StreamHeader is the start of an operator state stream: the
// OperatorBackendSerializationProxy's version and, from version 6 on, whether
// the states after it are Snappy-compressed.
type StreamHeader struct {
	Version    int32
	Compressed bool
}

// parseStreamHeader reads the proxy header at the start of an operator state
// stream. Only the version and the compression flag are read: the state
// meta infos after them are not needed to read elements at their offsets.
func parseStreamHeader(stream []byte) (StreamHeader, error) {
	c := newCursor("operator state stream header", stream)
	h := StreamHeader{Version: c.I32("proxy version")}
	if c.Err == nil && (h.Version < 1 || h.Version > maxProxyVersion) {
		c.Off = 0
		c.Fail("operator state serialization proxy version %d, want 1 to %d", h.Version, maxProxyVersion)
	}
	if h.Version >= 6 {
		h.Compressed = c.Boolean("compression flag")
	}
	return h, c.Err
}

// RawSplit is one element of the SourceReaderState list of one subtask: a
// split as the source's split serializer wrote it, in
// SimpleVersionedSerialization framing.
type RawSplit struct {
	// Subtask is the subtask whose state holds the split.
	Subtask int32
	// Version is the split serializer's version.
	Version int32
	// Data is the split serializer's payload.
	Data []byte
}

// readSplits reads the elements of a SourceReaderState list from one
// subtask's operator state stream: [ReadListElements] with the
// reader state's name.
func readSplits(stream []byte, offsets []int64, subtask int32, maxSize int64) ([]RawSplit, error) {
	return ReadListElements(stream, ReaderStateName, offsets, subtask, maxSize)
}

// ReadListElements reads the elements of the operator list state named
// name from one subtask's operator state stream (all of its bytes, from the
// proxy header on; for a segment of a merged file, the segment's bytes) at
// the offsets the operator state handle records
// ([metadata.OperatorStateInfo].Offsets). It is for list states of byte
// arrays each holding one SimpleVersionedSerialization — a
// SourceOperator's "SourceReaderState" splits, a Sink V2 committer's
// "streaming_committer_raw_states" — so each element is int32 L,
// int32 version, int32 N, N bytes with L = N + 8
// (BytePrimitiveArraySerializer around SimpleVersionedSerialization); a
// RawSplit holds each element's version and payload. Compressed streams are
// decoded. maxSize bounds an element (0: [DefaultMaxStreamSize]). Errors
// name the state, the element and the subtask, and wrap [ErrMalformed] or
// [ErrTooLarge].
func ReadListElements(stream []byte, name string, offsets []int64, subtask int32, maxSize int64) ([]RawSplit, error) {
	if len(offsets) == 0 {
		return nil, nil
	}
	h, err := parseStreamHeader(stream)
	if err != nil {
		return nil, err
	}
	if maxSize <= 0 {
		maxSize = DefaultMaxStreamSize
	}
	noun := "split"
	if name != ReaderStateName {
		noun = "element"
	}
	out := make([]RawSplit, 0, min(len(offsets), len(stream)/12+1))
	for i, off := range offsets {
		what := fmt.Sprintf("%s element %d of subtask %d", name, i, subtask)
		head, err := at(stream, h, off, 4, maxSize, what)
		if err != nil {
			return out, err
		}
		l := int64(int32(binary.BigEndian.Uint32(head)))
		if l < 8 {
			return out, &FormatError{What: what, Offset: off, Msg: fmt.Sprintf("element length %d, want at least 8", l)}
		}
		elem, err := at(stream, h, off, 4+l, maxSize, what)
		if err != nil {
			return out, err
		}
		s, err := parseElement(what, noun, elem, subtask)
		if err != nil {
			return out, err
		}
		out = append(out, s)
	}
	return out, nil
}

// at returns n bytes of the state stream's content at offset off: the
// stream's own bytes, or for a compressed stream the Snappy chunks from off
// on, decoded. Errors are about what.
func at(stream []byte, h StreamHeader, off, n, maxSize int64, what string) ([]byte, error) {
	if off < 4 || off > int64(len(stream)) {
		return nil, &FormatError{What: what, Offset: off, Msg: fmt.Sprintf("offset %d outside the %d-byte state stream", off, len(stream))}
	}
	if n > maxSize {
		return nil, fmt.Errorf("%w: %s: %d bytes at offset %d, limit %d", ErrTooLarge, what, n, off, maxSize)
	}
	if !h.Compressed {
		if n > int64(len(stream))-off {
			return nil, &FormatError{What: what, Offset: off, Msg: fmt.Sprintf("%d bytes at offset %d of a %d-byte state stream", n, off, len(stream))}
		}
		return stream[off : off+n], nil
	}
	return snappyFrames(stream, int(off), n, what+" (snappy-compressed)")
}

// parseElement reads one element at the start of b (bytes after it belong
// to other elements).
func parseElement(what, noun string, b []byte, subtask int32) (RawSplit, error) {
	c := newCursor(what, b)
	l := c.I32("length")
	if c.Err == nil && (l < 8 || int(l) > c.Left()) {
		c.Off = 0
		c.Fail("element length %d with %d bytes left (want 8 or more, within the stream)", l, c.Left())
	}
	s := RawSplit{Subtask: subtask}
	s.Version = c.I32(noun + " serializer version")
	n := c.I32(noun + " length")
	if c.Err == nil && n != l-8 {
		c.Off -= 4
		c.Fail("%s length %d in an element of %d bytes (want %d): not SimpleVersionedSerialization framing", noun, n, l, l-8)
	}
	s.Data = c.Take(int(n), noun)
	return s, c.Err
}

// Coordinator is the operator coordinator state of a FLIP-27 source: the
// split enumerator's checkpoint in SourceCoordinator's framing.
type Coordinator struct {
	// SerdeVersion is SourceCoordinatorSerdeUtils' version: 0 (Flink
	// 1.11–1.12, trailing bytes follow) or 1 (1.13 on).
	SerdeVersion int32
	// Version is the enumerator checkpoint serializer's version.
	Version int32
	// Data is the enumerator checkpoint.
	Data []byte
}

// parseCoordinator reads a coordinator state as SourceCoordinator writes
// it: int32 serde version (0 or 1), int32 enumerator serializer version,
// int32 N, N bytes. Version 1 allows no trailing bytes; version 0's trailer
// (the coordinator context's split assignments) is ignored, as Flink
// 1.13+ does.
func parseCoordinator(data []byte) (*Coordinator, error) {
	c := newCursor("source coordinator state", data)
	co := &Coordinator{SerdeVersion: c.I32("serde version")}
	if c.Err == nil && co.SerdeVersion != 0 && co.SerdeVersion != 1 {
		c.Off = 0
		c.Fail("serde version %d, want 0 or 1: not a FLIP-27 source coordinator", co.SerdeVersion)
	}
	co.Version = c.I32("enumerator serializer version")
	co.Data = c.Bytes("enumerator checkpoint")
	if co.SerdeVersion == 1 {
		c.End()
	}
	if c.Err != nil {
		return nil, c.Err
	}
	return co, nil
}
