package kafkaoffset_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/resumekit/resumekit/kafkaoffset"
)

func committed(t *testing.T, e *env, group string) map[int32]int64 {
	t.Helper()
	resps, err := e.adm.FetchOffsets(context.Background(), group)
	out := map[int32]int64{}
	if err != nil {
		return out
	}
	for p, o := range resps["t"] {
		out[p] = o.At
	}
	return out
}

func TestResetGroup(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T) (*env, *kafkaoffset.Position) {
		e := newEnv(t, 1, 2, []string{"t"})
		e.produceN(t, "t", 0, 10)
		e.produceN(t, "t", 1, 10)
		e.deleteRecords(t, "t", 1, 4)
		return e, &kafkaoffset.Position{Topics: []string{"t"}, Mode: kafkaoffset.ModeSpecificOffsets, Partitions: []kafkaoffset.Partition{
			{Topic: "t", Partition: 0, Offset: 100}, // past the end: clamped to 10
			{Topic: "t", Partition: 1, Offset: 2},   // below the log start: clamped to 4
		}}
	}
	type row struct {
		P                      int32
		Current, Target, Start int64
		End                    int64
		Clamped                bool
	}
	rowsOf := func(plan []kafkaoffset.ResetPartition) []row {
		var out []row
		for _, p := range plan {
			out = append(out, row{p.Partition, p.Current, p.Target, p.Start, p.End, p.Clamped})
		}
		return out
	}
	t.Run("DryRunCommitsNothing", func(t *testing.T) {
		e, pos := setup(t)
		e.commit(t, "job", "t", map[int32]int64{0: 5})
		plan, err := kafkaoffset.ResetGroup(ctx, e.cl, "job", pos, false)
		if err != nil {
			t.Fatal(err)
		}
		want := []row{{0, 5, 10, 0, 10, true}, {1, -1, 4, 4, 10, true}}
		if diff := cmp.Diff(want, rowsOf(plan)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[int32]int64{0: 5}, committed(t, e, "job")); diff != "" {
			t.Errorf("dry run changed the group (-want +got):\n%s", diff)
		}
	})
	t.Run("Execute", func(t *testing.T) {
		e, pos := setup(t)
		if _, err := kafkaoffset.ResetGroup(ctx, e.cl, "fresh", pos, true); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[int32]int64{0: 10, 1: 4}, committed(t, e, "fresh")); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("RefusedWithMembers", func(t *testing.T) {
		e, pos := setup(t)
		member, err := kgo.NewClient(kgo.SeedBrokers(e.c.ListenAddrs()...), kgo.ConsumerGroup("live"), kgo.ConsumeTopics("t"))
		if err != nil {
			t.Fatal(err)
		}
		defer member.Close()
		// Records come back only once the member joined and was assigned.
		if fs := member.PollRecords(ctx, 1); fs.Err0() != nil || fs.NumRecords() == 0 {
			t.Fatalf("poll: %v", fs.Err0())
		}
		_, err = kafkaoffset.ResetGroup(ctx, e.cl, "live", pos, true)
		if !errors.Is(err, kafkaoffset.ErrGroupNotEmpty) {
			t.Errorf("err = %v, want ErrGroupNotEmpty", err)
		}
	})
	t.Run("MissingPartitionCommitsNothing", func(t *testing.T) {
		e, pos := setup(t)
		pos.Partitions = append(pos.Partitions, kafkaoffset.Partition{Topic: "t", Partition: 7, Offset: 1})
		plan, err := kafkaoffset.ResetGroup(ctx, e.cl, "job2", pos, true)
		var pe *kafkaoffset.PartitionErrors
		if !errors.As(err, &pe) || len(pe.Errs) != 1 || plan[2].Err == nil {
			t.Errorf("err = %v", err)
		}
		if got := committed(t, e, "job2"); len(got) != 0 {
			t.Errorf("a failed plan committed %v", got)
		}
	})
	t.Run("BadInput", func(t *testing.T) {
		e, pos := setup(t)
		for _, tc := range []struct {
			name  string
			group string
			pos   *kafkaoffset.Position
		}{
			{"NoGroup", "", pos},
			{"NilPosition", "g", nil},
			{"Duplicate", "g", &kafkaoffset.Position{Partitions: []kafkaoffset.Partition{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 0}}}},
			{"NegativeOffset", "g", &kafkaoffset.Position{Partitions: []kafkaoffset.Partition{{Topic: "t", Partition: 0, Offset: -1}}}},
		} {
			if _, err := kafkaoffset.ResetGroup(ctx, e.cl, tc.group, tc.pos, true); err == nil {
				t.Errorf("%s: no error", tc.name)
			}
		}
	})
}
