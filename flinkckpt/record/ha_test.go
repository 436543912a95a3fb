package record_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt/record"
)

const (
	f2Job = "8c1d152cf31fc3b33be3d59572d2273f"
	f1Job = "ee36559a4d4654a860e7d242ced63e9b"
	f2Ck  = "file:/work/wt-ha/conformance/harness/target/work/F2/ck/" + f2Job
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "records", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// haBucket opens a scenario's HA storage dir (ha/) as a bucket, and returns
// the URI Flink wrote its pointer files under.
func haBucket(t testing.TB, scenario string) (*record.Store, string) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "records", scenario, "ha"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := fileblob.OpenBucket(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return &record.Store{Bucket: b, Dir: "file:/tmp/flink-ha/resumekit-" + map[string]string{"F1": "f1", "F2": "f2", "SP": "sp"}[scenario]}, ""
}

// TestConfigMapsRealHandles reads kubectl output whose values are the state
// handles Flink 1.20.3's HA store wrote, and the CompletedCheckpoint files
// they point to.
func TestConfigMapsRealHandles(t *testing.T) {
	h, err := record.ParseConfigMaps("configmaps.json", readTestdata(t, "F2/configmaps.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Jobs) != 1 {
		t.Fatalf("jobs %+v, want one", h.Jobs)
	}
	j := h.Jobs[0]
	if j.JobID != f2Job || j.Counter != 5 || !j.JobGraph || j.Leader != "e1f0c2d4-jobmanager" {
		t.Errorf("job %+v", j)
	}
	var ids []int64
	for _, c := range j.Checkpoints {
		if c.Err != nil {
			t.Errorf("%s: %v", c.Name, c.Err)
		}
		ids = append(ids, c.ID)
	}
	if diff := cmp.Diff([]int64{2, 3, 4}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	store, _ := haBucket(t, "F2")
	if err := record.ReadPointers(context.Background(), store, h); err != nil {
		t.Fatal(err)
	}
	latest := h.Jobs[0].Latest()
	want := &record.Completed{JobID: f2Job, CheckpointID: 4, ExternalPointer: f2Ck + "/chk-4"}
	if diff := cmp.Diff(want, latest.Completed, cmpopts.IgnoreFields(record.Completed{}, "TriggeredAt")); diff != "" || latest.Err != nil {
		t.Errorf("latest (-want +got):\n%s%v", diff, latest.Err)
	}
	if latest.Completed.TriggeredAt.UnixMilli() != 1764600004000 {
		t.Errorf("triggered at %v", latest.Completed.TriggeredAt)
	}
}

// TestZooKeeperNodeRealHandle reads the data of a ZooKeeper checkpoint node
// (Flink's serialized RetrievableStreamStateHandle) and a savepoint's
// CompletedCheckpoint.
func TestZooKeeperNodeRealHandle(t *testing.T) {
	h := &record.HA{}
	for _, id := range []string{"0000000000000000003", "0000000000000000005"} {
		if err := h.AddZooKeeperCheckpoint(f1Job, "/flink/resumekit-sp/jobs/"+f1Job+"/checkpoints/"+id, readTestdata(t, "SP/zk-"+id+".bin")); err != nil {
			t.Fatal(err)
		}
	}
	store, _ := haBucket(t, "SP")
	if err := record.ReadPointers(context.Background(), store, h); err != nil {
		t.Fatal(err)
	}
	l := h.Jobs[0].Latest()
	if l.Err != nil || l.Completed == nil || l.Completed.CheckpointID != 5 || !l.Completed.Savepoint {
		t.Fatalf("latest %+v %+v", l, l.Completed)
	}
	if got := h.Jobs[0].Checkpoints[0]; got.Completed != nil {
		t.Errorf("read an older pointer file: %+v", got)
	}
}

// TestPointerOutsideStore: a handle naming a file outside the HA storage
// dir is never read; the entry says why.
func TestPointerOutsideStore(t *testing.T) {
	h, err := record.ParseConfigMaps("configmaps.json", readTestdata(t, "F2/configmaps.json"))
	if err != nil {
		t.Fatal(err)
	}
	store, _ := haBucket(t, "F2")
	store.Dir = "file:/tmp/flink-ha/other"
	if err := record.ReadPointers(context.Background(), store, h); err != nil {
		t.Fatal(err)
	}
	if l := h.Jobs[0].Latest(); l.Err == nil || l.Completed != nil {
		t.Fatalf("latest %+v: read outside the store", l)
	}
}

func TestKeyUnder(t *testing.T) {
	for _, tc := range []struct {
		dir, file, want string
	}{
		{"file:///flink/ha", "file:/flink/ha/completedCheckpoint1", "completedCheckpoint1"},
		{"s3://b/ha/", "s3a://b/ha/x/completedCheckpoint1", "x/completedCheckpoint1"},
		{"s3://b/ha", "s3://c/ha/completedCheckpoint1", ""},
		{"s3://b/ha", "s3://b/hax/completedCheckpoint1", ""},
		{"s3://b/ha", "s3://b/ha/../etc/passwd", ""},
		{"file:/flink/ha", "gs://b/flink/ha/x", ""},
		{"file:/flink/ha", "file:/flink/ha", ""},
	} {
		got, err := record.KeyUnder(tc.dir, tc.file)
		if got != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("KeyUnder(%q, %q) = %q, %v; want %q", tc.dir, tc.file, got, err, tc.want)
		}
	}
}

func TestParseHandleMalformed(t *testing.T) {
	good := readTestdata(t, "F2/zk-0000000000000000004.bin")
	for name, data := range map[string][]byte{
		"empty":        nil,
		"not java":     []byte("{}"),
		"truncated":    good[:len(good)/2],
		"one byte cut": good[:len(good)-1],
		"huge":         make([]byte, record.MaxHandleBytes+1),
		"null":         {0xac, 0xed, 0, 5, 0x70},
	} {
		_, _, err := record.ParseHandle("node", data)
		if !errors.Is(err, record.ErrMalformed) {
			t.Errorf("%s: err %v, want ErrMalformed", name, err)
		}
	}
	if _, err := record.ParseCompleted("f", good); !errors.Is(err, record.ErrMalformed) {
		t.Errorf("a handle read as a completed checkpoint: %v", err)
	}
}

// TestJavaStreamHostile: streams built to exhaust the reader are refused
// with ErrMalformed, and what they allocate is bounded by their size (one
// allocation per byte, plus a constant for the error).
func TestJavaStreamHostile(t *testing.T) {
	head := []byte{0xac, 0xed, 0, 5}
	deep := append([]byte{}, head...)
	// An object whose class's one field is an object of the same class, 10,000 deep.
	deep = append(deep, 0x73, 0x72, 0, 1, 'X', 0, 0, 0, 0, 0, 0, 0, 1, 0x02, 0, 1, 'L', 0, 1, 'x', 0x74, 0, 3, 'L', 'X', ';', 0x78, 0x70)
	for i := 0; i < 10000; i++ {
		deep = append(deep, 0x73, 0x71, 0, 0x7e, 0, 0)
	}
	hugeArray := append(append([]byte{}, head...), 0x75, 0x72, 0, 2, '[', 'J', 0, 0, 0, 0, 0, 0, 0, 1, 0x02, 0, 0, 0x78, 0x70, 0x7f, 0xff, 0xff, 0xff)
	hugeString := append(append([]byte{}, head...), 0x7c, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
	badRef := append(append([]byte{}, head...), 0x71, 0, 0x7e, 0, 9)
	for name, data := range map[string][]byte{"deep": deep, "huge array": hugeArray, "huge string": hugeString, "bad reference": badRef} {
		var err error
		allocs := testing.AllocsPerRun(3, func() { _, _, err = record.ParseHandle("node", data) })
		if !errors.Is(err, record.ErrMalformed) {
			t.Errorf("%s: err %v, want ErrMalformed", name, err)
		}
		// A constant for the error itself (the race detector adds its own),
		// then at most one allocation per input byte.
		if allocs > float64(len(data)+64) {
			t.Errorf("%s: %.0f allocations for %d bytes", name, allocs, len(data))
		}
	}
}
