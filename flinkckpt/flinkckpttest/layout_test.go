package flinkckpttest_test

import (
	"context"
	"testing"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// TestUnalignedEveryStateBackend: Checkpoint.Unaligned writes channel state
// (in-flight data) into the first subtask whatever the state backend; with
// "full" and "canonical" the key-groups subtasks used to replace it, and the
// checkpoint came out aligned.
func TestUnalignedEveryStateBackend(t *testing.T) {
	ctx := context.Background()
	for _, backend := range []string{"", "rocksdb-incremental", "full", "canonical", "changelog"} {
		for _, files := range [][]string{{"a.sst", "b.sst"}, nil} {
			b := memblob.OpenBucket(nil)
			l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "s3a://bucket/"}
			w, err := l.Checkpoint(ctx, flinkckpttest.OperatorID(1), 3, &flinkckpttest.Checkpoint{Shared: files, Unaligned: true, StateBackend: backend})
			if err != nil {
				t.Fatal(err)
			}
			data, err := b.ReadAll(ctx, w.Dir+"_metadata")
			if err != nil {
				t.Fatal(err)
			}
			b.Close()
			md, err := metadata.Parse(data, nil)
			if err != nil {
				t.Fatalf("%q: %v", backend, err)
			}
			channels := 0
			for _, op := range md.Operators {
				for _, st := range op.SubtaskStates {
					channels += len(st.InputChannels) + len(st.ResultSubpartitions)
				}
			}
			if channels == 0 {
				t.Errorf("StateBackend %q, %d shared files: no channel state in an unaligned checkpoint", backend, len(files))
			}
		}
	}
}
