package sourcestate

import "github.com/resumekit/resumekit/flinkckpt/metadata/opstate"

// ReaderStateName is the name of the operator list state in which a FLIP-27
// SourceOperator keeps its reader's splits (SourceOperator.SPLITS_STATE_DESC).
const ReaderStateName = "SourceReaderState"

// RawSplit is one element of the SourceReaderState list of one subtask: a
// split as the source's split serializer wrote it, in
// SimpleVersionedSerialization framing (Version is the split serializer's
// version, Data its payload).
type RawSplit = opstate.Element

// readSplits reads the elements of a SourceReaderState list from one
// subtask's operator state stream (opstate.ReadListElements with the
// reader state's name); framing errors are this package's FormatErrors.
func readSplits(stream []byte, offsets []int64, subtask int32, maxSize int64) ([]RawSplit, error) {
	if len(offsets) == 0 {
		return nil, nil
	}
	s, err := opstate.Open(stream, (&Options{MaxStreamSize: maxSize}).NewBudget(), offsets)
	if err != nil {
		return nil, framing(err)
	}
	splits, err := s.Elements(ReaderStateName, "split", offsets, subtask)
	return splits, framing(err)
}

// framing turns the stream's framing errors (opstate.FormatError) into
// this package's, so that every content error wraps ErrMalformed.
func framing(err error) error {
	if fe, ok := err.(*opstate.FormatError); ok {
		return &FormatError{What: fe.What, Offset: fe.Offset, Msg: fe.Msg}
	}
	return err
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
