package flinkckpt_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/localblob"
)

// writeLocalRoot writes a local checkpoint root with one job dir holding
// chks complete chk-<n> dirs (a _metadata and one exclusive file each, set
// one second apart) and shared files in shared/, split evenly over the
// checkpoints (each references its own share: 33 or 34 of 100,000 for
// 3,000), through localblob as Flink would see them: absolute references
// are file:// URIs of dir. With newestRefs above its share, the newest
// checkpoint references the last newestRefs shared files, as an incremental
// RocksDB checkpoint references files older checkpoints uploaded.
func writeLocalRoot(tb testing.TB, dir string, chks, shared, newestRefs int) {
	tb.Helper()
	b, err := localblob.OpenBucket(dir, &localblob.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
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
		w, err := l.Checkpoint(ctx, benchJob, int64(i), &flinkckpttest.Checkpoint{Shared: names, Operators: 2, FileSize: 4})
		if err != nil {
			tb.Fatal(err)
		}
		at := t0.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(w.Dir), "_metadata"), at, at); err != nil {
			tb.Fatal(err)
		}
	}
}

// readCounter counts localblob's directory reads per directory.
type readCounter struct {
	mu    sync.Mutex
	reads map[string]int
}

func (c *readCounter) hook(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads[dir]++
}

func (c *readCounter) reset() (total, most int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.reads {
		total += n
		most = max(most, n)
	}
	c.reads = map[string]int{}
	return total, most
}

// TestLocalRootReadsEachDirOnce: resolving a local root through localblob
// reads the root, the job dir and the chosen checkpoint's dir once each,
// never shared/ or the other chk-<n> dirs, and verifies the checkpoint.
func TestLocalRootReadsEachDirOnce(t *testing.T) {
	dir := largeRootDir(t)
	writeLocalRoot(t, dir, 5, 50, 0)
	// More than one 1,000-entry page in the job dir: older, incomplete
	// chk-<n> dirs below the five complete ones.
	for i := 1; i <= 1200; i++ {
		if err := os.Mkdir(filepath.Join(dir, benchJob, fmt.Sprintf("chk-%d", 1000+i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Rename the complete ones above them.
	for i := 5; i >= 1; i-- {
		if err := os.Rename(filepath.Join(dir, benchJob, fmt.Sprintf("chk-%d", i)), filepath.Join(dir, benchJob, fmt.Sprintf("chk-%d", 3000+i))); err != nil {
			t.Fatal(err)
		}
	}
	c := &readCounter{reads: map[string]int{}}
	b, err := localblob.OpenBucket(dir, &localblob.Options{OnReadDir: c.hook})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r, err := flinkckpt.NewResolver(b, "", &flinkckpt.Options{FlinkRoot: "file://" + filepath.ToSlash(dir)})
	if err != nil {
		t.Fatal(err)
	}
	cand, err := r.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := flinkckpt.PositionOf(cand.Position)
	if p.Key != benchJob+"/chk-3005/" || cand.Guarantee != resume.ExactlyOnce || !verified(cand.Reasons, 10) {
		t.Errorf("chose %s %v %q, want chk-3005, exactly-once, verified", p.Key, cand.Guarantee, cand.Reasons)
	}
	want := map[string]int{"": 1, benchJob: 1, benchJob + "/chk-3005": 1}
	c.mu.Lock()
	defer c.mu.Unlock()
	if fmt.Sprint(c.reads) != fmt.Sprint(want) {
		t.Errorf("directory reads %v, want %v", c.reads, want)
	}
}

// BenchmarkResolveLocalRoot resolves a local root with 3,000 retained
// checkpoints and 100,000 shared files through localblob, verifying the
// chosen checkpoint's shared files (refs=33: its even share; refs=1000: an
// incremental checkpoint reusing older files), one attribute call each;
// dir-reads/op and max-reads/dir count localblob's directory reads.
// Building the tree (once per sub-benchmark: b.Loop runs the function once)
// takes some seconds and is not timed.
func BenchmarkResolveLocalRoot(b *testing.B) {
	for _, refs := range []int{33, 1000} {
		b.Run(fmt.Sprintf("refs=%d", refs), func(b *testing.B) {
			dir := largeRootDir(b)
			writeLocalRoot(b, dir, 3000, 100000, refs)
			c := &readCounter{reads: map[string]int{}}
			bk, err := localblob.OpenBucket(dir, &localblob.Options{OnReadDir: c.hook})
			if err != nil {
				b.Fatal(err)
			}
			defer bk.Close()
			r, err := flinkckpt.NewResolver(bk, "", &flinkckpt.Options{FlinkRoot: "file://" + filepath.ToSlash(dir)})
			if err != nil {
				b.Fatal(err)
			}
			n, most := 0, 0
			for b.Loop() {
				cand, err := r.Resolve(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if p, _ := flinkckpt.PositionOf(cand.Position); p.CheckpointID != 3000 || cand.Guarantee != resume.ExactlyOnce || !verified(cand.Reasons, refs) {
					b.Fatalf("chose %+v %v %q", p, cand.Guarantee, cand.Reasons)
				}
				total, m := c.reset()
				n += total
				most = max(most, m)
			}
			b.ReportMetric(float64(n)/float64(b.N), "dir-reads/op")
			b.ReportMetric(float64(most), "max-reads/dir")
		})
	}
}

// verified reports whether the reasons say that at least refs referenced
// files were checked.
func verified(reasons []string, refs int) bool {
	for _, r := range reasons {
		var n int
		if i := strings.Index(r, "all "); i >= 0 && strings.Contains(r, "checked referenced files exist with their recorded sizes") {
			if _, err := fmt.Sscanf(r[i:], "all %d checked", &n); err == nil && n >= refs {
				return true
			}
		}
	}
	return false
}

// largeRootDir is a temporary directory on /dev/shm (a tmpfs: 100,000
// file creations take seconds there, minutes on a slow disk) when there is
// one, else in the test's temporary directory. Reads of a local root come
// from the page cache either way.
func largeRootDir(tb testing.TB) string {
	if dir, err := os.MkdirTemp("/dev/shm", "resumekit-localroot-"); err == nil {
		tb.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	return tb.TempDir()
}

// TestWriteLargeLocalRoot writes the benchmark's root to
// $RESUMEKIT_LOCAL_ROOT (skipped when unset), with
// $RESUMEKIT_LOCAL_ROOT_REFS referenced by the newest checkpoint (default
// its share, 33), for the shell comparison in BENCHMARKS.md.
func TestWriteLargeLocalRoot(t *testing.T) {
	dir := os.Getenv("RESUMEKIT_LOCAL_ROOT")
	if dir == "" {
		t.Skip("set RESUMEKIT_LOCAL_ROOT to a directory to write the 3,000-checkpoint root there")
	}
	refs, _ := strconv.Atoi(os.Getenv("RESUMEKIT_LOCAL_ROOT_REFS"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeLocalRoot(t, dir, 3000, 100000, refs)
}
