// Package opstate reads Flink's operator state stream: what an operator
// state backend (OperatorBackendSerializationProxy) writes for one subtask —
// the proxy header, the list states' elements at the offsets the operator
// state handle records ([metadata.OperatorStateInfo].Offsets), and, with
// execution.checkpointing.snapshot-compression, the Snappy framing around
// them (blocks decoded by github.com/klauspost/compress/snappy). It is the
// one reader of that stream: package sourcestate reads a source's
// "SourceReaderState" splits through it, package sinkstate a committer's
// "streaming_committer_raw_states"; neither of those imports the other.
//
// It is pure, like package metadata: bytes in, elements out. State held in
// files is read by the caller through [Options.ReadStream] ([Options.Stream]
// says which handle types that is).
//
// # Bounded cost
//
// A hostile handle cannot make one element cost more than once: offsets of
// a list state must be strictly increasing ([CheckOffsets]; Flink writes
// each element after the one before), a compressed stream is decoded once,
// front to back from its lowest offset and only as far as the elements
// read reach, into one buffer that elements are slices of, and the decoded
// bytes are bounded per stream ([Options.MaxStreamSize]) and per snapshot
// ([Options.MaxDecodedSize], one [Budget] shared by a snapshot's streams),
// counted before they are allocated. A [Budget] made with a Context stops
// the loops when it ends.
//
// # Errors
//
// Errors about content wrap [ErrMalformed] and are a [*FormatError] naming
// the structure, the byte offset and the problem; sizes over a limit wrap
// [ErrTooLarge]; state in a file that was not read wraps [ErrNotRead].
// The reader is fuzzed (FuzzElements) with a seed corpus in testdata/fuzz.
package opstate
