package kafkaoffset

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/resumekit/resumekit/resume/redact"
)

// ErrGroupNotEmpty is matched by the [*GroupMembersError] that [ResetGroup]
// and the resolver return when the group has members:
// kafka-consumer-groups --reset-offsets refuses then too, because the members
// would overwrite the reset with their next commit. Check it with errors.Is.
var ErrGroupNotEmpty = errors.New("kafkaoffset: the group has active members")

// ResetPartition is one partition of a [ResetGroup] plan.
type ResetPartition struct {
	Topic     string
	Partition int32
	// Current is the group's commit before the reset; -1 when none.
	Current int64
	// Target is the offset committed (or, in a dry run, to be committed):
	// the position's offset clamped into [Start, End] as listed now.
	Target     int64
	Start, End int64
	// Clamped reports that the position's offset was outside [Start, End]
	// (retention moved the log start, or the log was truncated since).
	Clamped bool
	// Err is why the partition could not be listed or committed.
	Err error
}

// ResetGroup commits a position's offsets to group, the workflow of
// kafka-consumer-groups --reset-offsets --from-file: a dry run unless execute
// is true; each offset clamped into the partition's current [start, end];
// refused with a [*GroupMembersError] (errors.Is [ErrGroupNotEmpty]) when the
// group has members. A job that uses group-offsets as its startup mode then
// starts exactly there, and the commits cannot expire before it starts as
// long as offsets.retention.minutes has not passed.
//
// KafkaSource uses assign(), so a running Flink job shows no members: check
// that the old job has stopped first (Options.ObserveWindow of the resolver
// that produced p).
//
// It returns every partition of the plan with its own Err, and a
// [*PartitionErrors] when any failed.
func ResetGroup(ctx context.Context, client *kgo.Client, group string, p *Position, execute bool) ([]ResetPartition, error) {
	switch {
	case client == nil:
		return nil, errors.New("kafkaoffset: reset: nil kgo client")
	case group == "":
		return nil, errors.New("kafkaoffset: reset: no group")
	case p == nil || len(p.Partitions) == 0:
		return nil, errors.New("kafkaoffset: reset: no partitions in the position")
	}
	seen := map[tp]bool{}
	var topics []string
	for _, pp := range p.Partitions {
		if err := validTopic(pp.Topic); err != nil {
			return nil, fmt.Errorf("kafkaoffset: reset: %w", unprefixed(err))
		}
		if pp.Partition < 0 || pp.Offset < 0 {
			return nil, fmt.Errorf("kafkaoffset: reset: %s/%d: negative partition or offset %d", pp.Topic, pp.Partition, pp.Offset)
		}
		k := tp{pp.Topic, pp.Partition}
		if seen[k] {
			return nil, fmt.Errorf("kafkaoffset: reset: %s/%d given twice", pp.Topic, pp.Partition)
		}
		seen[k] = true
		if !seenTopic(topics, pp.Topic) {
			topics = append(topics, pp.Topic)
		}
	}

	adm := kadm.NewClient(client)
	if err := groupMembers(ctx, adm, group, true); err != nil {
		var gm *GroupMembersError
		if errors.As(err, &gm) {
			return nil, err
		}
		return nil, fmt.Errorf("kafkaoffset: reset: describe group %s: %w", redact.Quote(group), err)
	}

	starts, err := adm.ListStartOffsets(ctx, topics...)
	if err != nil && starts == nil {
		return nil, fmt.Errorf("kafkaoffset: reset: list log start offsets: %w", err)
	}
	ends, err := adm.ListEndOffsets(ctx, topics...)
	if err != nil && ends == nil {
		return nil, fmt.Errorf("kafkaoffset: reset: list end offsets: %w", err)
	}
	current := map[tp]int64{}
	fetched, err := adm.FetchOffsets(ctx, group)
	switch {
	case errors.Is(err, kerr.GroupIDNotFound):
	case err != nil:
		return nil, fmt.Errorf("kafkaoffset: reset: fetch offsets of group %s: %w", redact.Quote(group), err)
	default:
		fetched.Each(func(o kadm.OffsetResponse) {
			if o.Err == nil && o.At >= 0 {
				current[tp{o.Topic, o.Partition}] = o.At
			}
		})
	}

	plan := make([]ResetPartition, 0, len(p.Partitions))
	commit := make(kadm.Offsets)
	for _, pp := range p.Partitions {
		rp := ResetPartition{Topic: pp.Topic, Partition: pp.Partition, Current: -1, Target: -1, Start: -1, End: -1}
		if c, ok := current[tp{pp.Topic, pp.Partition}]; ok {
			rp.Current = c
		}
		s, sok := starts.Lookup(pp.Topic, pp.Partition)
		e, eok := ends.Lookup(pp.Topic, pp.Partition)
		switch {
		case !sok || !eok:
			rp.Err = fmt.Errorf("kafkaoffset: reset: %s/%d: partition not listed (missing topic or partition, or its broker failed)", pp.Topic, pp.Partition)
		case s.Err != nil:
			rp.Err = fmt.Errorf("kafkaoffset: reset: %s/%d: list log start offset: %w", pp.Topic, pp.Partition, s.Err)
		case e.Err != nil:
			rp.Err = fmt.Errorf("kafkaoffset: reset: %s/%d: list end offset: %w", pp.Topic, pp.Partition, e.Err)
		default:
			rp.Start, rp.End = s.Offset, e.Offset
			// kafka-consumer-groups clamps --to-offset, --shift-by and
			// --from-file into [start, end] the same way.
			rp.Target = min(max(pp.Offset, rp.Start), rp.End)
			rp.Clamped = rp.Target != pp.Offset
			commit.AddOffset(pp.Topic, pp.Partition, rp.Target, -1)
		}
		plan = append(plan, rp)
	}
	if execute && len(commit) > 0 && !hasErr(plan) {
		resps, err := adm.CommitOffsets(ctx, group, commit)
		if err != nil {
			return plan, fmt.Errorf("kafkaoffset: reset: commit to group %s: %w", redact.Quote(group), err)
		}
		for i := range plan {
			if r, ok := resps.Lookup(plan[i].Topic, plan[i].Partition); ok && r.Err != nil {
				plan[i].Err = fmt.Errorf("kafkaoffset: reset: %s/%d: commit: %w", plan[i].Topic, plan[i].Partition, r.Err)
			}
		}
	}
	perr := PartitionErrors{Total: len(plan)}
	for _, rp := range plan {
		if rp.Err != nil {
			perr.Errs = append(perr.Errs, rp.Err)
		}
	}
	if len(perr.Errs) > 0 {
		return plan, &perr
	}
	return plan, nil
}

// hasErr: a plan with a failed partition commits nothing, so a group is
// never left half reset.
func hasErr(plan []ResetPartition) bool {
	for _, rp := range plan {
		if rp.Err != nil {
			return true
		}
	}
	return false
}

func seenTopic(ts []string, t string) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}
