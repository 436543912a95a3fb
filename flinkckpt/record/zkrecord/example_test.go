package zkrecord_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/resumekit/resumekit/flinkckpt/record/zkrecord"
)

// dump is a ZooKeeper tree saved as path → data (a zkCli dump, say): any
// Client works, a live *zk.Conn first of all.
type dump map[string][]byte

func (d dump) Children(p string) ([]string, *zk.Stat, error) {
	var out []string
	seen := map[string]bool{}
	for k := range d {
		if rest, ok := strings.CutPrefix(k, p+"/"); ok {
			child, _, _ := strings.Cut(rest, "/")
			if !seen[child] {
				seen[child] = true
				out = append(out, child)
			}
		}
	}
	if out == nil {
		return nil, nil, zk.ErrNoNode
	}
	return out, &zk.Stat{}, nil
}

func (d dump) Get(p string) ([]byte, *zk.Stat, error) {
	b, ok := d[p]
	if !ok {
		return nil, nil, zk.ErrNoNode
	}
	return b, &zk.Stat{DataLength: int32(len(b))}, nil
}

// Which checkpoint Flink's ZooKeeper HA recovery restores for each job.
func ExampleReadFrom() {
	node, err := os.ReadFile(filepath.Join("..", "..", "testdata", "records", "F1", "zk-0000000000000000003.bin"))
	if err != nil {
		panic(err)
	}
	tree := dump{"/flink/orders/jobs/ee36559a4d4654a860e7d242ced63e9b/checkpoints/0000000000000000003": node}
	h, err := zkrecord.ReadFrom(context.Background(), tree, &zkrecord.Options{ClusterID: "orders"})
	if err != nil {
		panic(err)
	}
	for _, j := range h.Jobs {
		l := j.Latest()
		fmt.Printf("job %s: checkpoint %d, pointer file %s\n", j.JobID, l.ID, filepath.Base(l.File))
	}
	// Output:
	// job ee36559a4d4654a860e7d242ced63e9b: checkpoint 3, pointer file completedCheckpoint50f37f686c0f
}
