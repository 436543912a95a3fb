package kafkaoffset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// LogOffsets lists the log start and end offsets (high watermark, read
// uncommitted: a reader's next offset never passes it) of the given
// partitions of topic through client: one ListOffsets request per
// broker for each, partitions with retriable errors asked again as
// [Resolver] does. It returns the offsets of every partition it could list,
// and an error joining one error per partition that failed (a partition
// that does not exist wraps kerr.UnknownTopicOrPartition), or wrapping
// ctx.Err() once ctx is done.
//
// It is the live log check of salvaged source positions: [Log] adapts it
// to package flinkckpt/salvage's KafkaLog interface.
func LogOffsets(ctx context.Context, client *kgo.Client, topic string, partitions []int32) (start, end map[int32]int64, err error) {
	if client == nil {
		return nil, nil, errors.New("kafkaoffset: nil kgo client")
	}
	if err := validTopic(topic); err != nil {
		return nil, nil, err
	}
	r := &Resolver{cl: client, retries: 4, backoff: 100 * time.Millisecond}
	if d, ok := client.OptValue(kgo.MetadataMinAge).(time.Duration); ok {
		r.minAge = d
	}
	parts := make([]PartitionOffsets, len(partitions))
	ptrs := make([]*PartitionOffsets, len(partitions))
	for i, p := range partitions {
		parts[i] = PartitionOffsets{Topic: topic, Partition: p, Start: -1, End: -1}
		ptrs[i] = &parts[i]
	}
	if _, err := r.listOffsets(ctx, -1, 0, "end offset", ptrs, func(p *PartitionOffsets, o, _ int64) { p.End = o }); err != nil {
		return nil, nil, err
	}
	if _, err := r.listOffsets(ctx, -2, 0, "log start offset", ptrs, func(p *PartitionOffsets, o, _ int64) { p.Start = o }); err != nil {
		return nil, nil, err
	}
	start, end = map[int32]int64{}, map[int32]int64{}
	var errs []error
	for _, p := range parts {
		if p.Err != nil {
			errs = append(errs, p.Err)
			continue
		}
		if p.Start < 0 || p.End < p.Start {
			errs = append(errs, fmt.Errorf("kafkaoffset: %s: log start %d, end %d", p.name(), p.Start, p.End))
			continue
		}
		start[p.Partition], end[p.Partition] = p.Start, p.End
	}
	return start, end, errors.Join(errs...)
}

// CommittedOffsets lists group's committed offsets of the given partitions
// of topic through client (an OffsetFetch, retried on retriable errors as
// [Resolver] does). A partition without a commit, and every partition of a
// group that does not exist, is absent from the map. It fails naming the
// group when the fetch fails, wrapping ctx.Err() once ctx is done.
//
// It resolves the "committed" marker of salvaged KafkaSource positions:
// [Log] adapts it to package flinkckpt/salvage's KafkaCommits interface.
func CommittedOffsets(ctx context.Context, client *kgo.Client, group, topic string, partitions []int32) (map[int32]int64, error) {
	if client == nil {
		return nil, errors.New("kafkaoffset: nil kgo client")
	}
	if group == "" {
		return nil, errors.New("kafkaoffset: committed offsets: empty group")
	}
	if err := validTopic(topic); err != nil {
		return nil, err
	}
	r := &Resolver{cl: client, adm: kadm.NewClient(client), group: group, topics: []string{topic}, retries: 4, backoff: 100 * time.Millisecond}
	all, err := r.fetchCommitted(ctx)
	if err != nil {
		return nil, err
	}
	out := map[int32]int64{}
	for _, p := range partitions {
		if o, ok := all[tp{topic, p}]; ok {
			out[p] = o
		}
	}
	return out, nil
}

// Log lists log start and end offsets ([LogOffsets]) and a group's
// committed offsets ([CommittedOffsets]) through Client; the caller owns
// the client. It implements the KafkaLog and KafkaCommits interfaces of
// package flinkckpt/salvage, which check salvaged Kafka positions against
// what the log still holds and resolve their committed markers.
type Log struct {
	Client *kgo.Client
}

// LogOffsets returns the log start and end offsets of topic's partitions
// (see the function LogOffsets).
func (l Log) LogOffsets(ctx context.Context, topic string, partitions []int32) (start, end map[int32]int64, err error) {
	return LogOffsets(ctx, l.Client, topic, partitions)
}

// CommittedOffsets returns group's committed offsets of topic's partitions
// (see the function CommittedOffsets).
func (l Log) CommittedOffsets(ctx context.Context, group, topic string, partitions []int32) (map[int32]int64, error) {
	return CommittedOffsets(ctx, l.Client, group, topic, partitions)
}

// OffsetsAt returns the first offset of each of topic's partitions whose
// record's timestamp is at or after at (ListOffsets by time), or the end
// offset when no record is; a partition not listed is an error naming it.
func (l Log) OffsetsAt(ctx context.Context, topic string, partitions []int32, at time.Time) (map[int32]int64, error) {
	if l.Client == nil {
		return nil, errors.New("kafkaoffset: nil kgo client")
	}
	if err := validTopic(topic); err != nil {
		return nil, err
	}
	listed, err := kadm.NewClient(l.Client).ListOffsetsAfterMilli(ctx, at.UnixMilli(), topic)
	if err != nil && listed == nil {
		return nil, fmt.Errorf("kafkaoffset: list offsets of topic %s by time: %w", topic, err)
	}
	out := make(map[int32]int64, len(partitions))
	for _, p := range partitions {
		o, ok := listed.Lookup(topic, p)
		switch {
		case !ok:
			return nil, fmt.Errorf("kafkaoffset: %s/%d: no offset listed by time", topic, p)
		case o.Err != nil:
			return nil, fmt.Errorf("kafkaoffset: %s/%d: list offsets by time: %w", topic, p, o.Err)
		}
		out[p] = o.Offset
	}
	return out, nil
}

// ValidUntil returns the earliest moment a record at or after offsets[p]
// of topic's partition p may leave retention: the timestamp of the first
// record at or after the offset plus the topic's retention.ms, with a
// reason naming the partition and retention.bytes when set (the rule of
// [Resolver]'s candidates). A partition at its end offset (ends[p])
// constrains nothing. It costs one Metadata, one DescribeConfigs and at
// most one Fetch per partition leader. The zero time, with why, when
// unknown (retention.ms unlimited or unreadable, a record time not read).
func (l Log) ValidUntil(ctx context.Context, topic string, offsets, ends map[int32]int64) (time.Time, string, error) {
	if l.Client == nil {
		return time.Time{}, "", errors.New("kafkaoffset: nil kgo client")
	}
	if err := validTopic(topic); err != nil {
		return time.Time{}, "", err
	}
	r := &Resolver{cl: l.Client, topics: []string{topic}, readMax: 1 << 20, retries: 4, backoff: 100 * time.Millisecond}
	meta, err := r.metadata(ctx)
	if err != nil {
		return time.Time{}, "", err
	}
	configs, err := r.describeConfigs(ctx)
	if err != nil {
		return time.Time{}, "", err
	}
	var ps []*PartitionOffsets
	for p, o := range offsets {
		ps = append(ps, &PartitionOffsets{Topic: topic, Partition: p, Start: 0, End: ends[p], Offset: o, Committed: -1, ByTime: -1, ByTimeMillis: -1,
			PrevMillis: -1, CommitMillis: -1, StartMillis: -1, LastStable: -1, Config: configs[topic]})
	}
	slices.SortFunc(ps, func(a, b *PartitionOffsets) int { return int(a.Partition - b.Partition) })
	if err := r.readRecordTimes(ctx, meta, ps); err != nil {
		return time.Time{}, "", err
	}
	until, why := validUntil(ps)
	return until, why, nil
}
