package kafkaoffset

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TopicConfig is what a topic's configuration says about reading it again,
// as one DescribeConfigs request answered.
type TopicConfig struct {
	// CleanupPolicy is cleanup.policy: "delete", "compact" or
	// "compact,delete"; "" when not read.
	CleanupPolicy string
	// DeleteRetention is delete.retention.ms: how long compaction keeps a
	// tombstone; -1 when not read.
	DeleteRetention time.Duration
	// Retention is retention.ms: how long a record is kept at least
	// (time-based deletion); -1 when unlimited (retention.ms -1) or not
	// read (RetentionRead false).
	Retention time.Duration
	// RetentionBytes is retention.bytes, a partition's size limit: -1 when
	// unlimited or not read.
	RetentionBytes int64
	// RetentionRead reports that retention.ms and retention.bytes were read.
	RetentionRead bool
	// TimestampType is message.timestamp.type: "CreateTime" (set by the
	// producer) or "LogAppendTime" (the broker's clock); "" when not read.
	TimestampType string
	// Err is why the configuration could not be read (the client may lack
	// the DescribeConfigs permission on the topic).
	Err error
}

// Compacted reports whether cleanup.policy includes compact.
func (c TopicConfig) Compacted() bool {
	for _, p := range strings.Split(c.CleanupPolicy, ",") {
		if strings.TrimSpace(p) == "compact" {
			return true
		}
	}
	return false
}

// LogAppendTime reports whether message.timestamp.type is LogAppendTime.
func (c TopicConfig) LogAppendTime() bool { return c.TimestampType == "LogAppendTime" }

// The configuration names read with DescribeConfigs.
const (
	configCleanupPolicy   = "cleanup.policy"
	configDeleteRetention = "delete.retention.ms"
	configTimestampType   = "message.timestamp.type"
	configRetention       = "retention.ms"
	configRetentionBytes  = "retention.bytes"
)

// describeConfigs reads the configurations of every topic (cleanup policy,
// tombstone retention, timestamp type, retention.ms and retention.bytes) with one
// DescribeConfigs request. A failure is not an error: each topic's config
// carries it (the grade then says what it assumed). Only a done ctx is an
// error.
func (r *Resolver) describeConfigs(ctx context.Context) (map[string]TopicConfig, error) {
	out := make(map[string]TopicConfig, len(r.topics))
	fail := func(err error) {
		for _, t := range r.topics {
			out[t] = TopicConfig{DeleteRetention: -1, Retention: -1, RetentionBytes: -1, Err: err}
		}
	}
	req := kmsg.NewPtrDescribeConfigsRequest()
	for _, t := range r.topics {
		rr := kmsg.NewDescribeConfigsRequestResource()
		rr.ResourceType = kmsg.ConfigResourceTypeTopic
		rr.ResourceName = t
		rr.ConfigNames = []string{configCleanupPolicy, configDeleteRetention, configTimestampType, configRetention, configRetentionBytes}
		req.Resources = append(req.Resources, rr)
	}
	resp, err := req.RequestWith(ctx, r.cl)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("kafkaoffset: describe topic configs: %w", ctx.Err())
		}
		fail(fmt.Errorf("describe configs: %w", err))
		return out, nil
	}
	for _, res := range resp.Resources {
		c := TopicConfig{DeleteRetention: -1, Retention: -1, RetentionBytes: -1}
		if err := kerr.ErrorForCode(res.ErrorCode); err != nil {
			msg := ""
			if res.ErrorMessage != nil {
				msg = ": " + *res.ErrorMessage
			}
			c.Err = fmt.Errorf("describe configs of topic %q: %w%s", res.ResourceName, err, msg)
			out[res.ResourceName] = c
			continue
		}
		var errs []error
		for _, rc := range res.Configs {
			if rc.Value == nil {
				continue
			}
			switch v := *rc.Value; rc.Name {
			case configCleanupPolicy:
				c.CleanupPolicy = v
			case configTimestampType:
				c.TimestampType = v
			case configDeleteRetention:
				ms, err := strconv.ParseInt(v, 10, 64)
				if err != nil || ms < 0 {
					errs = append(errs, fmt.Errorf("topic %q: %s %q is not a duration in milliseconds", res.ResourceName, configDeleteRetention, v))
					continue
				}
				c.DeleteRetention = time.Duration(min(ms, int64(maxDuration/time.Millisecond))) * time.Millisecond
			case configRetention:
				ms, err := strconv.ParseInt(v, 10, 64)
				if err != nil || ms < -1 {
					errs = append(errs, fmt.Errorf("topic %q: %s %q is not a duration in milliseconds", res.ResourceName, configRetention, v))
					continue
				}
				c.RetentionRead = true
				if ms >= 0 {
					c.Retention = time.Duration(min(ms, int64(maxDuration/time.Millisecond))) * time.Millisecond
				}
			case configRetentionBytes:
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil || n < -1 {
					errs = append(errs, fmt.Errorf("topic %q: %s %q is not a size in bytes", res.ResourceName, configRetentionBytes, v))
					continue
				}
				c.RetentionBytes = n
			}
		}
		c.Err = errors.Join(errs...)
		out[res.ResourceName] = c
	}
	for _, t := range r.topics {
		if _, ok := out[t]; !ok {
			out[t] = TopicConfig{DeleteRetention: -1, Retention: -1, RetentionBytes: -1, Err: fmt.Errorf("describe configs: topic %q not in the answer", t)}
		}
	}
	return out, nil
}

const maxDuration = time.Duration(1<<63 - 1)
