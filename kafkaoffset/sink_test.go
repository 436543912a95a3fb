package kafkaoffset_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
	"github.com/resumekit/resumekit/resume"
)

// A stateless Kafka job (upgradeMode stateless) whose KafkaSink left a
// transaction open when it stopped: given the sink's transactional id
// prefix, the start at the group's commits is data-loss naming the
// transaction and its partition; without the prefix it stays replay; a
// prefix with nothing open changes nothing.
func TestStatelessSinkTransactionOpen(t *testing.T) {
	ctx := context.Background()
	k := kafkaoffsettest.New(t, nil)
	k.CreateTopic(kafkaoffsettest.Topic{Name: "orders", Partitions: 1})
	k.CreateTopic(kafkaoffsettest.Topic{Name: "out", Partitions: 1})
	t0 := time.Now().Add(-time.Hour)
	k.Produce("orders", 0, t0, t0.Add(time.Second), t0.Add(2*time.Second))
	k.Commit("g", "orders", map[int32]int64{0: 2})
	tx := k.BeginTransaction("job-sink-0-5")
	tx.Produce("out", 0, time.Now())
	grade := func(prefix string) resume.Candidate {
		t.Helper()
		r, err := kafkaoffset.NewResolver(k.Client, []string{"orders"}, &kafkaoffset.Options{Group: "g", Sink: kafkaoffset.Log{Client: k.Client}, SinkPrefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := grade("job-sink")
	var w string
	for _, x := range c.Warnings {
		if x.Code == kafkaoffset.WarnSinkTransactions {
			w = x.Text
		}
	}
	if c.Guarantee != resume.DataLoss || !strings.Contains(w, "job-sink-0-5") || !strings.Contains(w, "out/0") {
		t.Errorf("open: %s %q", c.Guarantee, w)
	}
	if c := grade(""); c.Guarantee != resume.Replay || c.HasWarning(kafkaoffset.WarnSinkTransactions) {
		t.Errorf("no prefix: %s %v", c.Guarantee, c.Warnings)
	}
	if c := grade("other-sink"); c.Guarantee != resume.Replay || c.HasWarning(kafkaoffset.WarnSinkTransactions) {
		t.Errorf("another prefix: %s %v", c.Guarantee, c.Warnings)
	}
}
