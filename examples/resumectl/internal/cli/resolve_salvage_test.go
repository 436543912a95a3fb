package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// resolve --flink-sources with --kafka-group (no --kafka-topic): the
// salvaged start begins a partition the old job had not started reading
// from its group's commit (the committed marker) at the group's commit.
func TestResolveSalvageCommittedMarker(t *testing.T) {
	addr, _ := kafkaCluster(t) // topic t: group "job" committed 3 on partition 0
	dir, b := tempBucket(t)
	l := &flinkckpttest.Layout{Bucket: b, Root: "file://" + dir + "/"}
	if _, err := l.Savepoint(context.Background(), "savepoint-aaaaaa-000000000001", 3, &flinkckpttest.Checkpoint{
		Sources: []flinkckpttest.Source{flinkckpttest.KafkaSource("k", "t", sourcestate.OffsetCommitted, 0)}}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runFlinkCLI(t, "resolve", "--flink-savepoints", dir, "--flink-sources", "--kafka-brokers", addr,
		"--kafka-group", "job", "--min-guarantee", "data-loss", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	// The salvage candidate (passed over for the savepoint, which restores
	// state) starts partition 0 at the group's commit 3.
	if !strings.Contains(out, `"scan.startup.specific-offsets": "partition:0,offset:3;partition:1,offset:0"`) ||
		!regexp.MustCompile(`"offset": 3,\s+"marker": "committed",\s+"resolved": true`).MatchString(out) {
		t.Errorf("salvage candidate does not start partition 0 at the group's commit:\n%s", out)
	}
}

// resolve --flink-sources --flink-job-result-store: a plain savepoint of
// job b947c2… whose KafkaSink committer held checkpoint 8's transactions
// is salvaged exact-input when the real JobResultStore's entry of that
// job says it finished (salvage.sink-committed-by-stop naming the entry);
// without the store, or with one whose entry is malformed (unreadable:
// it proves nothing), it is data-loss (salvage.sink-transactions-pending).
func TestResolveSalvageStopProvedByJobResultStore(t *testing.T) {
	dir, b := tempBucket(t)
	l := &flinkckpttest.Layout{Bucket: b, Root: "file://" + dir + "/"}
	if _, err := l.Savepoint(context.Background(), "savepoint-b947c2-0123456789ab", 8, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{
		flinkckpttest.KafkaSource("src", "orders", 10, 10),
		{UID: "Sink Committer: sink", Parallelism: 1, ListStates: []flinkckpttest.ListState{{Name: sinkstate.CommitterStateName,
			Elements: []flinkckpttest.ListElement{{Data: flinkckpttest.KafkaCommitterElement(8, "orders-sink-0-8", 7, 0)}}}}},
	}}); err != nil {
		t.Fatal(err)
	}
	jrs, err := filepath.Abs("../../../../flinkckpt/testdata/records/jrs/clean")
	if err != nil {
		t.Fatal(err)
	}
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "b947c2867e3c38eda1a93e9a8355f0c8.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, store := range []string{jrs, "", bad} {
		withStore := store == jrs
		args := []string{"resolve", "--flink-savepoints", dir, "--flink-sources", "--min-guarantee", "data-loss", "--json"}
		if store != "" {
			args = append(args, "--flink-job-result-store", store)
		}
		out, errOut, code := runFlinkCLI(t, args...)
		if code != ExitOK {
			t.Fatalf("exit %d: %s\n%s", code, errOut, out)
		}
		var d struct {
			Considered []struct {
				Resolver  string `json:"resolver"`
				Candidate *struct {
					Guarantee string `json:"guarantee"`
					Warnings  []struct{ Code, Text string }
				} `json:"candidate"`
			} `json:"considered"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, o := range d.Considered {
			if o.Resolver != "flink-salvage" || o.Candidate == nil {
				continue
			}
			found = true
			codes := ""
			for _, w := range o.Candidate.Warnings {
				codes += w.Code + " "
				if w.Code == "salvage.sink-committed-by-stop" && !strings.Contains(w.Text, "b947c2867e3c38eda1a93e9a8355f0c8.json") {
					t.Errorf("proof does not name the entry: %s", w.Text)
				}
			}
			want, code := "data-loss", "salvage.sink-transactions-pending"
			if withStore {
				want, code = "exact-input", "salvage.sink-committed-by-stop"
			}
			if o.Candidate.Guarantee != want || !strings.Contains(codes, code) {
				t.Errorf("store %q: salvage %s, warnings %s", store, o.Candidate.Guarantee, codes)
			}
		}
		if !found {
			t.Fatalf("no salvage candidate:\n%s", out)
		}
	}
}
