// Package paimon reads and writes the metadata of Apache Paimon tables on any
// gocloud blob bucket (local disk, S3, GCS, Azure, memory): consumer progress,
// snapshots and their hints, schema options and decoupled changelogs. It
// offers the reset_consumer procedure from Go ([Table.ResetConsumer],
// [Table.DeleteConsumer]) and a [Resolver] that tells a restarted streaming
// job where to start reading the table.
//
// A Flink job that reads a Paimon table with a consumer-id records its
// progress in <table>/consumer/consumer-<id>. When the job lost its savepoint,
// the consumer file says where to continue; when it never had a consumer id,
// the snapshot a streaming read by time would start from can be found and
// bound to a new consumer before the job starts:
//
//	table, err := paimon.OpenTable(ctx, "s3://warehouse/default.db/orders?region=eu-west-1", nil)
//	if err != nil { ... }
//	defer table.Close()
//	r, err := paimon.NewResolver(table, "orders-job", &paimon.Options{StartTime: lastKnownGood})
//	c, err := r.Resolve(ctx) // resume.Candidate: Replay from the consumer's nextSnapshot (ExactInput when it had read every snapshot), ...
//	fmt.Println(resume.HintOptions(c.Position.Launch().Options)) // 'consumer-id'='orders-job'
//
// # The main types
//
//   - [Table] ([OpenTable], [NewTable], [TableOptions]) reads a table's
//     consumers, snapshots, hints, schemas and changelogs; its doc says how
//     the formats are followed and how local tables are confined, and
//     TableOptions' says how to refuse S3 redirects.
//   - [Resolver] ([NewResolver], [Options]) grades the start of a
//     streaming read for one consumer id; its doc says what a grade assumes.
//   - [Position] is the chosen start as a resume.Position.
//   - [Table.ResetConsumer] ([ResetOptions], whose doc says how a reset is
//     kept safe) and [Table.DeleteConsumer] are the reset_consumer procedure.
//
// Drivers: [OpenTable] opens gocloud URLs; import the driver packages the
// URLs need (gocloud.dev/blob/s3blob, gcsblob, azureblob, memblob). file://
// URLs and plain paths always work.
//
// The option keys the resolver reads are the Opt* constants (schema.go,
// read in tableconfig.go); the file formats are in consumer.go,
// snapshot.go, hint.go, schema.go and changelog.go.
//
// # Errors
//
// Every error names the object key it concerns. The sentinels below are
// checked with errors.Is:
//
//   - [ErrSnapshotNotFound]: a snapshot (or the table's only snapshots) does not exist.
//   - [ErrConsumerNotFound]: the table has no consumer file for the id.
//   - [ErrCorrupt]: a metadata file is empty after retries, not valid JSON, misses a
//     required field, holds an impossible value, or is larger than
//     [TableOptions.MaxFileSize].
//   - [ErrInvalidID]: a consumer id or branch name that could escape its folder
//     or reads as another (contains "/", "\", "..", control, invisible or
//     look-alike characters), refused before any I/O.
//   - [ErrConsumerActive], [ErrUnexpectedPrevious]: ResetConsumer refused to
//     write (see [ResetOptions]).
//
// Ids above 2^62 (in snapshot names, hints, snapshot and consumer files) are
// malformed: [ErrCorrupt] naming the file, so that no scan can overflow.
//
// A cancelled or expired context stops every operation with an error that
// wraps ctx.Err(). [Resolver.Resolve] wraps [resume.ErrNoPosition] when the
// consumer does not exist and no start time was given.
package paimon
