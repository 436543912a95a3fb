package salvage_test

import (
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// TestPositionContract: the position keeps the rules of every resolver
// package's position (value receivers; read back from a decision document,
// PositionOf gives the same JSON, summary and launch), with every source
// kind and with one source.
func TestPositionContract(t *testing.T) {
	all := goldenPosition()
	one := salvage.Position{Snapshot: all.Snapshot, SnapshotKey: all.SnapshotKey, CheckpointID: 1, Sources: all.Sources[1:2]}
	for _, p := range []salvage.Position{all, one} {
		for _, err := range resumetest.CheckPosition(p, salvage.PositionOf) {
			t.Error(err)
		}
	}
}
