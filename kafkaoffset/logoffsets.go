package kafkaoffset

import (
	"context"
	"errors"
	"fmt"
	"time"

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

// Log lists log start and end offsets through Client ([LogOffsets]); the
// caller owns the client. It implements the KafkaLog interface of package
// flinkckpt/salvage, which checks salvaged Kafka positions against what
// the log still holds.
type Log struct {
	Client *kgo.Client
}

// LogOffsets returns the log start and end offsets of topic's partitions
// (see the function LogOffsets).
func (l Log) LogOffsets(ctx context.Context, topic string, partitions []int32) (start, end map[int32]int64, err error) {
	return LogOffsets(ctx, l.Client, topic, partitions)
}
