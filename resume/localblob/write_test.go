package localblob_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/resume/localblob"
)

// TestWriteStaysInTheTargetDir: the temporary file of a write lives in the
// target's own directory, under a name no consumer-*, snapshot-* or
// _metadata listing matches, so the final step is a rename inside one
// directory (never across directories or file systems).
func TestWriteStaysInTheTargetDir(t *testing.T) {
	dir := t.TempDir()
	b := open(t, dir, nil)
	var tmp string
	err := b.WriteAll(bg, "consumer/consumer-job", []byte("x"), &blob.WriterOptions{
		BeforeWrite: func(as func(any) bool) error {
			var f *os.File
			if !as(&f) {
				t.Fatal("BeforeWrite: no *os.File")
			}
			tmp = f.Name()
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(tmp) != filepath.Join(dir, "consumer") {
		t.Errorf("temporary file %q is not opened in the target's directory", tmp)
	}
	base := filepath.Base(tmp)
	if !strings.HasPrefix(base, ".consumer-job.") || !strings.HasSuffix(base, ".tmp") {
		t.Errorf("temporary name %q: want .consumer-job.<random>.tmp", base)
	}
	if got := names(t, filepath.Join(dir, "consumer")); len(got) != 1 || got[0] != "consumer-job" {
		t.Errorf("consumer/ holds %q, want only consumer-job", got)
	}
}

// TestWriteOnAnotherFileSystemThanTMPDIR writes into a directory on one file
// system while TMPDIR is on another (/dev/shm, a tmpfs, when it is a
// different device): fileblob fails with "invalid cross-device link",
// localblob succeeds.
func TestWriteOnAnotherFileSystemThanTMPDIR(t *testing.T) {
	dir := t.TempDir()
	shm, err := os.MkdirTemp("/dev/shm", "localblob-tmpdir-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	var a, c syscall.Stat_t
	if syscall.Stat(dir, &a) != nil || syscall.Stat(shm, &c) != nil || a.Dev == c.Dev {
		t.Skip("/dev/shm is on the same file system as the test's temporary directory")
	}
	t.Setenv("TMPDIR", shm)

	fb, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	if err := fb.WriteAll(bg, "consumer/consumer-job", []byte("x"), nil); !errors.Is(err, syscall.EXDEV) {
		t.Logf("fileblob across file systems: %v (expected EXDEV; the environment may differ)", err)
	}

	b := open(t, dir, nil)
	if err := b.WriteAll(bg, "consumer/consumer-job", []byte(`{"nextSnapshot":3}`), nil); err != nil {
		t.Fatalf("localblob with TMPDIR on another file system: %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "consumer", "consumer-job")); err != nil || string(got) != `{"nextSnapshot":3}` {
		t.Errorf("written %q, %v", got, err)
	}
	if got := names(t, shm); len(got) != 0 {
		t.Errorf("TMPDIR used: %q", got)
	}
}

// TestFailedWritesLeaveNothing: a cancelled context, a wrong MD5 and a
// BeforeWrite error each leave the directory as it was.
func TestFailedWritesLeaveNothing(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "consumer", "consumer-job"), "old")
	b := open(t, dir, nil)

	ctx, cancel := context.WithCancel(bg)
	w, err := b.NewWriter(ctx, "consumer/consumer-job", nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("new"))
	cancel()
	if err := w.Close(); err == nil {
		t.Error("a write whose context was cancelled succeeded")
	}
	err = b.WriteAll(bg, "consumer/consumer-job", []byte("new"), &blob.WriterOptions{ContentMD5: []byte("0123456789abcdef")})
	if err == nil {
		t.Error("a write with a wrong MD5 succeeded")
	}
	err = b.WriteAll(bg, "consumer/consumer-job", []byte("new"), &blob.WriterOptions{BeforeWrite: func(func(any) bool) error { return errors.New("no") }})
	if err == nil {
		t.Error("a write whose BeforeWrite failed succeeded")
	}
	if got := names(t, filepath.Join(dir, "consumer")); len(got) != 1 {
		t.Errorf("consumer/ holds %q after failed writes, want only consumer-job", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "consumer", "consumer-job")); string(got) != "old" {
		t.Errorf("content %q after failed writes, want old", got)
	}
}

// TestNoSidecar: attributes are dropped, user metadata is refused, and
// nothing but the object is ever written.
func TestNoSidecar(t *testing.T) {
	dir := t.TempDir()
	b := open(t, dir, nil)
	err := b.WriteAll(bg, "consumer/consumer-job", []byte("x"), &blob.WriterOptions{
		ContentType: "application/json", CacheControl: "no-cache", ContentLanguage: "en",
	})
	if err != nil {
		t.Fatal(err)
	}
	err = b.WriteAll(bg, "consumer/consumer-other", []byte("x"), &blob.WriterOptions{Metadata: map[string]string{"a": "b"}})
	if gcerrors.Code(err) != gcerrors.InvalidArgument {
		t.Errorf("user metadata: %v, want InvalidArgument", err)
	}
	if got := names(t, filepath.Join(dir, "consumer")); len(got) != 1 || got[0] != "consumer-job" {
		t.Errorf("consumer/ holds %q, want only consumer-job (no .attrs)", got)
	}
	a, err := b.Attributes(bg, "consumer/consumer-job")
	if err != nil || a.ContentType != "application/octet-stream" || a.Size != 1 {
		t.Errorf("attributes %+v, %v", a, err)
	}
}

// TestKeysAreFileNames: a file name is its key, byte for byte (fileblob
// would list "__0x1b__" as an escape character); keys that are not clean
// relative paths are NotFound for reads and InvalidArgument for writes.
func TestKeysAreFileNames(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "consumer", "consumer-__0x1b__[31m"), "x")
	b := open(t, dir, nil)
	objs, _, err := b.ListPage(bg, blob.FirstPageToken, 10, &blob.ListOptions{Prefix: "consumer/", Delimiter: "/"})
	if err != nil || len(objs) != 1 || objs[0].Key != "consumer/consumer-__0x1b__[31m" {
		t.Errorf("listing %v, %v", objs, err)
	}
	for _, key := range []string{"../x", "a/../../x", "a//b", "/etc/passwd", "a/./b", "a\x00b", "a/"} {
		if _, err := b.ReadAll(bg, key); gcerrors.Code(err) != gcerrors.NotFound || !errors.Is(err, localblob.ErrInvalidKey) {
			t.Errorf("read %q: %v, want NotFound / ErrInvalidKey", key, err)
		}
		if err := b.WriteAll(bg, key, []byte("x"), nil); gcerrors.Code(err) != gcerrors.InvalidArgument {
			t.Errorf("write %q: %v, want InvalidArgument", key, err)
		}
	}
}
