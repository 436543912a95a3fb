package kafkaoffset

import (
	"context"
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// readRecordTimes reads the record just before each committed offset, for At
// (OffsetFetch returns no commit time), on the partitions whose commit time
// was not read from the group's commit records. One Fetch request per
// leader, each response bounded by r.readMax; partitions whose record did
// not come back keep PrevMillis -1. The record's own timestamp type says
// whose clock it is: a LogAppendTime batch carries the broker's. Only a
// done ctx is an error.
//
// The same request reads the record at each chosen start offset (the first
// at or after it), for ValidUntil (StartMillis): a start by time has its
// record's time from ListOffsets already.
func (r *Resolver) readRecordTimes(ctx context.Context, meta metadata, ps []*PartitionOffsets) error {
	byLeader := map[int32][]*PartitionOffsets{}
	for _, p := range ps {
		if p.Err == nil && p.From == FromTime && p.Offset == p.ByTime && p.ByTimeMillis >= 0 {
			p.StartMillis = p.ByTimeMillis
		}
		if p.Err == nil && (needsPrev(p) || needsStart(p)) {
			l := meta.leaders[p.key()]
			byLeader[l] = append(byLeader[l], p)
		}
	}
	var wg sync.WaitGroup
	for leader, lps := range byLeader {
		if leader < 0 {
			continue
		}
		wg.Go(func() { r.readLeader(ctx, meta, leader, lps) })
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("kafkaoffset: read record times: %w", err)
	}
	return nil
}

// needsPrev: the commit's time comes from the record before it.
func needsPrev(p *PartitionOffsets) bool {
	return p.From == FromCommit && !p.DataLoss && p.Committed > p.Start && p.CommitMillis < 0
}

// needsStart: a record at or after the start offset exists, its time not
// read yet.
func needsStart(p *PartitionOffsets) bool {
	return p.StartMillis < 0 && p.Offset >= p.Start && p.Offset < p.End
}

// fetchFrom is where a partition's fetch starts.
func fetchFrom(p *PartitionOffsets) int64 {
	if needsPrev(p) {
		return p.Committed - 1
	}
	return p.Offset
}

func (r *Resolver) readLeader(ctx context.Context, meta metadata, leader int32, ps []*PartitionOffsets) {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = 0
	req.MinBytes = 0
	req.MaxBytes = r.readMax
	req.SessionEpoch = -1
	perPart := min(r.readMax, 64<<10)
	idx := map[string]int{}
	want := map[tp]*PartitionOffsets{}
	for _, p := range ps {
		i, ok := idx[p.Topic]
		if !ok {
			i = len(req.Topics)
			idx[p.Topic] = i
			rt := kmsg.NewFetchRequestTopic()
			rt.Topic = p.Topic
			rt.TopicID = meta.ids[p.Topic]
			req.Topics = append(req.Topics, rt)
		}
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition = p.Partition
		rp.FetchOffset = fetchFrom(p)
		rp.PartitionMaxBytes = perPart
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, rp)
		want[p.key()] = p
	}
	kresp, err := r.cl.Broker(int(leader)).Request(ctx, req)
	if err != nil {
		return
	}
	resp := kresp.(*kmsg.FetchResponse)
	byID := map[[16]byte]string{}
	for _, t := range r.topics {
		byID[meta.ids[t]] = t
	}
	for i := range resp.Topics {
		rt := &resp.Topics[i]
		topic := rt.Topic
		if topic == "" {
			topic = byID[rt.TopicID]
		}
		for j := range rt.Partitions {
			rp := &rt.Partitions[j]
			p := want[tp{topic, rp.Partition}]
			if p == nil || rp.ErrorCode != 0 {
				continue
			}
			from, prev, start := fetchFrom(p), needsPrev(p), needsStart(p)
			fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{
				KeepControlRecords: true,
				Offset:             from,
				Topic:              topic,
				Partition:          rp.Partition,
			}, rp, kgo.DefaultDecompressor(), nil)
			for _, rec := range fp.Records {
				if prev && rec.Offset == p.Committed-1 {
					p.PrevMillis = rec.Timestamp.UnixMilli()
					p.PrevLogAppendTime = rec.Attrs.TimestampType() == 1
				}
				if start && rec.Offset >= p.Offset && !rec.Attrs.IsControl() && p.StartMillis < 0 {
					p.StartMillis = rec.Timestamp.UnixMilli()
				}
			}
		}
	}
}
