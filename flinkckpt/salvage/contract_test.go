package salvage_test

import (
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/resume"
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

// TestPositionOfRejects: a source whose positions do not fit its kind is
// refused, saying what is wrong with it.
func TestPositionOfRejects(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"PaimonWithoutPosition", `{"sources":[{"operator_id":"a","kind":"paimon","positions":[]}]}`, "paimon source a: 0 positions, want one"},
		{"MySQLWithTwo", `{"sources":[{"operator_id":"b","kind":"mysql-cdc","positions":[{},{}]}]}`, "mysql-cdc source b: 2 positions, want one"},
		{"KafkaNotAList", `{"sources":[{"operator_id":"c","kind":"kafka","positions":{}}]}`, "kafka source c: positions:"},
		{"UnknownKind", `{"sources":[{"operator_id":"d","kind":"unknown","positions":[]}]}`, `source d of kind "unknown"`},
		{"NoSources", `{"snapshot":"s"}`, "no sources field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := salvage.PositionOf(&resume.RawPosition{PositionKind: salvage.KindSalvage, JSON: []byte(tc.json)})
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "<nil>") {
				t.Errorf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}
