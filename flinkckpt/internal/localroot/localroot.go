// Package localroot writes large local checkpoint roots for flinkckpt's
// tests and benchmarks, and for the shell comparison in BENCHMARKS.md
// (go run ./flinkckpt/internal/cmd/writelocalroot).
package localroot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume/localblob"
)

// Job is the job id of the written job dir.
const Job = "0123456789abcdef0123456789abcdef"

// Write writes a local checkpoint root at dir with one job dir holding chks
// complete chk-<n> dirs (a _metadata and one exclusive file each, set one
// second apart from 2026-11-29T10:00:01Z) and shared files in shared/,
// split evenly over the checkpoints (each references its own share: 33 or
// 34 of 100,000 for 3,000), through localblob as Flink would see them:
// absolute references are file:// URIs of dir. With newestRefs above its
// share, the newest checkpoint references the last newestRefs shared
// files, as an incremental RocksDB checkpoint references files older
// checkpoints uploaded.
func Write(dir string, chks, shared, newestRefs int) error {
	b, err := localblob.OpenBucket(dir, &localblob.Options{NoSync: true})
	if err != nil {
		return err
	}
	defer b.Close()
	ctx := context.Background()
	l := &flinkckpttest.Layout{Bucket: b, Root: "file://" + filepath.ToSlash(dir) + "/"}
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	next := 0
	for i := 1; i <= chks; i++ {
		n := shared / chks
		if i <= shared%chks {
			n++ // the first ones take the remainder: an even split
		}
		first := next
		next += n
		if i == chks && newestRefs > n {
			first = next - newestRefs
		}
		names := make([]string, next-first)
		for k := range names {
			names[k] = fmt.Sprintf("%08d.sst", first+k)
		}
		w, err := l.Checkpoint(ctx, Job, int64(i), &flinkckpttest.Checkpoint{Shared: names, Operators: 2, FileSize: 4})
		if err != nil {
			return err
		}
		at := t0.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(w.Dir), "_metadata"), at, at); err != nil {
			return err
		}
	}
	return nil
}
