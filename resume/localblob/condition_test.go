//go:build unix

package localblob_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/resume/localblob"
)

// TestWriteCondition: a conditional write sees the target as it is at
// Close (absent, then present) and, refused, leaves it and no temporary
// file behind, with code FailedPrecondition wrapping the check's error.
func TestWriteCondition(t *testing.T) {
	dir := t.TempDir()
	b, err := localblob.OpenBucket(dir, &localblob.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	errMoved := errors.New("moved")
	write := func(content string, check func([]byte, bool) error) error {
		return b.WriteAll(context.Background(), "c/consumer-job", []byte(content), &blob.WriterOptions{BeforeWrite: func(as func(any) bool) error {
			var c *localblob.WriteCondition
			if !as(&c) {
				t.Fatal("localblob did not hand out a WriteCondition")
			}
			c.Check = check
			return nil
		}})
	}
	var saw []string
	record := func(cur []byte, exists bool) error {
		if !exists {
			saw = append(saw, "absent")
		} else {
			saw = append(saw, string(cur))
		}
		return nil
	}
	if err := write("1", record); err != nil {
		t.Fatal(err)
	}
	if err := write("2", record); err != nil {
		t.Fatal(err)
	}
	if len(saw) != 2 || saw[0] != "absent" || saw[1] != "1" {
		t.Errorf("checks saw %q, want [absent 1]", saw)
	}
	err = write("3", func([]byte, bool) error { return errMoved })
	if gcerrors.Code(err) != gcerrors.FailedPrecondition || !errors.Is(err, errMoved) {
		t.Fatalf("refused write: %v (code %v), want FailedPrecondition wrapping the check's error", err, gcerrors.Code(err))
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "c/consumer-job")); string(got) != "2" {
		t.Errorf("target holds %q after a refused write, want 2", got)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "c")); len(ents) != 1 {
		t.Errorf("c/ holds %d entries, want only the target (no temporary file left)", len(ents))
	}
}
