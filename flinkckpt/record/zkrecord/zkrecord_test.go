package zkrecord_test

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/record"
	"github.com/resumekit/resumekit/flinkckpt/record/zkrecord"
	"github.com/resumekit/resumekit/flinkckpt/record/zkrecord/zktest"
	"github.com/resumekit/resumekit/resume"
)

const f2Job = "8c1d152cf31fc3b33be3d59572d2273f"

func testdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "records", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// flinkLayout writes what Flink 1.20.3's ZooKeeper HA services hold for
// conformance F2's job, with the node data Flink's own classes wrote.
func flinkLayout(t *testing.T, s *zktest.Server) {
	base := "/flink/resumekit-f2"
	for _, id := range []string{"0000000000000000002", "0000000000000000003", "0000000000000000004"} {
		s.Create(base+"/jobs/"+f2Job+"/checkpoints/"+id, testdata(t, "F2/zk-"+id+".bin"))
	}
	s.Create(base+"/jobs/"+f2Job+"/checkpoints/0000000000000000004/locks", nil)
	counter := binary.BigEndian.AppendUint32(nil, 5)
	s.Create(base+"/jobs/"+f2Job+"/checkpoint_id_counter", counter)
	s.Create(base+"/jobgraphs/"+f2Job, []byte{0xac, 0xed, 0, 5, 0x70})
	s.Create(base+"/leader/"+f2Job+"/connection_info", []byte("pekko://flink@127.0.0.1:6123/user/rpc/jobmanager_2"))
}

// counting counts a real session's listings and reads.
type counting struct {
	c              *zk.Conn
	listings, gets atomic.Int32
}

func (c *counting) Children(p string) ([]string, *zk.Stat, error) {
	c.listings.Add(1)
	return c.c.Children(p)
}

func (c *counting) Get(p string) ([]byte, *zk.Stat, error) {
	c.gets.Add(1)
	return c.c.Get(p)
}

// TestReadRealZooKeeper reads Flink's layout from a real ZooKeeper server:
// the three checkpoint entries, the counter, the job graph; one listing of
// the job's checkpoints (one more of jobs/ without a job id).
func TestReadRealZooKeeper(t *testing.T) {
	s := zktest.Start(t)
	flinkLayout(t, s)
	h, err := zkrecord.Read(context.Background(), s.Addr, &zkrecord.Options{ClusterID: "/resumekit-f2", Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Jobs) != 1 {
		t.Fatalf("jobs %+v", h.Jobs)
	}
	j := h.Jobs[0]
	if j.JobID != f2Job || j.Counter != 5 || !j.JobGraph || len(j.Checkpoints) != 3 || j.Latest().ID != 4 || j.Latest().Err != nil {
		t.Errorf("job %+v", j)
	}
	if h.Source != s.Addr+"/flink/resumekit-f2" {
		t.Errorf("source %q", h.Source)
	}
	for _, tc := range []struct {
		job      string
		listings int32
	}{{f2Job, 1}, {"", 2}} {
		c := &counting{c: s.Conn}
		if _, err := zkrecord.ReadFrom(context.Background(), c, &zkrecord.Options{ClusterID: "resumekit-f2", JobID: tc.job}); err != nil {
			t.Fatal(err)
		}
		if n := c.listings.Load(); n != tc.listings {
			t.Errorf("job %q: %d listings, want %d", tc.job, n, tc.listings)
		}
		if n := c.gets.Load(); n != 3+3 {
			t.Errorf("job %q: %d reads, want 6 (3 checkpoints, counter, job graph, execution plan)", tc.job, n)
		}
	}
}

// TestReadEmptyCluster: a cluster with no jobs node is an empty store.
func TestReadEmptyCluster(t *testing.T) {
	s := zktest.Start(t)
	h, err := zkrecord.Read(context.Background(), s.Addr, &zkrecord.Options{ClusterID: "nothing-here", Timeout: 30 * time.Second})
	if err != nil || len(h.Jobs) != 0 {
		t.Fatalf("%+v %v", h, err)
	}
}

// TestReadUnreachable: no server → an error within the timeout, never a hang.
func TestReadUnreachable(t *testing.T) {
	_, err := zkrecord.Read(context.Background(), "127.0.0.1:1", &zkrecord.Options{ClusterID: "c", Timeout: time.Second})
	if err == nil {
		t.Fatal("no error")
	}
	if _, err := zkrecord.Read(context.Background(), "user:secret@host:2181", &zkrecord.Options{ClusterID: "c"}); err == nil {
		t.Fatal("an address with credentials accepted")
	}
	if _, err := zkrecord.Read(context.Background(), "127.0.0.1:2181", nil); err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("no cluster id: %v", err)
	}
}

// TestZooKeeperRecordF2 is conformance F2 end to end: the real ZooKeeper
// holds Flink's entries 2, 3, 4; the pointer files are read from HA
// storage; storage finds 4 broken, and the decision's record says HA
// recovery will fail on it and names checkpoint 3 instead.
func TestZooKeeperRecordF2(t *testing.T) {
	s := zktest.Start(t)
	flinkLayout(t, s)
	h, err := zkrecord.Read(context.Background(), s.Addr, &zkrecord.Options{ClusterID: "resumekit-f2", JobID: f2Job, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	haDir, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "records", "F2", "ha"))
	hb, err := fileblob.OpenBucket(haDir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer hb.Close()
	if err := record.ReadPointers(context.Background(), &record.Store{Bucket: hb, Dir: "file:/tmp/flink-ha/resumekit-f2"}, h); err != nil {
		t.Fatal(err)
	}
	ckDir, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "conformance", "F2"))
	cb, err := fileblob.OpenBucket(ckDir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	opts := &flinkckpt.Options{FlinkRoot: "file:///work/wt-ha/conformance/harness/target/work/F2/ck"}
	r, err := flinkckpt.NewResolver(cb, "ck/", opts)
	if err != nil {
		t.Fatal(err)
	}
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{r}}).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	in := []record.Input{{Kind: resume.RecordFlinkHA, Source: h.Source, HA: h}}
	if err := record.Compare(context.Background(), d, in, &record.CompareOptions{Storage: &record.BucketStorage{Checkpoints: cb, CheckpointsPrefix: "ck/", Options: opts}}); err != nil {
		t.Fatal(err)
	}
	src := d.Record.Sources[0]
	if src.CheckpointID != 4 || len(src.Warnings) != 1 || src.Warnings[0].Code != record.WarnBroken || !strings.Contains(src.Warnings[0].Text, "chk-3") {
		t.Errorf("record %+v", src)
	}
}
