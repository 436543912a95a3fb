package kafkaoffset_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
	"github.com/resumekit/resumekit/resume"
)

// TestResolveCompactedTopic: on a compacted topic a start further behind
// than delete.retention.ms may miss deletes (their tombstones compacted
// away): a warning, data loss under Strict. The policy is named in a
// reason either way.
func TestResolveCompactedTopic(t *testing.T) {
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{CommitLog: true, Topics: []kafkaoffsettest.Topic{
		{Name: "c", Compacted: true, Configs: map[string]string{"delete.retention.ms": "3600000"}},
		{Name: "cd", Configs: map[string]string{"cleanup.policy": "compact,delete"}},
		{Name: "d"},
	}})
	for _, topic := range []string{"c", "cd", "d"} {
		k.ProduceRecords(topic, 0,
			kafkaoffsettest.Record{Key: []byte("a"), Value: []byte("1"), Time: base},
			kafkaoffsettest.Record{Key: []byte("b"), Value: []byte("1"), Time: base.Add(time.Second)},
			kafkaoffsettest.Record{Key: []byte("a"), Time: base.Add(2 * time.Second)}, // tombstone
		)
		k.CommitAt(base.Add(time.Minute), "job", topic, map[int32]int64{0: 2})
	}
	for _, tc := range []struct {
		name      string
		topic     string
		opts      kafkaoffset.Options
		now       time.Duration
		guarantee resume.Guarantee
		warn      bool
		reason    string
	}{
		{"WithinDeleteRetention", "c", kafkaoffset.Options{Group: "job"}, 30 * time.Minute, resume.Replay, false, `topic "c" has cleanup.policy=compact`},
		{"BehindDeleteRetention", "c", kafkaoffset.Options{Group: "job"}, 2 * time.Hour, resume.Replay, true, "delete.retention.ms (1h0m0s)"},
		{"BehindDeleteRetentionStrict", "c", kafkaoffset.Options{Group: "job", Strict: true}, 2 * time.Hour, resume.DataLoss, true, "possible loss (Options.Strict): 1 partitions of compacted topics start further behind than delete.retention.ms"},
		{"ByTimeBehind", "c", kafkaoffset.Options{At: base}, 2 * time.Hour, resume.Replay, true, `topic "c" has cleanup.policy=compact`},
		{"CompactDeleteDefaultRetention", "cd", kafkaoffset.Options{Group: "job", Strict: true}, 25 * time.Hour, resume.DataLoss, true, `topic "cd" has cleanup.policy=compact,delete`},
		{"CompactDeleteWithinDefault", "cd", kafkaoffset.Options{Group: "job", Strict: true}, 23 * time.Hour, resume.Replay, false, "delete.retention.ms (24h0m0s)"},
		{"NotCompacted", "d", kafkaoffset.Options{Group: "job", Strict: true}, 48 * time.Hour, resume.Replay, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			o.Now = func() time.Time { return base.Add(tc.now) }
			c, p := resolve(t, k.Client, []string{tc.topic}, &o)
			if c.Guarantee != tc.guarantee || c.HasWarning(kafkaoffset.WarnTombstonesMayBeGone) != tc.warn {
				t.Errorf("%s, tombstone warning %v; want %s, %v\n%v", c.Guarantee, !tc.warn, tc.guarantee, tc.warn, c.Warnings)
			}
			if want := int64(2); o.Group == "" {
				want = 0
				if p.Partitions[0].Offset != want {
					t.Errorf("offset %d, want %d", p.Partitions[0].Offset, want)
				}
			} else if p.Partitions[0].Offset != want {
				t.Errorf("offset %d, want %d", p.Partitions[0].Offset, want)
			}
			if tc.reason != "" {
				contains(t, "reasons", c.Reasons, tc.reason)
			}
		})
	}
}

// TestResolveConfigsUnread: a client without DescribeConfigs on a topic
// still resolves; the candidate says what it assumed.
func TestResolveConfigsUnread(t *testing.T) {
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{{Name: "t", Compacted: true}}})
	k.Produce("t", 0, secs(0, 3)...)
	k.Commit("job", "t", map[int32]int64{0: 2})
	k.Kafka.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DescribeConfigs}, Resource: "t", Err: kerr.TopicAuthorizationFailed, Count: -1})
	r := newResolver(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", Strict: true, Now: func() time.Time { return base.Add(48 * time.Hour) }})
	res, err := r.Offsets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Config.Err == nil || res[0].Config.CleanupPolicy != "" || res[0].Offset != 2 {
		t.Errorf("config %+v, offset %d", res[0].Config, res[0].Offset)
	}
	c, err := r.Grade(res)
	if err != nil {
		t.Fatal(err)
	}
	if c.Guarantee != resume.Replay || !c.HasWarning(kafkaoffset.WarnConfigsUnread) {
		t.Errorf("%s, warnings %v", c.Guarantee, c.Warnings)
	}
	contains(t, "warnings", c.Warnings, "the configuration of t could not be read", "TOPIC_AUTHORIZATION_FAILED", "assumed cleanup.policy=delete")
}
