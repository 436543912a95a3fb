package flinkckpt_test

import (
	"testing"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// TestPositionContract: checkpoints and savepoints keep the rules of every
// resolver package's position (value receivers; read back from a decision
// document, PositionOf gives the same JSON, summary and launch).
func TestPositionContract(t *testing.T) {
	savepoint := flinkckpt.Position{Path: "s3a://bucket/sp/savepoint-aaaaaa-0123456789ab", Key: "sp/savepoint-aaaaaa-0123456789ab/",
		CheckpointID: 43, Savepoint: true, Format: "CANONICAL", Version: 4, Drained: true, ClaimMode: "CLAIM", FlinkVersion: "1.19",
		AllowNonRestoredState: true}
	for _, p := range []flinkckpt.Position{goldenPosition(), savepoint, {Key: "ck/chk-7/", CheckpointID: 7, KindUnknown: true}} {
		for _, err := range resumetest.CheckPosition(p, flinkckpt.PositionOf) {
			t.Error(err)
		}
	}
}
