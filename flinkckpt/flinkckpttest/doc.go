// Package flinkckpttest writes Flink checkpoint and savepoint trees for
// tests: byte-exact _metadata files (versions 2 to 7, every stream, keyed,
// operator and channel handle type), the state files they reference, and
// whole layouts — job dirs, chk-<n> dirs, shared/ files referenced by
// absolute Flink URIs (optionally entropy-injected, optionally in Flink's
// own Path.toString() spelling: file:/data/ck, hdfs:/flink/ck), savepoint
// dirs, and the incomplete and broken checkpoints that restarts must skip.
// A Checkpoint also sets what decides a restore: operator ids (snapshots of
// different applications), the state backend's handle family, in-flight
// data of an unaligned checkpoint, finished operators, a savepoint's
// post-checkpoint action, a _metadata id other than its dir's, and inline
// union list state of hundreds of MB, streamed to the bucket ([EncodeTo]).
// It also writes the source state inside them ([Source]: KafkaSource splits
// and enumerator states v0–v3, Paimon splits, enumerator and MonitorSource
// state, Flink CDC MySQL splits v1–v4 and enumerator), inline, in files, or
// Snappy-compressed, byte-exact to the connectors' serializers.
//
// It is resumekit's own encoder, built to the layout of Flink's
// MetadataV2V3SerializerBase and its V3–V7 successors; package flinkckpt's
// tests check that parsing what it writes gives back what was written.
// Restart tests of Flink deployments can use it to lay out the storage a
// resolver will see:
//
//	l := &flinkckpttest.Layout{Bucket: memblob.OpenBucket(nil), Prefix: "ck/", Root: "s3a://bucket/"}
//	l.Checkpoint(ctx, job, 41, nil)                                   // complete
//	l.Checkpoint(ctx, job, 42, &flinkckpttest.Checkpoint{Incomplete: true}) // no _metadata
//	r, _ := flinkckpt.NewResolver(l.Bucket, l.Prefix, &flinkckpt.Options{FlinkRoot: l.FlinkRoot()})
//	c, _ := r.Resolve(ctx) // chk-41
//
// # Errors
//
// Functions return the bucket's errors wrapped with the key; Encode fails on
// a version outside 2–7, an unknown handle type, an operator id that is not
// 32 hex characters, or a string longer than 65535 encoded bytes.
package flinkckpttest
