package salvage_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/resume"
)

var update = flag.Bool("update", false, "rewrite golden files")

func i64(v int64) *int64 { return &v }

func goldenPosition() salvage.Position {
	return salvage.Position{
		Snapshot: "s3a://b/sp/savepoint-3c7c0a-07c49f841952", SnapshotKey: "sp/savepoint-3c7c0a-07c49f841952/", CheckpointID: 1,
		Sources: []salvage.Source{
			{OperatorID: "cb16aa5adb311e8ac72482def19accbe", UID: "kafka-source-operator-uid", Kind: sourcestate.KindKafka, Checked: true,
				Kafka: []salvage.KafkaStart{
					{Topic: "topic", Partition: 0, Offset: 10, LogStart: i64(0), LogEnd: i64(20)},
					{Topic: "topic", Partition: 1, Offset: 15, LogStart: i64(15), LogEnd: i64(20), Lost: 5},
					{Topic: "topic", Partition: 2, Offset: 0, Marker: sourcestate.MarkerEarliest, Resolved: true, LogStart: i64(0), LogEnd: i64(20)},
				},
				Options: map[string]string{"scan.startup.mode": "specific-offsets", "scan.startup.specific-offsets": "partition:0,offset:10;partition:1,offset:15;partition:2,offset:0"}},
			{OperatorID: "a4122ae5704b2a344a4284a3b4b9ee29", Kind: sourcestate.KindPaimon,
				Paimon:  &salvage.PaimonStart{NextSnapshot: 12, Table: "s3a://wh/shop.db/orders", Exact: true, ConsumerID: "orders-v2", ResetConsumerSQL: "CALL sys.reset_consumer('shop.orders', 'orders-v2', 12)"},
				Options: map[string]string{"scan.mode": "from-snapshot", "scan.snapshot-id": "12", "consumer-id": "orders-v2"}},
			{OperatorID: "c86b7ae47ff7f88f3ce2f796a83191f9", UID: "customers-cdc", Kind: sourcestate.KindMySQLCDC,
				MySQL:   &salvage.MySQLStart{MySQLPosition: sourcestate.MySQLPosition{File: "mysql-bin.000017", Pos: 4711, GTIDs: "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-77", SkipEvents: 2, TsSec: 1795946400}},
				Options: map[string]string{"scan.startup.mode": "specific-offset", "scan.startup.specific-offset.file": "mysql-bin.000017", "scan.startup.specific-offset.pos": "4711"}},
		},
	}
}

func TestPositionGolden(t *testing.T) {
	got, err := json.MarshalIndent(goldenPosition(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "position.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("position JSON (-golden +got):\n%s", diff)
	}
	p := goldenPosition()
	ptr, _ := json.MarshalIndent(&p, "", "  ")
	if string(ptr)+"\n" != string(got) {
		t.Error("value and pointer marshal differently")
	}
	if e, _ := json.Marshal(salvage.Position{}); string(e) != `{"snapshot":"","snapshot_key":"","checkpoint_id":0,"sources":[]}` {
		t.Errorf("empty position %s", e)
	}
}

// The position reads back from a decision document with PositionOf, and
// the document marshals to the same bytes again.
func TestPositionRoundTrip(t *testing.T) {
	pos := goldenPosition()
	c := resume.Candidate{Resolver: salvage.DefaultName, Position: pos, Guarantee: resume.DataLoss, At: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), Reasons: []string{"r"}, Warnings: []resume.Warning{}}
	d := resume.Decision{Chosen: &c, Considered: []resume.Outcome{{Resolver: salvage.DefaultName, Candidate: &c, Verdict: resume.VerdictChosen}}}
	doc, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back resume.Decision
	if err := json.Unmarshal(doc, &back); err != nil {
		t.Fatal(err)
	}
	got, err := salvage.PositionOf(back.Chosen.Position)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&pos, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if back.Chosen.Position.Kind() != salvage.KindSalvage || back.Chosen.Position.String() != pos.String() {
		t.Errorf("kind %s summary %q", back.Chosen.Position.Kind(), back.Chosen.Position.String())
	}
	again, _ := json.Marshal(back)
	if string(again) != string(doc) {
		t.Errorf("document changed on the round trip:\n%s\n%s", doc, again)
	}
	if _, err := salvage.PositionOf(&resume.RawPosition{PositionKind: "kafka-offsets"}); err == nil {
		t.Error("PositionOf accepted another kind")
	}
}

// A single source launches with its options; several sources launch with
// the union of theirs when no key collides.
func TestLaunch(t *testing.T) {
	p := goldenPosition()
	if !p.Launch().IsZero() {
		t.Errorf("colliding options merged: %v", p.Launch())
	}
	one := salvage.Position{Sources: p.Sources[1:2]}
	if diff := cmp.Diff(p.Sources[1].Options, one.Launch().Options); diff != "" || len(one.Launch().Args) != 0 {
		t.Errorf("launch (-want +got):\n%s", diff)
	}
}
