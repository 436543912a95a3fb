package kafkaoffset

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/resumekit/resumekit/resume/redact"
)

// fetchCommitted reads the group's committed offsets of the resolver's
// topics. An unknown group has no commits: kfake answers GROUP_ID_NOT_FOUND,
// Kafka an empty answer. Partitions without a commit (offset -1) are absent.
func (r *Resolver) fetchCommitted(ctx context.Context) (map[tp]int64, error) {
	for attempt := 0; ; attempt++ {
		out, err := r.fetchCommittedOnce(ctx)
		if err == nil {
			return out, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("kafkaoffset: fetch offsets of group %s: %w", redact.Quote(r.group), ctx.Err())
		}
		if !kerr.IsRetriable(err) || attempt >= r.retries {
			tries := ""
			if attempt > 0 {
				tries = fmt.Sprintf(" (after %d tries)", attempt+1)
			}
			return nil, fmt.Errorf("kafkaoffset: fetch offsets of group %s%s: %w", redact.Quote(r.group), tries, err)
		}
		if err := r.pause(ctx, attempt); err != nil {
			return nil, fmt.Errorf("kafkaoffset: fetch offsets of group %s: %w", redact.Quote(r.group), err)
		}
	}
}

func (r *Resolver) fetchCommittedOnce(ctx context.Context) (map[tp]int64, error) {
	resps, err := r.adm.FetchOffsets(ctx, r.group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		return map[tp]int64{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[tp]int64{}
	for _, t := range r.topics {
		for p, o := range resps[t] {
			if o.Err != nil {
				return nil, fmt.Errorf("%s/%d: %w", t, p, o.Err)
			}
			if o.At >= 0 {
				out[tp{t, p}] = o.At
			}
		}
	}
	return out, nil
}
