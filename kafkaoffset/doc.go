// Package kafkaoffset finds where a job reading Kafka should start after a
// restart without state: from the offsets a consumer group committed (what
// Flink's KafkaSource commits after each completed checkpoint), from offsets
// looked up by a time shortly before the old job stopped, or both (the commit
// where a partition has one, the time where it has none). Every choice is
// checked against the partition's log start and end offsets, so a commit that
// retention or DeleteRecords overtook, a time older than the retained data,
// partitions added after the commit, or a topic that was recreated do not go
// unnoticed.
//
// A [Resolver] implements [resume.Resolver] with franz-go (kgo, kadm); the
// caller owns the *kgo.Client:
//
//	r, err := kafkaoffset.NewResolver(client, []string{"orders"}, &kafkaoffset.Options{
//		Group:         "orders-job",                     // KafkaSource's group.id
//		At:            time.Now().Add(-15 * time.Minute), // for partitions without a commit
//		ObserveWindow: 10 * time.Second,                 // fail if the old job still commits
//	})
//	c, err := r.Resolve(ctx)
//	fmt.Println(c.Position.Launch().Options)
//	// map[scan.startup.mode:specific-offsets scan.startup.specific-offsets:partition:0,offset:42;partition:1,offset:300]
//
// Committed offsets are [resume.Replay], never exact: KafkaSource subtasks
// commit asynchronously and only log failed commits, so partitions can sit at
// different checkpoints. Starting by time is Replay too, with the warning that
// a job lagging more than the rewind skipped records. A commit below the log
// start, or a time older than the retained data (one record left after it,
// or none at all), is [resume.DataLoss], naming the partitions and the records
// lost: possible loss counts as loss. So is a time that lands on the first
// retained record when that record is stamped exactly at the time and
// records below it were deleted: the deleted records can share that
// millisecond (under LogAppendTime a batch's records share one timestamp,
// and DeleteRecords cuts inside batches), and nothing left in the log tells
// whether any did. Only a first record at or after the time above the log
// start (an older record is still retained below it), or a log nothing was
// deleted from, rules the loss out. The [Position] lists every partition
// with its start, end, last stable offset, commit, chosen offset and reason,
// and launches with scan.startup.mode=specific-offsets (one topic) or, by
// time without a group, timestamp — only when Flink's own lookup at the
// job's start lands on the chosen offsets (not after a start was lowered to
// the last stable offset); its JSON is ready for DataStream
// OffsetsInitializer.offsets.
//
// # What the grade assumes, and checks
//
//   - Transactions. The new job is assumed to read read_committed
//     ([Options.IsolationLevel]): every start above a partition's last stable
//     offset (the first offset of the oldest open transaction) is lowered to
//     it, since a read_committed reader started above an open transaction
//     never reads the transaction's records below its start once it commits.
//     Flink's own timestamp initializer has this blind spot: a position with
//     a lowered start launches with specific offsets, never by time.
//   - Where commits come from. Commits are a replay point only if the old job
//     committed when its checkpoints completed ([CommitOnCheckpoint], the
//     default, said in a warning). With enable.auto.commit the consumer
//     commits its fetch position, ahead of records in flight:
//     [CommitAuto] and [CommitUnknown] grade a start at a commit as data loss.
//   - The commit times. With a group, the group's commit records are read
//     from __consumer_offsets when the client may read it: the last commit
//     time is said, and each commit's time is the candidate's At (else the
//     time of the record before the commit; a time after now counts as now,
//     with a warning). The records are read read_committed: an open
//     transaction in that partition (another application's exactly-once
//     producer committing its offsets) ends the reading at its first
//     record, and a commit above it counts as unread, said in the reason.
//     A group with members fails with a [*GroupMembersError]:
//     KafkaSource never joins its group, so members mean another application
//     shares the group id.
//   - The observation window ([Options.ObserveWindow]) proves nothing about a
//     job whose checkpoint interval is longer than the window; a commit record
//     inside the window fails even when the offsets did not move (an idle job
//     re-commits them), and when every commit equals its end offset the
//     candidate warns that a running idle job cannot be told apart.
//   - Compacted topics. One DescribeConfigs request reads cleanup.policy,
//     delete.retention.ms and message.timestamp.type of every topic; a start
//     on a compacted topic further behind than delete.retention.ms may miss
//     deletes whose tombstones were compacted away: a warning, data loss under
//     [Options.Strict]. A LogAppendTime topic's record times are the broker's.
//
// [ResetGroup] commits a position's offsets to a group, the
// kafka-consumer-groups --reset-offsets workflow: a dry run unless asked,
// offsets clamped into [start, end], refused while the group has members.
//
// # Cost
//
// One Metadata request (the topics and __consumer_offsets), one
// DescribeGroups and one OffsetFetch to the group coordinator (two
// OffsetFetch with an observation window), one DescribeConfigs, then one
// ListOffsets request per broker for end offsets, one for last stable
// offsets (read_committed only), one for log start offsets and, with a time,
// one by time: at most four per broker whatever the partition count (three
// under read_uncommitted), retries of failed partitions aside; the group's
// __consumer_offsets partition rides along in the end and log start
// requests. Then at most 8 Fetch requests of at most 1 MiB to the leader of
// that partition for the commit records (none when it is not readable; skip
// with Options.SkipCommitTimes), and one Fetch per broker to read the record
// before each commit whose time was not read (skip with
// Options.SkipRecordTimes).
//
// # Errors
//
// [NewResolver] fails before any I/O on bad options. Resolve and Offsets
// return:
//   - an error wrapping [resume.ErrNoPosition] when only a group was given and
//     it has no commit on any partition of the topics (an unknown group has
//     none);
//   - [ErrStillCommitting] when the group's offsets moved during the
//     observation window, a commit record falls inside it, or the newest
//     commit records hold other offsets than OffsetFetch answered;
//   - a [*GroupMembersError] (errors.Is [ErrGroupNotEmpty]) when the group
//     has members;
//   - a [*PartitionErrors] when some partitions could not be looked up or
//     have no valid start, with one error per partition naming it: a commit
//     above the end offset wraps [ErrCommitAboveEnd]; broker errors wrap their
//     *kerr.Error (errors.Is(err, kerr.LeaderNotAvailable)); requests that
//     failed as a whole for a broker are reachable as a [*kadm.ShardErrors]
//     with errors.As. Retriable partition errors are retried first
//     (Options.Retries).
//   - an error naming the topic and wrapping kerr.UnknownTopicOrPartition for
//     a missing topic;
//   - errors wrapping ctx.Err() once ctx is done.
//
// Offsets returns the partitions it could look up together with its error.
// Reading the commit records or the topics' configuration never fails a
// lookup: the candidate says what could not be read and what it assumed.
// [ResetGroup] returns a [*GroupMembersError] when the group has members, and a
// [*PartitionErrors] (having committed nothing) when a partition could not
// be listed.
package kafkaoffset
