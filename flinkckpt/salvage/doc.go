// Package salvage turns the source positions inside a Flink checkpoint or
// savepoint into a stateless start of every source exactly where the
// snapshot had them: the snapshot whose state can no longer be restored
// (the job was refactored, its state no longer fits) still records where
// each source was, and a new job can continue there with empty operator
// state instead of guessing a start time or reading everything again.
//
// [Resolver] implements [resume.Resolver]. It takes the snapshot a
// flinkckpt resolver chooses (or a given one, or the one any resolver in
// [Options.From] names), decodes its source state with package
// [github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate], and
// offers one composite position for all the job's sources:
//
//   - KafkaSource: scan.startup.mode=specific-offsets and
//     scan.startup.specific-offsets=partition:0,offset:10;… (one topic; the
//     DataStream OffsetsInitializer.offsets form is in the reasons). Flink
//     SQL's Kafka table refuses the option when it reads several topics, so
//     a KafkaSource that read several gets no option: [resume.DataLoss],
//     since a job started with that launch starts wherever its table's
//     scan.startup.mode says, with the [WarnSeveralTopics] warning giving
//     the DataStream form and each topic's specific offsets;
//   - Paimon: scan.mode=from-snapshot and scan.snapshot-id=N, or with
//     [Options.PaimonConsumer] the reset_consumer call that binds a consumer
//     there;
//   - Flink CDC MySQL: scan.startup.mode=specific-offset and
//     scan.startup.specific-offset.file/.pos/.gtid-set (and skip counts).
//
// For example:
//
//	r, err := salvage.NewResolver(bucket, "ck/", &salvage.Options{
//		Flink:  &flinkckpt.Options{FlinkRoot: "s3a://bucket/ck"},
//		Kafka:  kafkaoffset.Log{Client: client}, // live checks
//		Paimon: table,                           // a *paimon.Table
//	})
//	c, err := r.Resolve(ctx) // exact-input, or data-loss naming what is gone
//
// The grade is [resume.ExactInput] (input continues exactly; operator
// state starts empty) — checked live when a checker is given: a Kafka
// offset below today's log start is [resume.DataLoss] with the record
// count per partition, a Paimon snapshot that expired is DataLoss with the
// expired range; Kafka partitions the old job had not started (markers)
// are resolved against the live log (earliest, latest) or the old job's
// group's commit ([Options.KafkaGroup], through [KafkaCommits]), or named;
// an earliest marker on a partition whose log start is above 0 is
// DataLoss (the old job read none of the records deleted below it), by
// the same rule kafkaoffset grades a partition without a commit by
// (livecheck.KafkaStart). A partly read Paimon
// snapshot and a MySQL CDC source still in its snapshot phase are
// [resume.Replay]. The grade is never better than the launch delivers: a
// KafkaSource of several topics, which no SQL option starts at its
// offsets, is [resume.DataLoss] (possible loss counts as loss).
//
// # Sinks: prepared transactions a stateless start never commits
//
// A two-phase Sink V2 sink (SupportsCommitter: Kafka's exactly-once sink,
// the FileSink, …) prepares its transactions at every checkpoint and
// commits them when the checkpoint completes; until then its committer
// operator ("Sink Committer: <sink uid>") keeps them (committables) in
// its state, so a snapshot normally holds those of its own checkpoint.
// Flink commits restored committables again when it restores the
// snapshot; a stateless start has no committer state and never commits
// them (the sink aborts what it does not know). So when the old job
// stopped between a checkpoint's _metadata and its commit (a crash), the
// output of those transactions is lost to a salvaged start. Resolve reads
// every committer's state (package
// [github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate]): a
// committer with pending committables — or whose state cannot be decoded,
// which may hold some — grades the candidate [resume.DataLoss] with the
// [WarnSinkTransactionsPending] warning naming the operator (by its uid
// when the new job's description knows it, Job.AddSinkUID), how many
// committables were prepared at which checkpoint, and how to check and
// override; the position's Sinks and Facts (a "loss" line) say the same.
// The old job usually did commit them (it commits as soon as the
// checkpoint completes): after checking the sink, set
// [Options.SinkCommitted] (resumectl --flink-sink-committed) and the grade
// stands, with [WarnSinkCommittedAsserted]. A committer with nothing
// pending changes nothing.
//
// # Why a leaf package with checker interfaces
//
// flinkckpt must not depend on kafkaoffset or paimon (each resolver
// package stands alone, and flinkckpt is the one that restores state), yet
// a salvaged position is only as good as what the live systems still hold.
// So this package — a leaf that imports flinkckpt — declares two small
// interfaces with plain-value signatures, [KafkaLog] (log start and end
// offsets of given partitions; optionally [KafkaCommits], a group's
// committed offsets) and [PaimonTable] (the readable snapshot range and
// the table's SQL name), and kafkaoffset (kafkaoffset.Log) and
// paimon (*paimon.Table) implement them without importing this package, as
// gocloud's drivers implement blob/driver. The wiring — which client,
// which table — is the caller's: resumectl does it from its flags, and a
// compatibility check that finds a snapshot's state would be dropped
// passes that snapshot through [Options.From] or [Options.Snapshot].
//
// # The new job
//
// With [Options.Job] — the job that will start, as flinkckpt.Options.Job
// describes it — a snapshot is salvaged only when the new job cannot
// restore its state
// ([github.com/resumekit/resumekit/flinkckpt/jobgraph.CheckCompat] finds
// state it would drop, or a parallelism it refuses). Put both resolvers with the same job in one
// chain and a refactored job gets the right start automatically: the
// flinkckpt resolver restores the newest snapshot the job fits
// (exactly-once); when none fits, the salvage candidate starts every
// source where the newest snapshot had it (exact-input), instead of a
// guessed time or a full re-read:
//
//	job := jobgraph.JobFromUIDs("orders-kafka-source") // or JobFromPlan
//	ck, _ := flinkckpt.NewResolver(bucket, "ck/", &flinkckpt.Options{Job: job})
//	sv, _ := salvage.NewResolver(bucket, "ck/", &salvage.Options{Job: job, Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: client}}})
//	d, err := (&resume.Chain{Resolvers: []resume.Resolver{ck, sv}}).Resolve(ctx)
//
// resumectl resolve does this whenever the new job is given (--flink-plan,
// --flink-uid, …) with a Flink location.
//
// # Cost
//
// With From: what the flinkckpt resolver costs without verification (its
// listings and _metadata reads). Then one _metadata read, one read per
// source subtask whose reader state is in a file and per committer
// subtask whose state is, and with checkers two
// ListOffsets requests per broker per Kafka topic and the Paimon hint and
// listing reads of SnapshotRange.
//
// # Errors
//
// Resolve returns an error wrapping [resume.ErrNoPosition] when the
// snapshot holds no source state, a source resumekit does not know (the
// message names its operator id and split serializer version), or a
// source without a position (a Paimon source that had planned nothing).
// Errors of the snapshot's storage, of the source state's decoding
// (sourcestate.ErrMalformed, sourcestate.ErrNotRead …) and of the live
// checks (a Kafka offset above the end offset, a Paimon snapshot above the
// latest: recreated?) are returned wrapped; a cancelled context gives an
// error wrapping ctx.Err().
package salvage
