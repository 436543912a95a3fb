package flinkckpt_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
)

// What the sink committer of a real Flink 1.20.3 checkpoint (the frozen
// conformance export's K1, state in files beside _metadata) had not
// committed yet: the transactions prepared at the checkpoint itself,
// committed by the old job only once the checkpoint completed.
func ExampleSinkState() {
	ctx := context.Background()
	dir, _ := filepath.Abs(filepath.Join("testdata", "conformance", "K1", "ck"))
	if _, err := os.Stat(dir); err != nil {
		panic(err)
	}
	b, _ := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	defer b.Close()
	snap, err := flinkckpt.Inspect(ctx, b, "6829f7f7f0d64f47f1eb61376ce586d8/chk-8/", &flinkckpt.Options{
		FlinkRoot: "file:///work/wt-conf/conformance/harness/target/work/K1/ck", SkipVerify: true})
	if err != nil {
		panic(err)
	}
	st, err := flinkckpt.SinkState(ctx, b, snap)
	if err != nil {
		panic(err)
	}
	for _, c := range st.Committers {
		fmt.Println(c.OperatorID == jobgraph.OperatorID("Sink Committer: sink"), c.Format)
		for _, p := range c.Pending() {
			fmt.Printf("checkpoint %d: %d committable(s) pending\n", p.CheckpointID, p.Committables)
		}
	}
	// Output:
	// true committable-collector
	// checkpoint 8: 2 committable(s) pending
}
