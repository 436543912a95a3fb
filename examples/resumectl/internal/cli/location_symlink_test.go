package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/examples/internal/scenario"
)

// TestSymlinksOutOfTheRootAreRefused plants symlinks in a checkpoint root
// and a Paimon table that point outside them: resumectl refuses to follow
// them, naming the path, and never writes through one.
func TestSymlinksOutOfTheRootAreRefused(t *testing.T) {
	dir, b := tempBucket(t)
	outside := t.TempDir()
	env := &scenario.Env{Bucket: b, Root: "file://" + filepath.ToSlash(dir) + "/", Touch: func(k string, tm time.Time) error {
		return os.Chtimes(filepath.Join(dir, k), tm, tm)
	}}
	f, err := scenario.BuildFlink(env, "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenario.BuildPaimon(env, "")
	if err != nil {
		t.Fatal(err)
	}
	// The good checkpoint's _metadata is a link to a file elsewhere. (A
	// linked directory is not even listed: fileblob does not follow it.)
	meta := filepath.Join(dir, "checkpoints", f.JobID, "chk-41", "_metadata")
	if err := os.Rename(meta, filepath.Join(outside, "_metadata")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "_metadata"), meta); err != nil {
		t.Fatal(err)
	}
	// The consumer folder linked out of the table.
	consumerDir := filepath.Join(dir, filepath.FromSlash(p.TablePath), "consumer")
	if err := os.Rename(consumerDir, filepath.Join(outside, "consumer")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "consumer"), consumerDir); err != nil {
		t.Fatal(err)
	}

	var out, errOut strings.Builder
	code := Main([]string{"resolve", "--flink-checkpoints", filepath.Join(dir, "checkpoints")}, &out, &errOut)
	if code == ExitOK || strings.Contains(out.String(), "CHOSEN  flink-checkpoints: chk-41") {
		t.Errorf("chk-41 behind a symlink was used (exit %d):\n%s", code, out.String())
	}
	if !strings.Contains(out.String()+errOut.String(), "resolves through a symlink") {
		t.Errorf("the refusal is not explained:\n%s%s", out.String(), errOut.String())
	}

	out.Reset()
	errOut.Reset()
	table := filepath.Join(dir, filepath.FromSlash(p.TablePath))
	code = Main([]string{"paimon", "reset-consumer", table, "--consumer", "intruder", "--next-snapshot", "40", "--execute", "--force"}, &out, &errOut)
	if code == ExitOK {
		t.Errorf("reset-consumer wrote through a symlinked consumer folder:\n%s", out.String())
	}
	if _, err := os.Stat(filepath.Join(outside, "consumer", "consumer-intruder")); err == nil {
		t.Error("consumer-intruder was written outside the table")
	}
	if !strings.Contains(errOut.String(), "resolves through a symlink") {
		t.Errorf("stderr does not explain the refusal: %s", errOut.String())
	}
}
