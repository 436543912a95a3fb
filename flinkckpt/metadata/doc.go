// Package metadata reads Flink's _metadata files: the checkpoint and
// savepoint metadata of format versions 2 to 7 (Flink 1.3 to 2.x), with
// every state handle type, master states, channel state of unaligned
// checkpoints, and the v4+ checkpoint properties (savepoint or checkpoint,
// savepoint format, drained).
//
// It is pure: bytes in, model out. Finding snapshots in storage, mapping
// Flink paths to bucket keys and verifying the referenced files belong to
// package flinkckpt, as directory names do (a v2/v3 file records no
// properties; flinkckpt tells savepoints by their savepoint-… dir).
//
//	cp, err := metadata.Read(r, nil)
//	if err != nil { … }
//	fmt.Println(cp.Version, cp.CheckpointID, cp.Savepoint, len(cp.Operators))
//	for _, f := range cp.Files { fmt.Println(f.Path, f.Size) }
//
// The layouts are those of Flink's MetadataV2V3SerializerBase and its
// version subclasses; ../shared/FORMATS.md in the project documents them.
//
// # Real samples
//
// Versions 4 and 6 are checked against files real Flink wrote, read by
// Flink's own Checkpoints.loadCheckpointMetadata beside this parser
// (flinkckpt's TestRealFlink and TestRealFlink2x): Flink 1.20.3 writes
// version 4, Flink 2.2.0 version 6 — for every checkpoint and savepoint,
// aligned or not, so a 2.2 snapshot is never version 5. Version 6 records
// each operator's name and uid (as version 5 does; the uid is "" for an
// operator without one) and writes an unaligned checkpoint's channel state
// as merged handles (types 3 and 4: one file per subtask for all its
// input channels, one for all its result subpartitions), which Flink 2.2
// reads back as MergedInputChannelStateHandle and
// MergedResultSubpartitionStateHandle. Versions 2, 3, 5 and 7 have no real
// sample here.
//
// # Bounds
//
// [Read] reads at most [ReadOptions.MaxSize] bytes (default
// [DefaultMaxSize], 2 GiB: Flink sets no limit, and inline state makes
// files of hundreds of MB). Given the stream's size ([ReadOptions.Size]) it
// refuses an oversized file before reading and reads into one buffer of
// that size, which the returned model shares: a file is held once. Every
// count and length is checked against the bytes
// left before anything of that size is allocated, handle nesting is limited,
// and the Java serialization trailer is walked by its grammar only (nothing
// is deserialized). No input panics the parser: it is fuzzed
// (FuzzReadMetadata) with a seed corpus in testdata/fuzz.
//
// # Errors
//
// Every error about content wraps [ErrMalformed] and is a [*FormatError]
// carrying the byte offset and what was being read; a file over the limit
// wraps [ErrTooLarge]. Check both with errors.Is. Errors of the reader are
// returned wrapped as they are.
package metadata
