// Package kafkaoffset finds where a job reading Kafka should start after a
// restart without state: from the offsets a consumer group committed (what
// Flink's KafkaSource commits after each completed checkpoint), from offsets
// looked up by a time shortly before the old job stopped, or both (the commit
// where a partition has one, the time where it has none). Every choice is
// checked against the partition's log start and end offsets, so a commit that
// retention or DeleteRecords overtook, a time older than the retained data,
// partitions added after the commit, a partition without a commit whose
// records were deleted (the old job may never have read them: data loss,
// [WarnUncommittedTruncated]), or a topic that was recreated do not go
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
// # The main types
//
//   - [Resolver] ([NewResolver], [Options]) looks the offsets up and grades
//     them; its doc says how a start is graded, what the grade assumes and
//     checks (transactions, where commits come from, commit times, the
//     observation window, compacted topics) and what a resolve costs in
//     requests. [Resolver.Offsets] returns the per-partition findings
//     ([PartitionOffsets], whose From is an [OffsetSource]).
//   - [Position] is the chosen start as a resume.Position: every partition
//     with its offsets and reason, launched with a [StartupMode];
//     [FormatSpecificOffsets] and [ParseSpecificOffsets] write and read
//     scan.startup.specific-offsets.
//   - [ResetGroup] commits a position's offsets to a group, the
//     kafka-consumer-groups --reset-offsets workflow: a dry run unless asked,
//     offsets clamped into [start, end], refused while the group has members.
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
