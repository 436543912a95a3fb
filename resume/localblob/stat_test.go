package localblob_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"

	"gocloud.dev/blob/memblob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/resume/localblob"
)

// TestStatKeys: StatKeys answers every key as Attributes does — a regular
// file's size and time, NotFound (Exists false) for nothing there, a
// directory, a missing directory or a key that cannot exist — including
// links, which it resolves against the whole root: one to a file in
// another directory of the bucket is followed, one leading out is refused
// with ErrOutside, as is a FIFO with ErrNotRegular. Every key is reported
// to OnKey; a bucket of another driver is not its business.
func TestStatKeys(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	mustWrite(t, filepath.Join(dir, "job", "shared", "a.sst"), "aaaa")
	mustWrite(t, filepath.Join(dir, "job", "shared", "b.sst"), "bbbbbbbb")
	mustWrite(t, filepath.Join(dir, "job", "chk-1", "x"), "xx")
	mustWrite(t, filepath.Join(outside, "secret"), "s")
	if err := os.Symlink("a.sst", filepath.Join(dir, "job", "shared", "same-dir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../chk-1/x", filepath.Join(dir, "job", "shared", "sibling")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "job", "shared", "out")); err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		noted []string
	)
	b := open(t, dir, &localblob.Options{OnKey: func(k string) { mu.Lock(); noted = append(noted, k); mu.Unlock() }})
	keys := []string{"job/shared/a.sst", "job/shared/missing", "job/shared/b.sst", "job/shared/same-dir", "job/shared/sibling",
		"job/chk-1", "job/gone/c.sst", "job/../job/shared/a.sst", "top-level-missing", "job/chk-1/x"}
	stats, ok, err := localblob.StatKeys(bg, b, keys)
	if !ok || err != nil || len(stats) != len(keys) {
		t.Fatalf("ok %v, err %v, %d stats", ok, err, len(stats))
	}
	for i, k := range keys {
		a, aerr := b.Attributes(bg, k)
		switch {
		case aerr != nil && gcerrors.Code(aerr) == gcerrors.NotFound:
			if stats[i].Exists {
				t.Errorf("%s: exists, Attributes says %v", k, aerr)
			}
		case aerr != nil:
			t.Fatalf("%s: Attributes: %v", k, aerr)
		case !stats[i].Exists || stats[i].Size != a.Size || !stats[i].ModTime.Equal(a.ModTime):
			t.Errorf("%s: %+v, Attributes says size %d, time %s", k, stats[i], a.Size, a.ModTime)
		}
	}
	if got := []int64{stats[0].Size, stats[2].Size, stats[3].Size, stats[4].Size}; !slices.Equal(got, []int64{4, 8, 4, 2}) {
		t.Errorf("sizes %v", got)
	}
	mu.Lock()
	if !slices.Equal(noted, append(keys, keys...)) { // StatKeys, then Attributes
		t.Errorf("OnKey saw %q", noted)
	}
	mu.Unlock()

	_, _, err = localblob.StatKeys(bg, b, []string{"job/shared/a.sst", "job/shared/out"})
	var le *localblob.Error
	if !errors.Is(err, localblob.ErrOutside) || !errors.As(err, &le) || le.Key != "job/shared/out" {
		t.Errorf("link out: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "job", "shared", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := localblob.StatKeys(bg, b, []string{"job/shared/fifo"}); !errors.Is(err, localblob.ErrNotRegular) {
		t.Errorf("FIFO: %v", err)
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, _, err := localblob.StatKeys(ctx, b, keys); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	mem := memblob.OpenBucket(nil)
	defer mem.Close()
	if _, ok, err := localblob.StatKeys(bg, mem, keys); ok || err != nil {
		t.Errorf("memblob: ok %v, err %v", ok, err)
	}
}
