package kafkaoffset_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
)

// ValidUntil on kfake: the start record's timestamp plus the topic's
// retention.ms, to the second, the earliest over the partitions; with
// retention.bytes set too the reason names it. A start at the end offset
// (nothing to read yet) constrains nothing. The configs come with the one
// DescribeConfigs request the resolver already makes, the record times
// with at most one Fetch per broker.
func TestValidUntil(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		configs map[string]string
		want    time.Time
		bytes   bool
	}{
		{"RetentionMs", map[string]string{"retention.ms": "3600000"}, t0.Add(2*time.Second + time.Hour), false},
		{"RetentionBytesNamed", map[string]string{"retention.ms": "7200000", "retention.bytes": "1048576"}, t0.Add(2*time.Second + 2*time.Hour), true},
		{"Unlimited", map[string]string{"retention.ms": "-1"}, time.Time{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{{Name: "orders", Partitions: 3, Configs: tc.configs}}})
			e := &env{c: k.Kafka}
			dc, fe := observe(e, kmsg.DescribeConfigs), observe(e, kmsg.Fetch)
			for p := range int32(3) {
				k.Produce("orders", p, t0, t0.Add(time.Second), t0.Add(2*time.Second), t0.Add(3*time.Second), t0.Add(4*time.Second))
			}
			// Partition 0 starts at offset 2 (t0+2s), partition 1 at 3
			// (t0+3s), partition 2 at its end (5): nothing to read yet.
			k.Commit("job", "orders", map[int32]int64{0: 2, 1: 3, 2: 5})
			r, err := kafkaoffset.NewResolver(k.Client, []string{"orders"}, &kafkaoffset.Options{Group: "job"})
			if err != nil {
				t.Fatal(err)
			}
			c, err := r.Resolve(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !c.ValidUntil.Equal(tc.want) {
				t.Fatalf("ValidUntil %v, want %v", c.ValidUntil, tc.want)
			}
			reasons := strings.Join(c.Reasons, "\n")
			if !tc.want.IsZero() && (!strings.Contains(reasons, "valid until "+tc.want.Format(time.RFC3339)+": kafka orders/0") || !strings.Contains(reasons, "retention.ms")) {
				t.Errorf("reasons:\n%s", reasons)
			}
			if got := strings.Contains(reasons, "retention.bytes 1048576 is set too"); got != tc.bytes {
				t.Errorf("retention.bytes named: %v, want %v:\n%s", got, tc.bytes, reasons)
			}
			if dc.total() != 1 || fe.max() > 1 {
				t.Errorf("%d DescribeConfigs, at most %d Fetch per broker: want 1 and 1", dc.total(), fe.max())
			}
		})
	}
}
