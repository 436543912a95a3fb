package kafkaoffset_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// TestPositionContract: the position keeps the rules of every resolver
// package's position (value receivers; read back from a decision document,
// PositionOf gives the same JSON, summary and launch), with one topic, by
// time, and with two topics.
func TestPositionContract(t *testing.T) {
	byTime := kafkaoffset.Position{Topics: []string{"orders"}, TimestampMillis: 1795946400000, Mode: kafkaoffset.ModeTimestamp,
		Partitions: []kafkaoffset.Partition{{Topic: "orders", Start: 0, End: 9, ByTime: i64(3), Offset: 3, From: kafkaoffset.FromTime, Reason: "by time"}}}
	two := kafkaoffset.Position{Topics: []string{"a", "b"}, Group: "g", Mode: kafkaoffset.ModeSpecificOffsets,
		Partitions: []kafkaoffset.Partition{{Topic: "a", Offset: 1, From: kafkaoffset.FromCommit, Reason: "r"}, {Topic: "b", Offset: 2, From: kafkaoffset.FromLogStart, Reason: "r"}}}
	for _, p := range []kafkaoffset.Position{*goldenPosition(), byTime, two} {
		for _, err := range resumetest.CheckPosition(p, kafkaoffset.PositionOf) {
			t.Error(err)
		}
	}
}

// TestResolverContract: the resolver keeps the resume.Resolver contract
// (resumetest.CheckResolver) starting at a group's commits, by time, and
// with a group that has no commits and no time (no position).
func TestResolverContract(t *testing.T) {
	e := newEnv(t, 1, 2, []string{"t"})
	e.produceN(t, "t", 0, 3)
	e.produceN(t, "t", 1, 3)
	e.commit(t, "job", "t", map[int32]int64{0: 1, 1: 2})
	now := func() time.Time { return base.Add(time.Hour) }
	for _, tc := range []struct {
		opts kafkaoffset.Options
		none bool // no position
	}{
		{kafkaoffset.Options{Group: "job", Now: now}, false},
		{kafkaoffset.Options{At: base.Add(time.Second), Now: now}, false},
		{kafkaoffset.Options{Group: "nobody", Now: now}, true},
	} {
		opts := tc.opts
		r := mustResolver(t, e, []string{"t"}, &opts)
		// The check passes a resolver that fails: say what it answers.
		if _, err := r.Resolve(context.Background()); (err != nil) != tc.none || tc.none && !errors.Is(err, resume.ErrNoPosition) {
			t.Errorf("%+v: err %v, want no position: %v", opts, err, tc.none)
		}
		for _, err := range resumetest.CheckResolver(context.Background(), r) {
			t.Errorf("%+v: %v", opts, err)
		}
	}
}
