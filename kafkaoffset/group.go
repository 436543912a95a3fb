package kafkaoffset

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
}

func (e *GroupMembersError) Error() string {
	shown := e.Members
	more := ""
	if len(shown) > 3 {
		shown, more = shown[:3], fmt.Sprintf(" and %d more", len(e.Members)-3)
	}
	if e.Reset {
		return fmt.Sprintf("kafkaoffset: reset: the group has active members: group %s is %s with %d members (%s%s): stop them first",
			redact.Quote(e.Group), e.State, len(e.Members), strings.Join(shown, ", "), more)
	}
	return fmt.Sprintf("kafkaoffset: the group has active members: group %s is %s with %d members (%s%s): KafkaSource never joins its group (assign()), so another application shares the group id and its commits may not be the job's; give the job's own group.id",
		redact.Quote(e.Group), e.State, len(e.Members), strings.Join(shown, ", "), more)
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
	described, err := r.adm.DescribeGroups(ctx, r.group)
	if err != nil {
		return err
	}
	d, ok := described[r.group]
	switch {
	case !ok:
		return nil
	case d.Err != nil && errors.Is(d.Err, kerr.GroupIDNotFound):
		return nil
	case d.Err != nil:
		return d.Err
	case len(d.Members) == 0:
		return nil
	}
	e := &GroupMembersError{Group: r.group, State: d.State}
	for _, m := range d.Members {
		e.Members = append(e.Members, m.ClientID+"@"+m.ClientHost)
	}
	return e
}
