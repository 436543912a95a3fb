package paimon_test

import (
	"testing"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// TestPositionContract: the position keeps the rules of every resolver
// package's position (value receivers; read back from a decision document,
// PositionOf gives the same JSON, summary and launch).
func TestPositionContract(t *testing.T) {
	for _, p := range []paimon.Position{goldenPosition(), rollbackPosition()} {
		for _, err := range resumetest.CheckPosition(p, paimon.PositionOf) {
			t.Error(err)
		}
	}
}
