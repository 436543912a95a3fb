package kafkaoffset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/resumekit/resumekit/internal/ctxtime"
	"github.com/resumekit/resumekit/resume/redact"
)

// OffsetSource is where a partition's chosen offset comes from
// ([PartitionOffsets.From], and [Partition.From] in a position's JSON,
// "from"): one of the From* constants, a closed set. Its JSON is the string.
type OffsetSource string

// Where a partition's chosen offset comes from.
const (
	FromCommit   OffsetSource = "commit"    // the group's committed offset (or the log start when it is below it)
	FromTime     OffsetSource = "time"      // the first offset at or after the start time
	FromEnd      OffsetSource = "end"       // no record at or after the start time: the end offset
	FromLogStart OffsetSource = "log-start" // no commit and no time: the log start, as Flink starts new partitions
)

// PartitionOffsets is what [Resolver.Offsets] found and chose for one
// partition. Offsets and times that were not listed or read are -1.
type PartitionOffsets struct {
	Topic     string
	Partition int32
	// Start is the log start offset, End the end offset (high watermark).
	Start, End int64
	// LastStable is the last stable offset (LSO): the end a read_committed
	// reader reaches, below End while a transaction is open; -1 when not
	// listed (Options.IsolationLevel read_uncommitted).
	LastStable int64
	// Committed is the group's committed offset; -1 when there is none.
	Committed int64
	// ByTime is the first offset at or after the start time and
	// ByTimeMillis that record's timestamp; -1 when not looked up or when
	// no record is at or after the time.
	ByTime, ByTimeMillis int64
	// PrevMillis is the timestamp of the record just before Committed; -1
	// when it was not read (it is not read when CommitMillis was).
	// PrevLogAppendTime reports that the record's batch is marked
	// LogAppendTime: its time is the broker's, not a producer-set
	// CreateTime (so is every record of a topic whose Config says
	// LogAppendTime, once the topic has it).
	PrevMillis        int64
	PrevLogAppendTime bool
	// StartMillis is the timestamp of the record at Offset (the first one
	// at or after it), read for ValidUntil: that record leaves retention
	// first; -1 when not read (no record there yet, or not fetched).
	StartMillis int64
	// CommitMillis is the commit time (commit_timestamp, the broker's
	// clock) of the group's newest commit record for the partition in
	// __consumer_offsets; -1 when not read. CommitTimeErr says why not, for
	// a partition with a commit (the client may not read the topic, or the
	// record is older than the scan reaches).
	CommitMillis  int64
	CommitTimeErr error
	// Config is the topic's configuration: cleanup policy, tombstone
	// retention, timestamp type.
	Config TopicConfig
	// Offset is the chosen start offset, From where it comes from.
	// LoweredToStable reports that the rules gave a start above LastStable
	// and it was lowered to it (read_committed).
	Offset          int64
	From            OffsetSource
	LoweredToStable bool
	// DataLoss is set when records between the old job's progress and
	// Offset are gone; Lost is how many (for a time older than the retained
	// data, an upper bound: every record below the log start).
	DataLoss bool
	Lost     int64
	// Reason says in one line why Offset was chosen.
	Reason string
	// Err is why the partition could not be listed or has no valid start
	// (a commit above the end offset wraps ErrCommitAboveEnd).
	Err error

	aux bool // the group's __consumer_offsets partition, listed alongside
	// commitsHidden says why a newer commit record may not have been read
	// (an open transaction in __consumer_offsets); "" when none.
	commitsHidden string
}

func (p *PartitionOffsets) key() tp { return tp{p.Topic, p.Partition} }

func (p *PartitionOffsets) name() string { return fmt.Sprintf("%s/%d", p.Topic, p.Partition) }

type tp struct {
	t string
	p int32
}

// lookup is one pass over every partition: metadata, the group's members,
// the topics' configurations, then end offsets FIRST (Flink lists them
// before the time lookup too: a record produced between the two must not
// make "nothing at or after T" jump past it), last stable offsets, log
// start offsets, committed offsets, offsets by time, and the times for At:
// the group's commit records, else the records before the commits.
func (r *Resolver) lookup(ctx context.Context) ([]PartitionOffsets, error) {
	meta, err := r.metadata(ctx)
	if err != nil {
		return nil, err
	}
	if r.group != "" {
		if err := r.checkMembers(ctx); err != nil {
			return nil, err
		}
	}
	configs, err := r.describeConfigs(ctx)
	if err != nil {
		return nil, err
	}
	parts := make([]PartitionOffsets, 0, len(meta.leaders))
	for _, t := range r.topics {
		for _, p := range meta.parts[t] {
			parts = append(parts, PartitionOffsets{
				Topic: t, Partition: p,
				Start: -1, End: -1, LastStable: -1, Committed: -1, ByTime: -1, ByTimeMillis: -1,
				PrevMillis: -1, CommitMillis: -1, StartMillis: -1, Offset: -1, Config: configs[t],
			})
		}
	}
	ptrs := make([]*PartitionOffsets, len(parts))
	for i := range parts {
		ptrs[i] = &parts[i]
	}
	var shards []*kadm.ShardErrors
	list := func(ts int64, isolation int8, what string, ps []*PartitionOffsets, set func(*PartitionOffsets, int64, int64)) error {
		se, err := r.listOffsets(ctx, ts, isolation, what, ps, set)
		if se != nil {
			shards = append(shards, se)
		}
		return err
	}
	// The group's __consumer_offsets partition rides along in the end and
	// log start requests: its leader gets one more partition, not one more
	// request.
	withLog := ptrs
	var logPart *PartitionOffsets
	if log := meta.log; log != nil && log.err == nil {
		logPart = &PartitionOffsets{Topic: ConsumerOffsetsTopic, Partition: log.partition, Start: -1, End: -1, aux: true}
		withLog = append(slices.Clip(ptrs), logPart)
	}

	if err := list(-1, 0, "end offset", withLog, func(p *PartitionOffsets, o, _ int64) { p.End = o }); err != nil {
		return parts, err
	}
	if r.isolation == ReadCommitted {
		if err := list(-1, 1, "last stable offset", ptrs, func(p *PartitionOffsets, o, _ int64) { p.LastStable = o }); err != nil {
			return parts, err
		}
	}
	if err := list(-2, 0, "log start offset", withLog, func(p *PartitionOffsets, o, _ int64) { p.Start = o }); err != nil {
		return parts, err
	}
	if logPart != nil {
		if logPart.Err != nil {
			meta.log.err = logPart.Err
		} else {
			meta.log.start, meta.log.end = logPart.Start, logPart.End
		}
	}
	if r.group != "" {
		committed, err := r.fetchCommitted(ctx)
		if err != nil {
			return parts, err
		}
		for i := range parts {
			if o, ok := committed[parts[i].key()]; ok {
				parts[i].Committed = o
			}
		}
	}
	if r.hasAt {
		var need []*PartitionOffsets
		for _, p := range ptrs {
			// The CLI shows the offset by time beside the commit, so
			// every partition is looked up: it costs the same one request
			// per broker.
			if p.Err == nil {
				need = append(need, p)
			}
		}
		// Looked up read_uncommitted, whatever the job's level: an answer
		// at or above the LSO is lowered to it by choose, and says where
		// the first record at or after the time is.
		err := list(r.at.UnixMilli(), 0, "offset by time", need, func(p *PartitionOffsets, o, ts int64) {
			// -1 without an error is the broker's "no record at or
			// after this time"; the end offset listed above answers it.
			if o >= 0 {
				p.ByTime, p.ByTimeMillis = o, ts
			}
		})
		if err != nil {
			return parts, err
		}
		for _, p := range need {
			// A partition with a commit starts there: its offset by
			// time is only shown, so failing to list it fails nothing.
			if p.Err != nil && p.Committed >= 0 {
				p.Err = nil
			}
		}
	}

	atMillis := r.at.UnixMilli()
	var above []*PartitionOffsets
	for _, p := range ptrs {
		if p.Err == nil {
			choose(p, r.hasAt, atMillis)
			if errors.Is(p.Err, ErrCommitAboveEnd) {
				above = append(above, p)
			}
		}
	}
	if len(above) > 0 {
		// The end offsets were listed before the commits were read: list
		// them again before calling a commit impossible.
		for _, p := range above {
			p.Err = nil
		}
		if err := list(-1, 0, "end offset", above, func(p *PartitionOffsets, o, _ int64) { p.End = o }); err != nil {
			return parts, err
		}
		for _, p := range above {
			if p.Err == nil {
				choose(p, r.hasAt, atMillis)
			}
		}
	}

	if meta.log != nil {
		moved, err := r.readCommitTimes(ctx, meta.log, ptrs)
		if err != nil {
			return parts, err
		}
		if len(moved) > 0 {
			slices.Sort(moved)
			return parts, fmt.Errorf("%w: group %s committed while it was looked up: its newest commit records in %s hold other offsets than OffsetFetch answered: %s",
				ErrStillCommitting, redact.Quote(r.group), ConsumerOffsetsTopic, strings.Join(moved, ", "))
		}
	}
	if !r.noTimes {
		if err := r.readRecordTimes(ctx, meta, ptrs); err != nil {
			return parts, err
		}
	}

	var perr PartitionErrors
	perr.Total = len(parts)
	for _, p := range ptrs {
		if p.Err != nil {
			perr.Errs = append(perr.Errs, p.Err)
		}
	}
	if len(perr.Errs) > 0 {
		perr.Shards = shards
		return parts, &perr
	}
	return parts, nil
}

// pause waits before retry attempt+1, doubling the backoff up to 2 s.
func (r *Resolver) pause(ctx context.Context, attempt int) error {
	return r.pauseAtLeast(ctx, attempt, 0)
}

func (r *Resolver) pauseAtLeast(ctx context.Context, attempt int, least time.Duration) error {
	d := r.backoff
	for range attempt {
		d *= 2
		if d >= maxBackoff {
			d = maxBackoff
			break
		}
	}
	return ctxtime.Sleep(ctx, max(d, least))
}

const maxBackoff = 2e9 // 2 s

// listOffsets asks the leaders of ps for the offset at timestamp ts (-1 end,
// -2 log start, else by time) with one ListOffsets request per broker at the
// isolation level (0 read_uncommitted; 1 read_committed, whose end is the
// last stable offset), and sets each answer with set. Partitions with
// retriable errors are asked again (only they, and never the commit log's
// partition) up to r.retries times; other failures land in the partition's
// Err. It returns the ShardErrors of the first round, if any, and an error
// only when ctx is done.
func (r *Resolver) listOffsets(ctx context.Context, ts int64, isolation int8, what string, ps []*PartitionOffsets, set func(*PartitionOffsets, int64, int64)) (*kadm.ShardErrors, error) {
	var first *kadm.ShardErrors
	var pending []*PartitionOffsets
	for _, p := range ps {
		if p.Err == nil { // a partition that failed once is not asked again
			pending = append(pending, p)
		}
	}
	for attempt := 0; len(pending) > 0; attempt++ {
		req := kmsg.NewPtrListOffsetsRequest()
		req.ReplicaID = -1
		req.IsolationLevel = isolation
		byTopic := map[string]int{}
		for _, p := range pending {
			i, ok := byTopic[p.Topic]
			if !ok {
				i = len(req.Topics)
				byTopic[p.Topic] = i
				rt := kmsg.NewListOffsetsRequestTopic()
				rt.Topic = p.Topic
				req.Topics = append(req.Topics, rt)
			}
			rp := kmsg.NewListOffsetsRequestTopicPartition()
			rp.Partition = p.Partition
			rp.Timestamp = ts
			req.Topics[i].Partitions = append(req.Topics[i].Partitions, rp)
		}

		type answer struct {
			offset, ts int64
			err        error
		}
		answers := make(map[tp]answer, len(pending))
		se := &kadm.ShardErrors{Name: kmsg.NameForKey(req.Key())}
		shards := r.cl.RequestSharded(ctx, req)
		for _, s := range shards {
			if s.Err != nil {
				se.Errs = append(se.Errs, kadm.ShardError{Req: s.Req, Err: s.Err, Broker: s.Meta})
				if lr, ok := s.Req.(*kmsg.ListOffsetsRequest); ok {
					for _, rt := range lr.Topics {
						for _, rp := range rt.Partitions {
							answers[tp{rt.Topic, rp.Partition}] = answer{err: shardErr(s)}
						}
					}
				}
				continue
			}
			resp := s.Resp.(*kmsg.ListOffsetsResponse)
			for _, rt := range resp.Topics {
				for _, rp := range rt.Partitions {
					answers[tp{rt.Topic, rp.Partition}] = answer{offset: rp.Offset, ts: rp.Timestamp, err: kerr.ErrorForCode(rp.ErrorCode)}
				}
			}
		}
		if len(se.Errs) > 0 {
			se.AllFailed = len(se.Errs) == len(shards)
			if first == nil {
				first = se
			}
		}
		if err := ctx.Err(); err != nil {
			for _, p := range pending {
				p.Err = fmt.Errorf("kafkaoffset: %s: list %s: %w", p.name(), what, err)
			}
			return first, fmt.Errorf("kafkaoffset: list %s: %w", what, err)
		}

		var again []*PartitionOffsets
		for _, p := range pending {
			a, ok := answers[p.key()]
			switch {
			case !ok:
				p.Err = fmt.Errorf("kafkaoffset: %s: list %s: no answer from the broker", p.name(), what)
			case a.err == nil:
				set(p, a.offset, a.ts)
			case kerr.IsRetriable(a.err) && attempt < r.retries && !p.aux:
				// kgo retries failed connections itself, but not a
				// partition it could not route (no leader in the
				// metadata) nor per-partition error codes.
				again = append(again, p)
				p.Err = a.err
			default:
				tries := ""
				if attempt > 0 {
					tries = fmt.Sprintf(" (after %d tries)", attempt+1)
				}
				p.Err = fmt.Errorf("kafkaoffset: %s: list %s%s: %w", p.name(), what, tries, a.err)
			}
		}
		if len(again) > 0 {
			// kgo routes by its cached metadata until it is
			// MetadataMinAge old: wait that long for new leaders.
			if err := r.pauseAtLeast(ctx, attempt, r.minAge); err != nil {
				for _, p := range again {
					p.Err = fmt.Errorf("kafkaoffset: %s: list %s: %w (last: %w)", p.name(), what, err, unprefixed(p.Err))
				}
				return first, fmt.Errorf("kafkaoffset: list %s: %w", what, err)
			}
			for _, p := range again {
				p.Err = nil
			}
		}
		pending = again
	}
	return first, nil
}

// shardFailure marks an error that failed a whole request shard (kgo has
// already retried it as far as the client allows).
type shardFailure struct {
	broker int32
	err    error
}

func (e *shardFailure) Error() string {
	if e.broker < 0 {
		return fmt.Sprintf("request failed before reaching a broker: %v", e.err)
	}
	return fmt.Sprintf("request to broker %d failed: %v", e.broker, e.err)
}
func (e *shardFailure) Unwrap() error { return e.err }

func shardErr(s kgo.ResponseShard) error { return &shardFailure{broker: s.Meta.NodeID, err: s.Err} }
