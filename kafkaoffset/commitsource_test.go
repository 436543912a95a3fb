package kafkaoffset_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
	"github.com/resumekit/resumekit/resume"
)

// TestResolveCommitSource: commits made on checkpoints are a replay point;
// commits made by auto-commit run ahead of processing (possible loss), and
// so may commits of unknown origin. The offsets are the same in every case:
// only the grade and its wording change.
func TestResolveCommitSource(t *testing.T) {
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{{Name: "t", Partitions: 2}}})
	k.Produce("t", 0, secs(0, 5)...)
	k.Produce("t", 1, secs(0, 3)...)
	k.Commit("job", "t", map[int32]int64{0: 3})
	for _, tc := range []struct {
		name      string
		source    kafkaoffset.CommitSource
		guarantee resume.Guarantee
		assumed   bool
		reason    string
	}{
		{"Default", "", resume.Replay, true, ""},
		{"Checkpoint", kafkaoffset.CommitOnCheckpoint, resume.Replay, true, ""},
		{"Auto", kafkaoffset.CommitAuto, resume.DataLoss, false, "possible loss: auto-commit runs ahead of processing"},
		{"Unknown", kafkaoffset.CommitUnknown, resume.DataLoss, false, "possible loss: how the old job committed is unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, p := resolve(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", CommitSource: tc.source})
			if c.Guarantee != tc.guarantee {
				t.Errorf("guarantee %s, want %s", c.Guarantee, tc.guarantee)
			}
			if diff := cmp.Diff([]int64{3, 0}, offsets(p)); diff != "" {
				t.Errorf("offsets (-want +got):\n%s", diff)
			}
			if c.HasWarning(kafkaoffset.WarnCommitSourceAssumed) != tc.assumed {
				t.Errorf("warning %s present %v, want %v", kafkaoffset.WarnCommitSourceAssumed, !tc.assumed, tc.assumed)
			}
			if tc.reason != "" {
				contains(t, "reasons", c.Reasons, tc.reason, "1 partitions start at a commit: t/0")
			}
		})
	}
	t.Run("ByTimeOnly", func(t *testing.T) {
		// No start at a commit: how commits were made does not matter.
		c, p := resolve(t, k.Client, []string{"t"}, &kafkaoffset.Options{At: base.Add(time.Second), CommitSource: kafkaoffset.CommitAuto})
		if c.Guarantee != resume.Replay || c.HasWarning(kafkaoffset.WarnCommitSourceAssumed) {
			t.Errorf("guarantee %s, warnings %v", c.Guarantee, c.Warnings)
		}
		if diff := cmp.Diff([]int64{1, 1}, offsets(p)); diff != "" {
			t.Errorf("offsets (-want +got):\n%s", diff)
		}
	})
	t.Run("Invalid", func(t *testing.T) {
		_, err := kafkaoffset.NewResolver(k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", CommitSource: "sometimes"})
		if err == nil || !strings.Contains(err.Error(), `unknown commit source "sometimes"`) {
			t.Errorf("err = %v", err)
		}
		_, err = kafkaoffset.NewResolver(k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", IsolationLevel: "read_some"})
		if err == nil || !strings.Contains(err.Error(), `unknown isolation level "read_some"`) {
			t.Errorf("err = %v", err)
		}
	})
}
