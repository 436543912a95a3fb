package kafkaoffset

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/resumekit/resumekit/resume/redact"
)

// GroupMembersError is the error of a group that has members. A Flink
// KafkaSource never joins its group (its readers use assign()), so members
// mean another application uses the same group id: the commits may be its
// own, not the job's. [ResetGroup] refuses such a group too, because the
// members would overwrite the reset with their next commit. It matches
// [ErrGroupNotEmpty] with errors.Is.
type GroupMembersError struct {
	Group string
	// State is the group's state as the coordinator reports it (Stable,
	// PreparingRebalance, CompletingRebalance, …).
	State string
	// Members are the members' client ids and hosts ("client-1@/10.0.0.7").
	Members []string
	// Reset is set when the error comes from ResetGroup.
	Reset bool
	// Type is the group's type: "classic" (DescribeGroups found the
	// members) or "consumer" (a KIP-848 group, generally available since
	// Kafka 4.0, whose members only ConsumerGroupDescribe shows).
	Type string
}

func (e *GroupMembersError) kind() string {
	if e.Type == "consumer" {
		return " (consumer protocol, KIP-848)"
	}
	return ""
}

func (e *GroupMembersError) Error() string {
	shown := e.Members
	more := ""
	if len(shown) > 3 {
		shown, more = shown[:3], fmt.Sprintf(" and %d more", len(e.Members)-3)
	}
	if e.Reset {
		return fmt.Sprintf("kafkaoffset: reset: the group has active members: group %s%s is %s with %d members (%s%s): stop them first",
			redact.Quote(e.Group), e.kind(), e.State, len(e.Members), strings.Join(shown, ", "), more)
	}
	return fmt.Sprintf("kafkaoffset: the group has active members: group %s%s is %s with %d members (%s%s): KafkaSource never joins its group (assign()), so another application shares the group id and its commits may not be the job's; give the job's own group.id",
		redact.Quote(e.Group), e.kind(), e.State, len(e.Members), strings.Join(shown, ", "), more)
}

// Is reports whether target is ErrGroupNotEmpty.
func (e *GroupMembersError) Is(target error) bool { return target == ErrGroupNotEmpty }

// checkMembers fails with a *GroupMembersError when the group has members.
// An unknown group has none. Retriable errors (the coordinator loading) are
// retried like OffsetFetch.
func (r *Resolver) checkMembers(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		err := r.checkMembersOnce(ctx)
		var gm *GroupMembersError
		if err == nil || errors.As(err, &gm) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("kafkaoffset: describe group %s: %w", redact.Quote(r.group), ctx.Err())
		}
		if !kerr.IsRetriable(err) || attempt >= r.retries {
			return fmt.Errorf("kafkaoffset: describe group %s: %w", redact.Quote(r.group), err)
		}
		if err := r.pause(ctx, attempt); err != nil {
			return fmt.Errorf("kafkaoffset: describe group %s: %w", redact.Quote(r.group), err)
		}
	}
}

func (r *Resolver) checkMembersOnce(ctx context.Context) error {
	return groupMembers(ctx, r.adm, r.group, false)
}

// groupMembers fails with a *GroupMembersError when group has members, of
// either protocol. The classic DescribeGroups shows a classic group's
// members; a group on the KIP-848 consumer protocol shows none there (Kafka
// 4 answers GROUP_ID_NOT_FOUND, or a state without members), so unless
// DescribeGroups found the group classic and Empty, ConsumerGroupDescribe
// is asked too. A broker without ConsumerGroupDescribe (before Kafka 3.7)
// has no consumer-protocol groups.
func groupMembers(ctx context.Context, adm *kadm.Client, group string, reset bool) error {
	described, err := adm.DescribeGroups(ctx, group)
	if err != nil {
		return err
	}
	d, ok := described[group]
	switch {
	case !ok:
	case d.Err != nil && errors.Is(d.Err, kerr.GroupIDNotFound):
	case d.Err != nil:
		return d.Err
	case len(d.Members) > 0:
		e := &GroupMembersError{Group: group, State: d.State, Reset: reset, Type: "classic"}
		for _, m := range d.Members {
			e.Members = append(e.Members, m.ClientID+"@"+m.ClientHost)
		}
		return e
	case d.State == "Empty" && d.ProtocolType != "consumer":
		// A classic group without members (a KafkaSource's commits alone):
		// not a consumer-protocol group.
		return nil
	}
	cds, err := adm.DescribeConsumerGroups(ctx, group)
	if err != nil {
		if unsupportedRequest(err) {
			return nil
		}
		return fmt.Errorf("consumer group describe: %w", err)
	}
	cd, ok := cds[group]
	switch {
	case !ok:
		return nil
	case cd.Err != nil && (errors.Is(cd.Err, kerr.GroupIDNotFound) || errors.Is(cd.Err, kerr.UnsupportedVersion)):
		return nil
	case cd.Err != nil:
		return fmt.Errorf("consumer group describe: %w", cd.Err)
	case len(cd.Members) == 0:
		return nil
	}
	e := &GroupMembersError{Group: group, State: cd.State, Reset: reset, Type: "consumer"}
	for _, m := range cd.Members {
		e.Members = append(e.Members, m.ClientID+"@"+m.ClientHost)
	}
	return e
}

// unsupportedRequest reports whether err says the request cannot be sent:
// the broker does not know it (before Kafka 3.7 for ConsumerGroupDescribe)
// or the client's versions exclude it. kgo's errors for both are not
// exported; their texts are matched, behind kadm's shard errors.
func unsupportedRequest(err error) bool {
	if errors.Is(err, kerr.UnsupportedVersion) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "broker is too old") || strings.Contains(msg, "request key is unknown")
}
