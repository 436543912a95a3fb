package localblob_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/resume/localblob"
)

var bg = context.Background()

func open(t *testing.T, dir string, opts *localblob.Options) *blob.Bucket {
	t.Helper()
	b, err := localblob.OpenBucket(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// names returns the entries of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

// TestSymlinkedDirOutOfTheRoot: a consumer/ folder that is a link to a
// folder outside the table is refused for reads, writes and listings, with
// ErrOutside and code PermissionDenied; nothing is written outside.
func TestSymlinkedDirOutOfTheRoot(t *testing.T) {
	table, outside := t.TempDir(), t.TempDir()
	mustWrite(t, filepath.Join(outside, "consumer-job"), `{"nextSnapshot":1}`)
	for _, target := range []string{outside, "../" + filepath.Base(outside)} { // absolute and relative links
		link := filepath.Join(table, "consumer")
		os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		b := open(t, table, nil)
		_, err := b.ReadAll(bg, "consumer/consumer-job")
		if !errors.Is(err, localblob.ErrOutside) || gcerrors.Code(err) != gcerrors.PermissionDenied {
			t.Errorf("link %s: read: %v, want ErrOutside / PermissionDenied", target, err)
		}
		err = b.WriteAll(bg, "consumer/consumer-intruder", []byte("x"), nil)
		if !errors.Is(err, localblob.ErrOutside) {
			t.Errorf("link %s: write: %v, want ErrOutside", target, err)
		}
		_, _, err = b.ListPage(bg, blob.FirstPageToken, 10, &blob.ListOptions{Prefix: "consumer/consumer-", Delimiter: "/"})
		if !errors.Is(err, localblob.ErrOutside) {
			t.Errorf("link %s: list: %v, want ErrOutside", target, err)
		}
		if _, err := b.Attributes(bg, "consumer/consumer-job"); !errors.Is(err, localblob.ErrOutside) {
			t.Errorf("link %s: attributes: %v, want ErrOutside", target, err)
		}
	}
	if got := names(t, outside); len(got) != 1 {
		t.Errorf("outside holds %q, want only consumer-job", got)
	}
}

// TestSymlinkInsideTheRootIsFollowed: links that stay inside are fine.
func TestSymlinkInsideTheRootIsFollowed(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "real", "f"), "hello")
	if err := os.Symlink("real", filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	b := open(t, dir, nil)
	got, err := b.ReadAll(bg, "alias/f")
	if err != nil || string(got) != "hello" {
		t.Fatalf("read through an inside link: %q, %v", got, err)
	}
	if err := b.WriteAll(bg, "alias/g", []byte("x"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "real", "g")); err != nil {
		t.Errorf("write through an inside link did not land in real/: %v", err)
	}
	objs, _, err := b.ListPage(bg, blob.FirstPageToken, 10, &blob.ListOptions{Delimiter: "/"})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.Key)
	}
	if len(keys) != 2 || keys[0] != "alias/" || keys[1] != "real/" {
		t.Errorf("root listing %q, want [alias/ real/]", keys)
	}
}

// TestLinkSwappedDuringWrites swaps consumer/ between a link to a folder
// inside the table and a link to a folder outside it, in a tight loop, while
// writes run: no write ever lands outside, and no temporary file is left
// behind. (Before localblob, a link swapped between resumectl's symlink
// check and fileblob's rename let the write land outside in under 20 tries.)
func TestLinkSwappedDuringWrites(t *testing.T) {
	table, outside := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(table, "consumer.real"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(table, "consumer")
	if err := os.Symlink("consumer.real", link); err != nil {
		t.Fatal(err)
	}
	b := open(t, table, &localblob.Options{NoSync: true})
	var stop atomic.Bool
	var wg sync.WaitGroup
	var swaps atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		tmp := filepath.Join(table, "consumer.swap")
		for i := 0; !stop.Load(); i++ {
			target := "consumer.real"
			if i%2 == 1 {
				target = outside
			}
			os.Remove(tmp)
			if os.Symlink(target, tmp) == nil && os.Rename(tmp, link) == nil {
				swaps.Add(1)
			}
		}
	}()
	// Write until the race was run both ways many times (most writes are
	// refused: the link must point inside at both of a write's looks).
	var ok, refused, i int
	for i = 0; i < 100_000 && (ok < 20 || refused < 20); i++ {
		err := b.WriteAll(bg, "consumer/consumer-job", []byte(`{"nextSnapshot":7}`), nil)
		switch {
		case err == nil:
			ok++
		case errors.Is(err, localblob.ErrOutside):
			refused++
		default:
			t.Fatalf("write %d: %v", i, err)
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d writes: %d landed inside, %d refused, %d swaps", i, ok, refused, swaps.Load())
	if ok < 20 || refused < 20 {
		t.Errorf("the race was not run both ways: %d inside, %d refused", ok, refused)
	}
	if got := names(t, outside); len(got) != 0 {
		t.Errorf("files written outside the table: %q", got)
	}
	for _, n := range names(t, filepath.Join(table, "consumer.real")) {
		if n != "consumer-job" {
			t.Errorf("left behind in consumer.real: %q", n)
		}
	}
}

// TestFIFOIsRefusedNotWaitedOn: a named pipe named like a consumer file or a
// _metadata is listed, but reading it fails at once with ErrNotRegular
// (without a writer, opening a FIFO for reading would block forever).
func TestFIFOIsRefusedNotWaitedOn(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"consumer/consumer-job", "chk-7/_metadata"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(dir, p), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	b := open(t, dir, nil)
	for _, key := range []string{"consumer/consumer-job", "chk-7/_metadata"} {
		_, err := b.NewReader(bg, key, nil)
		if !errors.Is(err, localblob.ErrNotRegular) || gcerrors.Code(err) != gcerrors.FailedPrecondition {
			t.Errorf("read %s: %v, want ErrNotRegular / FailedPrecondition", key, err)
		}
		if _, err := b.Attributes(bg, key); !errors.Is(err, localblob.ErrNotRegular) {
			t.Errorf("attributes %s: %v, want ErrNotRegular", key, err)
		}
	}
	objs, _, err := b.ListPage(bg, blob.FirstPageToken, 10, &blob.ListOptions{Prefix: "consumer/", Delimiter: "/"})
	if err != nil || len(objs) != 1 || objs[0].Key != "consumer/consumer-job" {
		t.Errorf("the FIFO is not listed: %v, %v", objs, err)
	}
}

// TestFIFOSwappedInAfterTheStat: the open itself never blocks either (the
// file is opened with O_NONBLOCK and checked again after the open), shown by
// reading a FIFO through the reader path directly: the stat-then-open window
// is covered by replacing a regular file with a FIFO many times while reads
// run; every read either returns the content or ErrNotRegular, and returns.
func TestFIFOSwappedInAfterTheStat(t *testing.T) {
	dir := t.TempDir()
	b := open(t, dir, nil)
	path := filepath.Join(dir, "_metadata")
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			os.Remove(path)
			if i%2 == 0 {
				_ = syscall.Mkfifo(path, 0o644)
			} else {
				_ = os.WriteFile(path, []byte("data"), 0o644)
			}
		}
	}()
	for i := 0; i < 300; i++ {
		r, err := b.NewReader(bg, "_metadata", nil)
		if err != nil {
			if !errors.Is(err, localblob.ErrNotRegular) && gcerrors.Code(err) != gcerrors.NotFound {
				t.Fatalf("read %d: %v", i, err)
			}
			continue
		}
		_, _ = io.ReadAll(r)
		r.Close()
	}
	stop.Store(true)
	wg.Wait()
}
