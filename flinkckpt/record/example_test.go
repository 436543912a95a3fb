package record_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt/record"
)

// What Flink's Kubernetes HA services hold for a job (kubectl get configmap
// -o json), and the checkpoint its HA recovery restores: the newest entry's
// CompletedCheckpoint file under high-availability.storageDir.
func ExampleParseConfigMaps() {
	out, err := os.ReadFile(filepath.Join("..", "testdata", "records", "F2", "configmaps.json"))
	if err != nil {
		panic(err)
	}
	h, err := record.ParseConfigMaps("configmaps.json", out)
	if err != nil {
		panic(err)
	}
	dir, _ := filepath.Abs(filepath.Join("..", "testdata", "records", "F2", "ha"))
	b, err := fileblob.OpenBucket(dir, nil)
	if err != nil {
		panic(err)
	}
	defer b.Close()
	// The bucket is opened where Flink's storageDir is; Dir is how Flink names it.
	store := &record.Store{Bucket: b, Dir: "file:///tmp/flink-ha/resumekit-f2"}
	if err := record.ReadPointers(context.Background(), store, h); err != nil {
		panic(err)
	}
	for _, j := range h.Jobs {
		l := j.Latest()
		fmt.Printf("job %s: %d entries, counter %d\n", j.JobID, len(j.Checkpoints), j.Counter)
		fmt.Printf("HA recovery restores checkpoint %d: %s\n", l.ID, filepath.Base(l.Completed.ExternalPointer))
	}
	// Output:
	// job 8c1d152cf31fc3b33be3d59572d2273f: 3 entries, counter 5
	// HA recovery restores checkpoint 4: chk-4
}
