package livecheck_test

import (
	"testing"
	"time"

	"github.com/resumekit/resumekit/resume/livecheck"
)

// The rule of CheckKafkaSink, one broker answer at a time: what a
// restore's commit of the snapshot's transaction (producer id 7, epoch 3)
// then finds.
func TestTxnVerdict(t *testing.T) {
	p := livecheck.KafkaPendingTxn{CheckpointID: 8, TransactionalID: "s-0-8", ProducerID: 7, Epoch: 3}
	start := time.Date(2026, 12, 2, 8, 0, 0, 123_000_000, time.UTC)
	for _, tc := range []struct {
		name    string
		b       livecheck.KafkaTxn
		known   bool
		verdict string
		several bool
	}{
		{"ongoing", livecheck.KafkaTxn{State: "Ongoing", ProducerID: 7, Epoch: 3, Start: start, Timeout: 15 * time.Minute}, true, livecheck.SinkOpen, false},
		{"prepare commit", livecheck.KafkaTxn{State: "PrepareCommit", ProducerID: 7, Epoch: 3, Start: start, Timeout: time.Minute}, true, livecheck.SinkOpen, false},
		{"committed", livecheck.KafkaTxn{State: "CompleteCommit", ProducerID: 7, Epoch: 3}, true, livecheck.SinkCommitted, false},
		{"aborted at timeout (epoch bumped)", livecheck.KafkaTxn{State: "CompleteAbort", ProducerID: 7, Epoch: 4}, true, livecheck.SinkLost, false},
		{"prepare abort", livecheck.KafkaTxn{State: "PrepareAbort", ProducerID: 7, Epoch: 3}, true, livecheck.SinkLost, false},
		{"kfake empty after the abort", livecheck.KafkaTxn{State: "Empty", ProducerID: 7, Epoch: 4}, true, livecheck.SinkLost, false},
		{"transactions v2: committed at a bumped epoch", livecheck.KafkaTxn{State: "CompleteCommit", ProducerID: 7, Epoch: 4}, true, livecheck.SinkUnknown, true},
		{"pooling: a newer transaction open", livecheck.KafkaTxn{State: "Ongoing", ProducerID: 7, Epoch: 5, Start: start, Timeout: time.Minute}, true, livecheck.SinkUnknown, true},
		{"another producer id", livecheck.KafkaTxn{State: "Ongoing", ProducerID: 9, Epoch: 0}, true, livecheck.SinkUnknown, false},
		{"forgotten id", livecheck.KafkaTxn{}, false, livecheck.SinkUnknown, false},
		{"dead", livecheck.KafkaTxn{State: "Dead", ProducerID: 7, Epoch: 3}, true, livecheck.SinkUnknown, false},
	} {
		got := livecheck.TxnVerdict(p, tc.b, tc.known)
		if got.Verdict != tc.verdict || got.Several != tc.several || got.Why == "" {
			t.Errorf("%s: %+v, want %s (several %v)", tc.name, got, tc.verdict, tc.several)
		}
		if tc.verdict == livecheck.SinkOpen && !got.Deadline.Equal(start.Add(tc.b.Timeout)) {
			t.Errorf("%s: deadline %s", tc.name, got.Deadline)
		}
	}
}
