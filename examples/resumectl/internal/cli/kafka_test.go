package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
)

// kafkaCluster starts an in-process Kafka on loopback with topic "t" (two
// partitions): partition 0 holds 5 records stamped 10:00..10:04 UTC, group
// "job" committed 3 on partition 0 and nothing on partition 1.
func kafkaCluster(t *testing.T) (addr string, adm *kadm.Client) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for i := range 5 {
		r := &kgo.Record{Topic: "t", Partition: 0, Value: []byte("v"), Timestamp: t0.Add(time.Duration(i) * time.Minute)}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	adm = kadm.NewClient(cl)
	os := make(kadm.Offsets)
	os.AddOffset("t", 0, 3, -1)
	if _, err := adm.CommitOffsets(ctx, "job", os); err != nil {
		t.Fatal(err)
	}
	return c.ListenAddrs()[0], adm
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestKafkaOffsetsTable(t *testing.T) {
	addr, _ := kafkaCluster(t)
	code, out, errOut := runCLI("kafka", "offsets", "--brokers", addr, "--topic", "t", "--group", "job", "--at", "2026-11-29 10:01:30Z", "--now", "2026-11-29T11:00:00Z")
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %s\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"TOPIC  PARTITION  START  END  STABLE  COMMITTED  BY-TIME  CHOSEN  WHY",
		"t      0          0      5    5       3          2        3       committed 3 (log 0..5, 2 records after it)",
		"t      1          0      0    0       -          -        0       no record at or after 2026-11-29T10:01:30Z: starts at the end offset 0",
		"guarantee: replay at 2026-11-29T10:01:30Z",
		"option: scan.startup.mode=specific-offsets",
		"option: scan.startup.specific-offsets=partition:0,offset:3;partition:1,offset:0",
		"warning: 1 partitions have no record at or after",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestKafkaOffsetsJSON: the document, evaluated as of --now; a relative
// --at counts back from --now, not from the clock.
func TestKafkaOffsetsJSON(t *testing.T) {
	addr, _ := kafkaCluster(t)
	code, out, errOut := runCLI("kafka", "offsets", "--brokers", addr, "--topic", "t", "--at", "-28m", "--now", "2026-11-29T10:30:00Z", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var doc struct {
		Guarantee  string
		At         string
		Launch     struct{ Options map[string]string }
		Partitions []struct {
			Partition int32
			Committed *int64
			Offset    *int64
			From      string
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if doc.Guarantee != "replay" || doc.At != "2026-11-29T10:02:00Z" || doc.Launch.Options["scan.startup.mode"] != "timestamp" ||
		doc.Launch.Options["scan.startup.timestamp-millis"] != "1795946520000" {
		t.Errorf("document %s", out)
	}
	if len(doc.Partitions) != 2 || *doc.Partitions[0].Offset != 2 || doc.Partitions[0].Committed != nil || doc.Partitions[1].From != "end" {
		t.Errorf("partitions %s", out)
	}
}

// TestKafkaOffsetsDataLossExit4: a start that loses data exits 4 (refused
// for data loss), as resolve does, not 3 (nothing to restore).
func TestKafkaOffsetsDataLossExit4(t *testing.T) {
	addr, adm := kafkaCluster(t)
	os := make(kadm.Offsets)
	os.AddOffset("t", 0, 4, -1)
	if _, err := adm.DeleteRecords(context.Background(), os); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("kafka", "offsets", "--brokers", addr, "--topic", "t", "--group", "job")
	if code != ExitRefused || !strings.Contains(out, "guarantee: data-loss") || !strings.Contains(out, "t/0 (1 records: committed 3, log start 4)") {
		t.Errorf("exit %d, stderr %s\n%s", code, errOut, out)
	}
}

func TestKafkaOffsetsUnknownGroupExit3(t *testing.T) {
	addr, _ := kafkaCluster(t)
	code, _, errOut := runCLI("kafka", "offsets", "--brokers", addr, "--topic", "t", "--group", "nobody")
	if code != ExitNothing || !strings.Contains(errOut, `group "nobody" has no commits`) {
		t.Errorf("exit %d, stderr %s", code, errOut)
	}
}

func TestKafkaOffsetsMissingTopicExit1(t *testing.T) {
	addr, _ := kafkaCluster(t)
	code, _, errOut := runCLI("kafka", "offsets", "--brokers", addr, "--topic", "nope", "--group", "job")
	if code != ExitFailed || !strings.Contains(errOut, `topic "nope" does not exist`) {
		t.Errorf("exit %d, stderr %s", code, errOut)
	}
}

func TestKafkaOffsetsUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"NoSubcommand", []string{"kafka"}, "want a subcommand"},
		{"OtherSubcommand", []string{"kafka", "lag"}, "want a subcommand"},
		{"NoBrokers", []string{"kafka", "offsets", "--topic", "t", "--group", "g"}, "--brokers and --topic are required"},
		{"NoSource", []string{"kafka", "offsets", "--brokers", "127.0.0.1:1", "--topic", "t"}, "give --group, --at, or both"},
		{"BadTime", []string{"kafka", "offsets", "--brokers", "127.0.0.1:1", "--topic", "t", "--at", "yesterday"}, "time \"yesterday\""},
		{"BadTopic", []string{"kafka", "offsets", "--brokers", "127.0.0.1:1", "--topic", "a b", "--group", "g"}, "invalid topic name"},
		{"Positional", []string{"kafka", "offsets", "extra", "--brokers", "127.0.0.1:1", "--topic", "t", "--group", "g"}, "unexpected argument"},
		{"ObserveWithoutGroup", []string{"kafka", "offsets", "--brokers", "127.0.0.1:1", "--topic", "t", "--at", "-15m", "--observe", "10s"}, "needs a group"},
		{"BadIsolation", []string{"kafka", "offsets", "--brokers", "127.0.0.1:1", "--topic", "t", "--group", "g", "--isolation", "read_most"}, `unknown isolation level "read_most"`},
		{"BadCommitSource", []string{"kafka", "offsets", "--brokers", "127.0.0.1:1", "--topic", "t", "--group", "g", "--commit-source", "cron"}, `unknown commit source "cron"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI(tc.args...)
			if code != ExitUsage || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q, want 2 and %q", code, errOut, tc.want)
			}
		})
	}
}

// TestKafkaOffsetsTransactionsAndCommitSource: the table and the JSON show
// the last stable offset, a start above an open transaction is lowered to
// it (unless --isolation read_uncommitted), and --commit-source auto grades
// the commits as data loss (exit 3).
func TestKafkaOffsetsTransactionsAndCommitSource(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{{Name: "t"}}})
	k.Produce("t", 0, t0, t0.Add(time.Minute))
	k.BeginTransaction("sink").Produce("t", 0, t0.Add(2*time.Minute), t0.Add(3*time.Minute)) // open: LSO 2, end 4
	k.Commit("job", "t", map[int32]int64{0: 1})
	addr := k.Addrs()[0]

	code, out, errOut := runCLI("kafka", "offsets", "--brokers", addr, "--topic", "t", "--at", "2026-11-29T10:03:00Z", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var doc struct {
		Partitions []struct {
			End        *int64 `json:"end"`
			LastStable *int64 `json:"last_stable"`
			Offset     *int64 `json:"offset"`
		}
		Position struct {
			IsolationLevel string `json:"isolation_level"`
			Partitions     []struct {
				LastStable *int64 `json:"last_stable"`
			}
		}
		Warnings []struct{ Code string }
		Launch   struct{ Options map[string]string }
	}
	unmarshal := func(out string) {
		t.Helper()
		doc.Partitions, doc.Position.Partitions, doc.Warnings, doc.Launch.Options = nil, nil, nil, nil
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
	}
	unmarshal(out)
	p := doc.Partitions[0]
	if *p.End != 4 || p.LastStable == nil || *p.LastStable != 2 || *p.Offset != 2 || doc.Position.IsolationLevel != "read_committed" ||
		doc.Position.Partitions[0].LastStable == nil || *doc.Position.Partitions[0].LastStable != 2 {
		t.Errorf("read_committed: %s", out)
	}
	if !strings.Contains(out, `"last_stable": 2`) || !strings.Contains(out, "kafka.open-transaction") {
		t.Errorf("no last_stable or open-transaction warning:\n%s", out)
	}
	// Launched at the lowered offset, not by time: Flink's timestamp
	// initializer would start at 3 again, above the open transaction.
	if got, want := doc.Launch.Options, map[string]string{"scan.startup.mode": "specific-offsets", "scan.startup.specific-offsets": "partition:0,offset:2"}; !maps.Equal(got, want) {
		t.Errorf("read_committed launch %v, want %v", got, want)
	}
	code, out, _ = runCLI("kafka", "offsets", "--brokers", addr, "--topic", "t", "--at", "2026-11-29T10:03:00Z")
	if code != ExitOK || !strings.Contains(out, "lowered from 3 to the last stable offset 2") ||
		!strings.Contains(out, "option: scan.startup.mode=specific-offsets") || !strings.Contains(out, "option: scan.startup.specific-offsets=partition:0,offset:2") ||
		strings.Contains(out, "timestamp-millis") {
		t.Errorf("read_committed table: exit %d\n%s", code, out)
	}

	code, out, _ = runCLI("kafka", "offsets", "--brokers", addr, "--topic", "t", "--at", "2026-11-29T10:03:00Z", "--isolation", "read_uncommitted", "--json")
	unmarshal(out)
	if code != ExitOK || doc.Partitions[0].LastStable != nil || *doc.Partitions[0].Offset != 3 || doc.Position.IsolationLevel != "read_uncommitted" {
		t.Errorf("read_uncommitted: exit %d\n%s", code, out)
	}
	// Nothing lowered: the lookup by time lands on 3 as chosen.
	if got, want := doc.Launch.Options, map[string]string{"scan.startup.mode": "timestamp", "scan.startup.timestamp-millis": "1795946580000"}; !maps.Equal(got, want) {
		t.Errorf("read_uncommitted launch %v, want %v", got, want)
	}

	code, out, _ = runCLI("kafka", "offsets", "--brokers", addr, "--topic", "t", "--group", "job")
	if code != ExitOK || !strings.Contains(out, "TOPIC  PARTITION  START  END  STABLE  COMMITTED") || !strings.Contains(out, "[kafka.commit-source-assumed]") {
		t.Errorf("checkpoint: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI("kafka", "offsets", "--brokers", addr, "--topic", "t", "--group", "job", "--commit-source", "auto", "--strict")
	if code != ExitRefused || !strings.Contains(out, "guarantee: data-loss") || !strings.Contains(out, "auto-commit runs ahead of processing") {
		t.Errorf("auto: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI("resolve", "--kafka-brokers", addr, "--kafka-topic", "t", "--kafka-group", "job", "--kafka-commit-source", "unknown", "--kafka-isolation", "read_committed", "--kafka-strict")
	if code != ExitRefused || !strings.Contains(out, "rejected (data-loss)") {
		t.Errorf("resolve --kafka-commit-source unknown: exit %d\n%s", code, out)
	}
}
