package flinkckpt_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/internal/fixtures"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// changelogJobRoot is a checkpoint root holding a real changelog-backend
// checkpoint (Flink 1.16's, the shared fixture, as chk-2 of job jobA) and
// a later canonical savepoint of the same job and operators, whose
// handles show only the nested backend — what Flink writes for a
// changelog job's savepoint.
func changelogJobRoot(t *testing.T, changelog bool) (dir string, opts *flinkckpt.Options) {
	t.Helper()
	src := filepath.Join(fixtures.Dir(t), "v4-flink1.16-changelog-checkpoint")
	dir = t.TempDir()
	chk := filepath.Join(dir, jobA, "chk-2")
	if err := os.MkdirAll(chk, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	var md *metadata.Checkpoint
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "_metadata" {
			if md, err = metadata.Parse(b, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(chk, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(chk, "_metadata"), old, old); err != nil {
		t.Fatal(err)
	}
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	l := &flinkckpttest.Layout{Bucket: b, Root: "file:///data/"}
	var ids []string
	for _, op := range md.Operators {
		ids = append(ids, op.ID)
	}
	if !changelog {
		// The job's newest checkpoint runs without the changelog backend.
		if _, err := l.Checkpoint(context.Background(), jobA, 3, &flinkckpttest.Checkpoint{OperatorIDs: ids}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Savepoint(context.Background(), flinkckpttest.SavepointName(jobA, 1), 5, &flinkckpttest.Checkpoint{
		Savepoint: true, Format: metadata.FormatCanonical, StateBackend: "canonical", OperatorIDs: ids}); err != nil {
		t.Fatal(err)
	}
	return dir, &flinkckpt.Options{FlinkRoot: "file:///data/", FlinkVersion: "1.20"}
}

func resolveDir(t *testing.T, dir string, o *flinkckpt.Options) (*flinkckpt.Position, []string, map[string]string) {
	t.Helper()
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r, err := flinkckpt.NewResolver(b, "", o)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p, err := flinkckpt.PositionOf(c.Position)
	if err != nil {
		t.Fatal(err)
	}
	w := map[string]string{}
	for _, x := range c.Warnings {
		w[string(x.Code)] = x.Text
	}
	return p, p.Launch().Args, w
}

// TestChangelogJobSavepointClaims (#33 item 12): the savepoint of a job
// whose checkpoints (a real Flink changelog-backend checkpoint) show the
// changelog state backend is launched in CLAIM — in NO_CLAIM Flink
// restores it and then fails the first checkpoint ("does not support
// enforcing a full snapshot") — with the warning that says what CLAIM
// hands to Flink and why.
func TestChangelogJobSavepointClaims(t *testing.T) {
	dir, o := changelogJobRoot(t, true)
	p, args, w := resolveDir(t, dir, o)
	if !p.Savepoint || p.ClaimMode != "CLAIM" || strings.Join(args[2:], " ") != "-claimMode CLAIM" {
		t.Fatalf("chose %s in %q, args %q", p, p.ClaimMode, args)
	}
	if p.StateBackend != flinkckpt.BackendCanonical {
		t.Errorf("savepoint backend %q", p.StateBackend)
	}
	text := w[flinkckpt.WarnOwnedByNewJob]
	for _, want := range []string{"Flink owns it now", "changelog state backend", "chk-2 of job " + jobA, "which deletes it once a newer checkpoint subsumes it"} {
		if !strings.Contains(text, want) {
			t.Errorf("CLAIM warning without %q: %s", want, text)
		}
	}
	if _, ok := w[flinkckpt.WarnKeepUntilFirstCheckpoint]; ok {
		t.Errorf("NO_CLAIM advice too: %q", w)
	}

	// Asked for NO_CLAIM: as asked.
	o.ClaimMode = flinkckpt.ClaimNoClaim
	if p, _, _ := resolveDir(t, dir, o); p.ClaimMode != "NO_CLAIM" {
		t.Errorf("asked NO_CLAIM, got %s", p.ClaimMode)
	}
}

// TestSavepointOfJobThatLeftChangelogNoClaim: when the job's newest
// checkpoint no longer runs the changelog backend, its savepoint is
// launched in NO_CLAIM as any other.
func TestSavepointOfJobThatLeftChangelogNoClaim(t *testing.T) {
	dir, o := changelogJobRoot(t, false)
	p, _, w := resolveDir(t, dir, o)
	if !p.Savepoint || p.ClaimMode != "NO_CLAIM" {
		t.Fatalf("chose %s in %q: %q", p, p.ClaimMode, w)
	}
}
