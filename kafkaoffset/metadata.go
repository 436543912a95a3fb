package kafkaoffset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

type metadata struct {
	parts   map[string][]int32 // sorted partitions of each topic
	ids     map[string][16]byte
	leaders map[tp]int32
	// log is where the group's commit records are; nil when not asked
	// (no group, or Options.SkipCommitTimes).
	log *commitLog
}

// metadata lists the topics' partitions and leaders with a fresh Metadata
// request: kadm's ListTopics answers from the client's cache for up to
// MetadataMinAge (5 s by default), which would hide partitions just added or
// show a recreated topic as it was. kgo stores the answer, so the
// ListOffsets requests that follow are routed by it too. A missing topic
// fails at once; retriable topic errors (a topic being created) are retried.
// With a group it asks for __consumer_offsets in the same request, for the
// group's commit records; that topic's errors fail nothing.
func (r *Resolver) metadata(ctx context.Context) (metadata, error) {
	askLog := r.group != "" && !r.noCommitTimes
	for attempt := 0; ; attempt++ {
		req := kmsg.NewPtrMetadataRequest()
		req.AllowAutoTopicCreation = false // looking must not create a topic
		for _, t := range r.topics {
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(t)
			req.Topics = append(req.Topics, rt)
		}
		if askLog && !slices.Contains(r.topics, ConsumerOffsetsTopic) {
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(ConsumerOffsetsTopic)
			req.Topics = append(req.Topics, rt)
		}
		resp, err := req.RequestWith(ctx, r.cl)
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return metadata{}, fmt.Errorf("kafkaoffset: metadata of %s: %w", strings.Join(r.topics, ", "), err)
		}
		got := map[string]*kmsg.MetadataResponseTopic{}
		for i := range resp.Topics {
			if rt := &resp.Topics[i]; rt.Topic != nil {
				got[*rt.Topic] = rt
			}
		}
		var errs []error
		retry := false
		for _, t := range r.topics {
			rt, ok := got[t]
			var terr error
			if ok {
				terr = kerr.ErrorForCode(rt.ErrorCode)
			}
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("kafkaoffset: topic %q: not in the metadata response", t))
			case errors.Is(terr, kerr.UnknownTopicOrPartition):
				errs = append(errs, fmt.Errorf("kafkaoffset: topic %q does not exist: %w", t, terr))
			case terr != nil:
				errs = append(errs, fmt.Errorf("kafkaoffset: topic %q: %w", t, terr))
				retry = retry || kerr.IsRetriable(terr)
			case len(rt.Partitions) == 0:
				errs = append(errs, fmt.Errorf("kafkaoffset: topic %q has no partitions", t))
			}
		}
		if len(errs) == 0 {
			m := metadata{parts: map[string][]int32{}, ids: map[string][16]byte{}, leaders: map[tp]int32{}}
			for _, t := range r.topics {
				rt := got[t]
				m.ids[t] = rt.TopicID
				for _, p := range rt.Partitions {
					m.parts[t] = append(m.parts[t], p.Partition)
					// A partition with an error code (no leader) keeps
					// -1: its listing fails and is retried.
					leader := p.Leader
					if p.ErrorCode != 0 {
						leader = -1
					}
					m.leaders[tp{t, p.Partition}] = leader
				}
				slices.Sort(m.parts[t])
			}
			if askLog {
				m.log = r.commitLogOf(got[ConsumerOffsetsTopic])
			}
			return m, nil
		}
		if !retry || attempt >= r.retries {
			return metadata{}, errors.Join(errs...)
		}
		if err := r.pause(ctx, attempt); err != nil {
			return metadata{}, fmt.Errorf("kafkaoffset: metadata: %w (after: %w)", err, unprefixed(errs...))
		}
	}
}

// commitLogOf finds the group's partition of __consumer_offsets and its
// leader in the metadata answer for the topic (nil when absent).
func (r *Resolver) commitLogOf(rt *kmsg.MetadataResponseTopic) *commitLog {
	log := &commitLog{partition: -1, leader: -1, start: -1, end: -1}
	if rt == nil {
		log.err = errors.New("not in the metadata response")
		return log
	}
	if err := kerr.ErrorForCode(rt.ErrorCode); err != nil {
		// kfake keeps group offsets in memory and has no such topic; a
		// broker answers so, or with an authorization error, when the
		// client may not describe it.
		log.err = fmt.Errorf("topic %s is not readable by this client: %w", ConsumerOffsetsTopic, err)
		return log
	}
	log.topicID = rt.TopicID
	log.partition = GroupPartition(r.group, int32(len(rt.Partitions)))
	for _, p := range rt.Partitions {
		if p.Partition != log.partition {
			continue
		}
		if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
			log.err = fmt.Errorf("%s partition %d: %w", ConsumerOffsetsTopic, p.Partition, err)
			return log
		}
		log.leader = p.Leader
		return log
	}
	log.err = fmt.Errorf("%s partition %d (of %d) is not in the metadata response", ConsumerOffsetsTopic, log.partition, len(rt.Partitions))
	return log
}
