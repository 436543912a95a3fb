package salvage_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// TestSinkNotChecked: a salvaged committer whose sink nothing asked is
// data-loss with salvage.sink-not-checked saying what is at stake: for a
// KafkaSink with no sink checker, that the brokers would say, and that
// only a restore commits them, until the snapshot's time + the assumed
// transaction timeout (15 min, or Checkers.KafkaSinkTimeout); for a
// Paimon committer without its table, that the table would say. The
// deadline is the restore's: the salvage candidate's valid_until is not
// it, and not assumed. A KafkaSink asked of its brokers is not warned.
func TestSinkNotChecked(t *testing.T) {
	ctx := context.Background()
	w, b := committerSavepoint(t, flinkckpttest.KafkaCommitterElement(8, "orders-sink-0-8", 7, 0), emptyCollector)
	wp, lp := paimonSinkSavepoint(t)
	cl := kafkaCluster(t, 2, 100)
	for _, tc := range []struct {
		name string
		opts *salvage.Options
		says string // "": no salvage.sink-not-checked
		at   time.Duration
	}{
		{"kafka, no checker", &salvage.Options{Snapshot: w.Dir}, "not checked against the sink's brokers", 15 * time.Minute},
		{"kafka, timeout given", &salvage.Options{Snapshot: w.Dir, Live: &livecheck.Checkers{KafkaSinkTimeout: time.Minute}}, "transaction timeout of 1m0s", time.Minute},
		{"kafka, asked", &salvage.Options{Snapshot: w.Dir, Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: cl}}}, "", 0},
		{"paimon, no table", &salvage.Options{Snapshot: wp.Dir}, "no Paimon sink table given (Options.Live.PaimonSink, --paimon-sink-table)", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bucket := b
			if strings.HasPrefix(tc.name, "paimon") {
				bucket = lp.Bucket
			}
			r, err := salvage.NewResolver(bucket, "", tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			c, err := r.Resolve(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got := warning(c, salvage.WarnSinkNotChecked)
			if c.Guarantee != resume.DataLoss || c.ValidUntilAssumed || (tc.says == "") != (got == "") || !strings.Contains(got, tc.says) {
				t.Fatalf("guarantee %s (valid until assumed %v); warning %q; warnings %v", c.Guarantee, c.ValidUntilAssumed, got, c.Warnings)
			}
			if tc.at != 0 && !strings.Contains(got, "only until "+c.At.Add(tc.at).UTC().Format(time.RFC3339)) {
				t.Errorf("warning does not give the assumed deadline %s: %q", c.At.Add(tc.at).UTC().Format(time.RFC3339), got)
			}
		})
	}
}
