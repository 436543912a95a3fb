package kafkaoffset

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/resumekit/resumekit/internal/ctxtime"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/redact"
)

// DefaultName is the resolver's name when Options.Name is empty.
const DefaultName = "kafka-offsets"

// Options configure a [Resolver]. A nil *Options is not enough on its own:
// a resolver needs a Group, a time (At), or both.
type Options struct {
	// Name is the resolver's name in decisions; DefaultName when empty.
	Name string
	// Group is the consumer group whose committed offsets (what KafkaSource
	// commits after each completed checkpoint) the job continues from.
	Group string
	// At is the start time looked up for partitions without a commit, or
	// for every partition when Group is empty; zero means none. It must not
	// be before 1970 (Kafka timestamps are unix milliseconds).
	At time.Time
	// ObserveWindow, when positive, reads the group's offsets, waits this
	// long, and reads them again: if they moved, the old job is still
	// running and Resolve fails with ErrStillCommitting. KafkaSource uses
	// assign(), so a running job's group shows no members: only moving
	// offsets tell — or, when the group's commit records can be read, a
	// commit record inside the window (a running job whose input is idle
	// re-commits unchanged offsets; the record's time is the broker's
	// clock, the window's start ours). A window proves nothing about a job
	// whose checkpoint interval is longer than it. It needs Group.
	ObserveWindow time.Duration
	// Wait pauses for the observation window. nil waits on a timer and
	// returns ctx's error early when ctx is done. Tests set it to make
	// something happen inside the window without sleeping.
	Wait func(ctx context.Context, d time.Duration) error
	// Now returns the current time, for the lag warning and for telling a
	// future start time; nil means time.Now.
	Now func() time.Time
	// Retries is how many times a partition whose listing failed with a
	// retriable error (LEADER_NOT_AVAILABLE, NOT_LEADER_FOR_PARTITION, …) is
	// asked again, on top of the client's own retries; 0 means 4, a
	// negative value means none. Retries stop early when ctx is done.
	Retries int
	// RetryBackoff is the pause before the first retry, doubled for each
	// further one up to 2 s; 0 means 100 ms. A retried listing waits at
	// least the client's MetadataMinAge (kgo.MetadataMinAge, 5 s by
	// default), so that kgo routes it with fresh leaders.
	RetryBackoff time.Duration
	// SkipRecordTimes skips reading the record just before each committed
	// offset, which gives a candidate's At for commits (OffsetFetch has no
	// commit time). Reading costs one Fetch request per broker, bounded by
	// RecordReadBytes.
	SkipRecordTimes bool
	// RecordReadBytes bounds each Fetch response read for record times;
	// 0 means 1 MiB. Partitions whose batch did not fit have no record time
	// (the reasons say how many).
	RecordReadBytes int32
	// SkipCommitTimes skips reading the group's commit records from
	// __consumer_offsets, which give each commit's time (the better At,
	// and the group's last commit time). Reading costs no request when the
	// client may not describe the topic, else at most 8 Fetch requests of
	// at most 1 MiB to the leader of the group's partition, from the end
	// backwards.
	SkipCommitTimes bool

	// IsolationLevel is the new job's consumer isolation.level; "" means
	// ReadCommitted. Under ReadCommitted the last stable offset of every
	// partition is listed too (one more ListOffsets request per broker)
	// and every start above it is lowered to it: a read_committed reader
	// started above an open transaction never reads the transaction's
	// records below its start once it commits.
	IsolationLevel IsolationLevel
	// CommitSource is how the old job committed the group's offsets; ""
	// means CommitOnCheckpoint, said as an assumption in a warning. Under
	// CommitAuto and CommitUnknown a start at a commit is graded
	// [resume.DataLoss]: auto-commit runs ahead of processing.
	CommitSource CommitSource
	// Strict grades as [resume.DataLoss] what may have been lost but
	// cannot be shown: today, a compacted topic whose start is further
	// behind than delete.retention.ms, when compaction may have removed
	// the tombstones written since (without Strict: a warning).
	Strict bool
	// Sink answers for the job's KafkaSink on its cluster, and SinkPrefix
	// is the sink's transactional id prefix (setTransactionalIdPrefix):
	// with both and a Group, Resolve lists the sink's transactions
	// (ListTransactions on every broker, then one DescribeTransactions per
	// coordinator) and grades the start data-loss when one is still open
	// (the old job's pending output: a stateless start never commits it,
	// the broker aborts it at its timeout) or was aborted after the group's
	// last commit ([WarnSinkTransactions]). kafkaoffset.Log implements it.
	Sink       livecheck.KafkaTransactions
	SinkPrefix string
}

// Resolver finds where a job reading Kafka starts: from a consumer group's
// committed offsets, by time, or both, validated against each partition's
// log start and end offsets. It implements [resume.Resolver]. It is
// immutable and safe for concurrent use; the caller owns the client.
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
// What the grade assumes, and checks:
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
// Cost: one Metadata request (the topics and __consumer_offsets), one
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
type Resolver struct {
	cl      *kgo.Client
	adm     *kadm.Client
	topics  []string
	name    string
	group   string
	at      time.Time
	hasAt   bool
	window  time.Duration
	wait    func(context.Context, time.Duration) error
	now     func() time.Time
	retries int
	backoff time.Duration
	noTimes bool
	readMax int32
	minAge  time.Duration // the client's MetadataMinAge

	noCommitTimes bool
	logFetches    int // commitLogMaxFetches; tests lower it
	isolation     IsolationLevel
	commitSource  CommitSource
	strict        bool
	sink          livecheck.KafkaTransactions
	sinkPrefix    string
}

var _ resume.Resolver = (*Resolver)(nil)

// NewResolver returns a resolver for topics read through client. It checks
// the options before any I/O: it fails without a client, without topics, with
// an invalid or repeated topic name, with neither Group nor At, with At before
// 1970, with an ObserveWindow that is negative or has no Group, or with an
// unknown IsolationLevel or CommitSource.
func NewResolver(client *kgo.Client, topics []string, opts *Options) (*Resolver, error) {
	if opts == nil {
		opts = &Options{}
	}
	if client == nil {
		return nil, errors.New("kafkaoffset: nil kgo client")
	}
	if len(topics) == 0 {
		return nil, errors.New("kafkaoffset: no topics")
	}
	seen := map[string]bool{}
	for _, t := range topics {
		if err := validTopic(t); err != nil {
			return nil, err
		}
		if seen[t] {
			return nil, fmt.Errorf("kafkaoffset: topic %s given twice", redact.Quote(t))
		}
		seen[t] = true
	}
	hasAt := !opts.At.IsZero()
	if opts.Group == "" && !hasAt {
		return nil, errors.New("kafkaoffset: nothing to start from: set a group, a time, or both")
	}
	if hasAt && opts.At.UnixMilli() < 0 {
		return nil, fmt.Errorf("kafkaoffset: time %s is before 1970: Kafka timestamps are unix milliseconds", opts.At.UTC().Format(time.RFC3339))
	}
	if opts.ObserveWindow < 0 {
		return nil, fmt.Errorf("kafkaoffset: negative observation window %s", opts.ObserveWindow)
	}
	if opts.ObserveWindow > 0 && opts.Group == "" {
		return nil, errors.New("kafkaoffset: an observation window needs a group")
	}
	if opts.RetryBackoff < 0 || opts.RecordReadBytes < 0 {
		return nil, errors.New("kafkaoffset: negative RetryBackoff or RecordReadBytes")
	}
	if err := opts.IsolationLevel.valid(); err != nil {
		return nil, err
	}
	if err := opts.CommitSource.valid(); err != nil {
		return nil, err
	}
	r := &Resolver{
		cl:      client,
		adm:     kadm.NewClient(client),
		topics:  append([]string(nil), topics...),
		name:    opts.Name,
		group:   opts.Group,
		at:      opts.At,
		hasAt:   hasAt,
		window:  opts.ObserveWindow,
		wait:    opts.Wait,
		now:     opts.Now,
		retries: opts.Retries,
		backoff: opts.RetryBackoff,
		noTimes: opts.SkipRecordTimes,
		readMax: opts.RecordReadBytes,

		noCommitTimes: opts.SkipCommitTimes,
		logFetches:    commitLogMaxFetches,
		isolation:     opts.IsolationLevel.orDefault(),
		commitSource:  opts.CommitSource.orDefault(),
		strict:        opts.Strict,
		sink:          opts.Sink,
		sinkPrefix:    opts.SinkPrefix,
	}
	if r.name == "" {
		r.name = DefaultName
	}
	if r.wait == nil {
		r.wait = ctxtime.Sleep
	}
	if r.now == nil {
		r.now = time.Now
	}
	switch {
	case r.retries == 0:
		r.retries = 4
	case r.retries < 0:
		r.retries = 0
	}
	if r.backoff == 0 {
		r.backoff = 100 * time.Millisecond
	}
	if r.readMax == 0 {
		r.readMax = 1 << 20
	}
	if d, ok := client.OptValue(kgo.MetadataMinAge).(time.Duration); ok {
		r.minAge = d
	}
	return r, nil
}

// validTopic applies Kafka's topic name rules (Topic.validate): 1 to 249
// characters of [a-zA-Z0-9._-]. Errors quote the name truncated.
func validTopic(t string) error {
	if t == "" || t == "." || t == ".." || len(t) > 249 {
		return fmt.Errorf("kafkaoffset: invalid topic name %s", redact.Quote(t))
	}
	for _, c := range t {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("kafkaoffset: invalid topic name %s: only letters, digits, '.', '_' and '-'", redact.Quote(t))
		}
	}
	return nil
}

// Name returns the resolver's name.
func (r *Resolver) Name() string { return r.name }

// Resolve looks up every partition ([Resolver.Offsets]) and grades the
// result: committed offsets inside [start, end] and lookups by time are
// [resume.Replay]; a commit below the log start or a time older than the
// retained data is [resume.DataLoss], naming the partitions and records lost.
// It returns an error wrapping [resume.ErrNoPosition] when the group has no
// commit on any partition and no time was given, [ErrStillCommitting] when
// the group's offsets moved during the observation window (or its commit
// records show it committing), a [*GroupMembersError] when the group has
// members, and a
// [*PartitionErrors] when some partition could not be looked up or has a
// commit above its end offset ([ErrCommitAboveEnd]).
func (r *Resolver) Resolve(ctx context.Context) (resume.Candidate, error) {
	res, err := r.Offsets(ctx)
	if err != nil {
		return resume.Candidate{}, err
	}
	c, err := r.candidate(res)
	if err != nil {
		return c, err
	}
	if err := r.checkSink(ctx, &c); err != nil {
		return resume.Candidate{}, err
	}
	return c, nil
}

// Grade turns the result of [Resolver.Offsets] into the candidate Resolve
// would return, so that a tool can show the partitions and the verdict from
// one lookup. It fails with a [*PartitionErrors] if any partition has an Err.
func (r *Resolver) Grade(res []PartitionOffsets) (resume.Candidate, error) {
	perr := PartitionErrors{Total: len(res)}
	for _, p := range res {
		if p.Err != nil {
			perr.Errs = append(perr.Errs, p.Err)
		}
	}
	if len(perr.Errs) > 0 {
		return resume.Candidate{}, &perr
	}
	return r.candidate(res)
}

// Offsets lists the log start and end offsets, the group's commits and the
// offsets by time of every partition of the resolver's topics, and chooses
// each partition's start offset with its reason. It returns every partition
// it could list, each with its own Err, together with an error (a
// [*PartitionErrors], which may wrap a [*kadm.ShardErrors]) when any
// partition failed; [ErrStillCommitting] when the group's offsets moved
// during the observation window, or its commit records show a commit inside
// it (a running idle job re-commits unchanged offsets), or newer offsets
// than OffsetFetch answered; and a [*GroupMembersError] when the group has
// members.
func (r *Resolver) Offsets(ctx context.Context) ([]PartitionOffsets, error) {
	var before map[tp]int64
	var windowStart time.Time
	if r.window > 0 {
		var err error
		windowStart = r.now()
		if before, err = r.fetchCommitted(ctx); err != nil {
			return nil, err
		}
		if err := r.wait(ctx, r.window); err != nil {
			return nil, fmt.Errorf("kafkaoffset: observation window: %w", err)
		}
	}
	res, err := r.lookup(ctx)
	if err != nil {
		return res, err
	}
	if r.window > 0 {
		if err := moved(before, res, r.group, r.window); err != nil {
			return res, err
		}
		if err := recommitted(res, r.group, r.window, windowStart); err != nil {
			return res, err
		}
	}
	return res, nil
}
