// Package resume decides where a restarted stream job should start reading, so
// that no input is lost and as little as possible is read twice, and explains
// the choice.
//
// Each source of restart positions — Flink checkpoints and savepoints
// (package flinkckpt), Paimon consumer progress (package paimon), Kafka group
// offsets or a timestamp (package kafkaoffset) — implements [Resolver]. A
// [Chain] asks every resolver concurrently, keeps the candidates that meet its
// [Policy], and picks the safest: the highest [Guarantee] first (no data loss,
// then operator state restored), then the newest [Candidate.At] (least input
// read again), then chain order. Every other candidate gets a one-line reason
// why it lost, and the [Decision] marshals to a stable JSON document
// (schema "resumekit.decision/v1") that deploy tools can store and read back.
//
//	chain := &resume.Chain{
//		Resolvers: []resume.Resolver{checkpoints, consumer, offsets},
//		Policy:    resume.Policy{MinGuarantee: resume.Replay, MaxAge: 24 * time.Hour},
//	}
//	d, err := chain.Resolve(ctx)
//	if d.Chosen != nil {
//		fmt.Println(d.Chosen.Position.Launch().Args) // e.g. [-s s3a://b/ck/<job>/chk-42]
//	}
//	fmt.Print(d.Explain())
//
// # The guarantee ladder
//
// From worst to best: [DataLoss] (input between the old job's progress and the
// position is never read), [Replay] (nothing skipped, some input read again),
// [ExactInput] (input resumes exactly after durably recorded progress, operator
// state starts empty), [ExactlyOnce] (operator state and input position restored
// together). The chain never chooses DataLoss unless the policy asks for it.
//
// # Warning codes
//
// Every [Warning] carries a code a tool can branch on; the text is for
// people and may change. Codes are namespaced by the package that emits
// them and are stable within v1 (never renamed, never reused).
//
//	code                                   emitted when
//	chain.newer-progress                   another resolver shows newer progress than the chosen position
//	chain.state-starts-empty               the chosen position does not restore operator state
//	flink.older-than-broken                newer snapshots completed but are broken: duplicates downstream
//	flink.older-than-pathless              newer snapshots have no known Flink path (pass the Flink root)
//	flink.drained-savepoint                the savepoint was taken by stop --drain
//	flink.verification-off                 referenced files were not checked (SkipVerify)
//	flink.unverified-references            some referenced files could not be mapped to keys and checked
//	flink.path-from-location               the -s path comes from the storage URL, not the snapshot
//	flink.keep-until-first-checkpoint      keep the snapshot until the new job's first checkpoint
//	flink.restarted-run                    a lower checkpoint id in a fixed job dir is newer than the chosen one
//	kafka.no-commits                       the group has no commits on the topics: every partition starts by time
//	kafka.uncommitted-partitions           partitions without a commit start at the log start offset
//	kafka.start-at-end                     partitions with no record at or after the time start at the end offset
//	kafka.partition-emptied                every record of a partition was deleted: loss cannot be ruled out
//	kafka.start-in-future                  the start time is after now
//	kafka.rewind-lag                       a start by time skips what a lagging job had not read
//	kafka.not-observed                     the old job was not observed for being stopped
//	kafka.several-topics                   specific-offsets options cover one topic only
//	paimon.rollback-suspected              snapshot nextSnapshot-1 was committed after the consumer file was written
//	paimon.expired-before-read             snapshots the consumer had not read expired: data loss
//	paimon.expiration-unreadable           consumer.expiration-time does not parse
//	paimon.consumer-expired                the consumer is idle longer than consumer.expiration-time
//	paimon.consumer-expiring               the consumer is idle close to consumer.expiration-time
//	paimon.ignore-progress                 consumer.ignore-progress is set: the launch pins scan.snapshot-id
//	paimon.no-state-restore                start without -s: restored state wins over the consumer file
//	paimon.start-at-next-commit            every snapshot is older than the start time
//	paimon.time-start-lag                  a start by time skips what a lagging job had not read
//	paimon.consumer-id-changes-operator    adding consumer-id changes the source operator
//	paimon.changelog-only-start            the start id exists only as a long-lived changelog
//	paimon.bind-consumer-first             create the consumer before starting the job
//	paimon.no-consumer-expiration          the table has no consumer.expiration-time
//	paimon.loss-by-tag                     a tag proves that records of expired ids are lost
//	paimon.possible-loss                   expired ids may have held records after the start time
//	paimon.consumer-file-unusable          a reset replaces an unreadable consumer file
//	paimon.consumer-recently-modified      the consumer file changed within the last minute: a job may be running
//
// Each code is also a constant of the emitting package
// (flinkckpt.WarnOlderThanBroken, kafkaoffset.WarnNotObserved, …);
// [Candidate.HasWarning] tests for one.
//
// # Errors
//
// [ErrNoPosition] (checked with errors.Is) is what a resolver returns when it
// honestly found nothing to offer, and what [Chain.Resolve]'s error wraps when
// nothing acceptable was offered. [Chain.Resolve] always returns a non-nil
// [*Decision]; its error is nil only when no resolver failed, and otherwise
// names every failure on one line each, in chain order, with errors.Is and
// errors.As reaching each cause. A Decision with failures may still have a
// chosen candidate (a partial result).
package resume
