package flinkckpt_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/internal/localroot"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/localblob"
)

// writeLocalRoot writes a local checkpoint root (localroot.Write: one job
// dir, benchJob, with chks checkpoints sharing shared files; the newest
// references newestRefs of them when that is above its share).
func writeLocalRoot(tb testing.TB, dir string, chks, shared, newestRefs int) {
	tb.Helper()
	if err := localroot.Write(dir, chks, shared, newestRefs); err != nil {
		tb.Fatal(err)
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

// TestLocalRootVerification (item 9): verification through localblob's
// batched stats (localblob.StatKeys) finds what one attribute call per
// file would: a deleted or truncated shared file makes the newest
// checkpoint broken and the older one is chosen with a warning; a FIFO
// planted as a shared file is refused (a storage failure naming it, never a
// wait); files under a local extra root are checked there.
func TestLocalRootVerification(t *testing.T) {
	dir := t.TempDir()
	writeLocalRoot(t, dir, 2, 40, 30)
	b, err := localblob.OpenBucket(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	opts := &flinkckpt.Options{FlinkRoot: "file://" + filepath.ToSlash(dir)}
	resolve := func() (resume.Candidate, *flinkckpt.Position, error) {
		t.Helper()
		r, err := flinkckpt.NewResolver(b, "", opts)
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(context.Background())
		if err != nil {
			return c, nil, err
		}
		p, _ := flinkckpt.PositionOf(c.Position)
		return c, p, nil
	}
	c, p, err := resolve()
	if err != nil || p.CheckpointID != 2 || !p.Verified || p.CheckedFiles != 31 {
		t.Fatalf("intact: %+v %v", p, err)
	}
	shared := filepath.Join(dir, benchJob, "shared")
	for _, tc := range []struct {
		name, why string
		damage    func(path string) error
	}{
		{"Deleted", "1 of 31 referenced files missing, first: " + benchJob + "/shared/00000035.sst", os.Remove},
		{"Truncated", "1 of 31 referenced files of the wrong size, first: " + benchJob + "/shared/00000035.sst", func(p string) error { return os.Truncate(p, 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(shared, "00000035.sst")
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.damage(f); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(f, data, 0o644)
			c, p, err = resolve()
			if err != nil || p.CheckpointID != 1 || !c.HasWarning(flinkckpt.WarnOlderThanBroken) ||
				!hasLine(c.Reasons, `^chk-2 of job .*: broken: `+regexp.QuoteMeta(tc.why)) {
				t.Errorf("chose %+v, %v, reasons %q", p, err, c.Reasons)
			}
		})
	}
	t.Run("FIFO", func(t *testing.T) {
		f := filepath.Join(shared, "00000036.sst")
		data, _ := os.ReadFile(f)
		os.Remove(f)
		if err := syscall.Mkfifo(f, 0o644); err != nil {
			t.Fatal(err)
		}
		defer func() { os.Remove(f); os.WriteFile(f, data, 0o644) }()
		_, _, err := resolve()
		if !errors.Is(err, localblob.ErrNotRegular) || errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), benchJob+"/shared/00000036.sst") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("ExtraRoot", func(t *testing.T) {
		other := t.TempDir()
		if err := os.MkdirAll(filepath.Join(other, "dstl"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(other, "dstl", "log-1"), make([]byte, 16), 0o644); err != nil {
			t.Fatal(err)
		}
		ob, err := localblob.OpenBucket(other, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ob.Close()
		l := &flinkckpttest.Layout{Bucket: b, Root: "file://" + filepath.ToSlash(dir) + "/"}
		if _, err := l.Checkpoint(context.Background(), benchJob, 3, &flinkckpttest.Checkpoint{Shared: []string{"00000001.sst"}, FileSize: 4,
			Absolute: []string{"file://" + filepath.ToSlash(other) + "/dstl/log-1", "file://" + filepath.ToSlash(other) + "/dstl/log-2"}}); err != nil {
			t.Fatal(err)
		}
		o := *opts
		o.ExtraRoots = []flinkckpt.ExtraRoot{{FlinkRoot: "file://" + filepath.ToSlash(other), Bucket: ob}}
		r, err := flinkckpt.NewResolver(b, "", &o)
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(context.Background())
		p, _ := flinkckpt.PositionOf(c.Position)
		if err != nil || p.CheckpointID != 2 || !hasLine(c.Reasons, `^chk-3 of job .*: broken: 1 of 4 referenced files missing, first: dstl/log-2`) {
			t.Errorf("chose %+v, %v, reasons %q", p, err, c.Reasons)
		}
	})
}
