//go:build unix

package localblob_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/resumekit/resumekit/resume/localblob"
)

// Issue 31: under umask 000 a written file was 0666 and a new directory
// 0777 (a Paimon consumer file any local user could rewrite). Files are
// 0644, or keep the mode of the file they replace; directories 0755.
// Under a restrictive umask (077) new directories were 0700, which another
// user's Flink or Paimon process cannot read: they are 0755 too.
// (Not parallel: the umask is the process's.)
func TestWriteModesWhateverTheUmask(t *testing.T) {
	for _, umask := range []int{0, 0o077, 0o027} {
		t.Run(fmt.Sprintf("umask %03o", umask), func(t *testing.T) { testWriteModes(t, umask) })
	}
}

func testWriteModes(t *testing.T, umask int) {
	old := syscall.Umask(umask)
	defer syscall.Umask(old)
	dir := t.TempDir()
	b, err := localblob.OpenBucket(dir, &localblob.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	if err := b.WriteAll(ctx, "t/consumer/consumer-job", []byte(`{"nextSnapshot":5}`), nil); err != nil {
		t.Fatal(err)
	}
	mode := func(p string) os.FileMode {
		fi, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	if m := mode("t/consumer/consumer-job"); m != 0o644 {
		t.Errorf("file mode %o, want 644", m)
	}
	for _, d := range []string{"t", "t/consumer"} {
		if m := mode(d); m != 0o755 {
			t.Errorf("%s: dir mode %o, want 755", d, m)
		}
	}
	// A file replaced keeps its mode.
	if err := os.Chmod(filepath.Join(dir, "t/consumer/consumer-job"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteAll(ctx, "t/consumer/consumer-job", []byte(`{"nextSnapshot":6}`), nil); err != nil {
		t.Fatal(err)
	}
	if m := mode("t/consumer/consumer-job"); m != 0o600 {
		t.Errorf("replaced file mode %o, want 600 (the replaced file's)", m)
	}
	// A directory that exists keeps its mode; only new ones are 0755.
	if err := os.Chmod(filepath.Join(dir, "t"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteAll(ctx, "t/snapshot/snapshot-1", []byte(`{}`), nil); err != nil {
		t.Fatal(err)
	}
	if m := mode("t"); m != 0o700 {
		t.Errorf("existing dir t: mode %o, want 700 (kept)", m)
	}
	if m := mode("t/snapshot"); m != 0o755 {
		t.Errorf("t/snapshot: dir mode %o, want 755", m)
	}
}
