package opstate

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/resumekit/resumekit/flinkckpt/internal/javaio"
)

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

// ParseStreamHeader reads the proxy header at the start of an operator
// state stream. Only the version and the compression flag are read: the
// state meta infos after them are not needed to read elements at their
// offsets.
func ParseStreamHeader(stream []byte) (StreamHeader, error) {
	c := &javaio.Cursor{What: "operator state stream header", Buf: stream, NewErr: formatError}
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

func formatError(what string, off int64, msg string) error {
	return &FormatError{What: what, Offset: off, Msg: msg}
}

// Stream is one subtask's operator state stream opened for reading list
// elements at the offsets its operator state handle records. A compressed
// stream is decoded once, front to back from the lowest offset declared to
// [Open], into one buffer, and only as far as the elements asked for reach;
// elements are slices of that buffer. A Stream is not safe for concurrent
// use.
type Stream struct {
	Header StreamHeader
	raw    []byte
	budget *Budget

	// compressed streams
	offs    []int64 // the declared offsets, sorted, unique
	pos     []int64 // pos[i]: where offs[i]'s chunk starts in decoded
	next    int     // offs[next] is the first declared offset not passed yet
	rp      int     // the raw offset of the next chunk to decode
	decoded []byte
	err     error // the walk's error, sticky
}

// Open parses the stream header and prepares reading elements at the
// offsets given (every list state's offsets that will be read: a
// compressed stream is decoded from the lowest on). Its decoded bytes
// count against b (nil: a budget of the defaults for this stream alone).
func Open(stream []byte, b *Budget, offsets ...[]int64) (*Stream, error) {
	h, err := ParseStreamHeader(stream)
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = (*Options)(nil).NewBudget()
	}
	s := &Stream{Header: h, raw: stream, budget: b}
	if !h.Compressed {
		return s, nil
	}
	n := 0
	for _, o := range offsets {
		n += len(o)
	}
	s.offs = make([]int64, 0, n)
	for _, o := range offsets {
		s.offs = append(s.offs, o...)
	}
	slices.Sort(s.offs)
	s.offs = slices.Compact(s.offs)
	s.pos = make([]int64, len(s.offs))
	if len(s.offs) > 0 {
		s.rp = int(max(min(s.offs[0], int64(len(stream))), 4))
	}
	return s, nil
}

// CheckOffsets refuses offsets of a list state that are not strictly
// increasing: Flink writes each element after the one before it, so
// an offset listed twice, or below the one before, is hostile or corrupt
// (and would make one element be read many times).
func CheckOffsets(name string, offsets []int64, subtask int32) error {
	for i := 1; i < len(offsets); i++ {
		if offsets[i] <= offsets[i-1] {
			return &FormatError{What: fmt.Sprintf("%s offsets of subtask %d", name, subtask), Offset: offsets[i],
				Msg: fmt.Sprintf("element %d's offset %d is not above element %d's %d (Flink writes strictly increasing offsets)", i, offsets[i], i-1, offsets[i-1])}
		}
	}
	return nil
}

// At returns n bytes of the stream's content at offset off: the stream's
// own bytes, or for a compressed stream the bytes decoded from the chunk
// that starts at off on. off must be one of the offsets declared to Open.
// The slice is shared: callers must not modify it. Errors are about what.
func (s *Stream) At(off, n int64, what string) ([]byte, error) {
	if off < 4 || off > int64(len(s.raw)) {
		return nil, &FormatError{What: what, Offset: off, Msg: fmt.Sprintf("offset %d outside the %d-byte state stream", off, len(s.raw))}
	}
	if n < 0 {
		return nil, &FormatError{What: what, Offset: off, Msg: fmt.Sprintf("negative length %d", n)}
	}
	if n > s.budget.stream {
		return nil, fmt.Errorf("%w: %s: %d bytes at offset %d, limit %d", ErrTooLarge, what, n, off, s.budget.stream)
	}
	if !s.Header.Compressed {
		if n > int64(len(s.raw))-off {
			return nil, &FormatError{What: what, Offset: off, Msg: fmt.Sprintf("%d bytes at offset %d of a %d-byte state stream", n, off, len(s.raw))}
		}
		return s.raw[off : off+n : off+n], nil
	}
	what += " (snappy-compressed)"
	i, ok := slices.BinarySearch(s.offs, off)
	if !ok {
		return nil, &FormatError{What: what, Offset: off, Msg: fmt.Sprintf("offset %d was not declared when the stream was opened", off)}
	}
	for s.next <= i && s.err == nil {
		s.step(what)
	}
	if s.next <= i {
		return nil, s.err
	}
	p := s.pos[i]
	for int64(len(s.decoded))-p < n && s.err == nil {
		s.step(what)
	}
	if have := int64(len(s.decoded)) - p; have < n {
		if s.err != nil && s.err != errEnd {
			return nil, s.err
		}
		return nil, &FormatError{What: what, Offset: off, Msg: fmt.Sprintf("the snappy chunks end after %d of %d bytes", have, n)}
	}
	return s.decoded[p : p+n : p+n], nil
}

// Element is one element of a list state whose elements are byte arrays
// each holding one SimpleVersionedSerialization: a source reader's split,
// a Sink V2 committer's collector.
type Element struct {
	// Subtask is the subtask whose state holds the element.
	Subtask int32
	// Version is the serializer's version.
	Version int32
	// Data is the serializer's payload.
	Data []byte
}

// Elements reads the elements of the operator list state named name at the
// offsets its handle records ([metadata.OperatorStateInfo].Offsets), for
// list states of byte arrays each holding one
// SimpleVersionedSerialization — a SourceOperator's "SourceReaderState"
// splits, a Sink V2 committer's "streaming_committer_raw_states" — so each
// element is int32 L, int32 version, int32 N, N bytes with L = N + 8
// (BytePrimitiveArraySerializer around SimpleVersionedSerialization).
// noun names the payload in errors ("split", "element"). Offsets that are
// not strictly increasing are refused. Errors name the state, the element
// and the subtask, and wrap [ErrMalformed] or [ErrTooLarge]; the elements
// read before an error are returned with it.
func (s *Stream) Elements(name, noun string, offsets []int64, subtask int32) ([]Element, error) {
	if err := CheckOffsets(name, offsets, subtask); err != nil {
		return nil, err
	}
	out := make([]Element, 0, min(len(offsets), len(s.raw)/12+1))
	for i, off := range offsets {
		if i%1024 == 1023 {
			if err := s.budget.Err(); err != nil {
				return out, err
			}
		}
		what := fmt.Sprintf("%s element %d of subtask %d", name, i, subtask)
		head, err := s.At(off, 4, what)
		if err != nil {
			return out, err
		}
		l := int64(int32(binary.BigEndian.Uint32(head)))
		if l < 8 {
			return out, &FormatError{What: what, Offset: off, Msg: fmt.Sprintf("element length %d, want at least 8", l)}
		}
		b, err := s.At(off, 4+l, what)
		if err != nil {
			return out, err
		}
		e, err := parseElement(what, noun, b, subtask)
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
	return out, nil
}

// ReadListElements opens stream (all of one subtask's operator state
// stream, from the proxy header on; for a segment of a merged file, the
// segment's bytes) and reads the elements of the list state named name at
// offsets: [Open] and [Stream.Elements], with maxSize bounding the stream's
// decoded bytes and one element (0: [DefaultMaxStreamSize]).
func ReadListElements(stream []byte, name string, offsets []int64, subtask int32, maxSize int64) ([]Element, error) {
	if len(offsets) == 0 {
		return nil, nil
	}
	s, err := Open(stream, (&Options{MaxStreamSize: maxSize}).NewBudget(), offsets)
	if err != nil {
		return nil, err
	}
	return s.Elements(name, "element", offsets, subtask)
}

// parseElement reads one element at the start of b.
func parseElement(what, noun string, b []byte, subtask int32) (Element, error) {
	c := &javaio.Cursor{What: what, Buf: b, NewErr: formatError}
	l := c.I32("length")
	if c.Err == nil && (l < 8 || int(l) > c.Left()) {
		c.Off = 0
		c.Fail("element length %d with %d bytes left (want 8 or more, within the stream)", l, c.Left())
	}
	e := Element{Subtask: subtask}
	e.Version = c.I32(noun + " serializer version")
	n := c.I32(noun + " length")
	if c.Err == nil && n != l-8 {
		c.Off -= 4
		c.Fail("%s length %d in an element of %d bytes (want %d): not SimpleVersionedSerialization framing", noun, n, l, l-8)
	}
	e.Data = c.Take(int(n), noun)
	return e, c.Err
}
