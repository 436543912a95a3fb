package flinkckpt_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume"
)

// TestLargeMetadata (item 7): Flink sets no size limit on _metadata, and
// every state handle up to execution.checkpointing.data-inline-threshold
// (at most 1 MiB) is written inline, so a union list state over a few
// hundred subtasks makes hundreds of MB. A 280 MB _metadata (one operator,
// 280 subtasks of 1 MiB inline union state, on a local directory) is read
// under the default limit, held once, and chosen; under a lower limit it is
// "too large to inspect" and resolution stops there — never falling back to
// the older checkpoint.
func TestLargeMetadata(t *testing.T) {
	const size = 280 << 20
	ctx := context.Background()
	dir := filepath.ToSlash(t.TempDir())
	fb, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	l := &flinkckpttest.Layout{Bucket: fb, Prefix: "ck/", Root: "file://" + dir + "/", PathString: true}
	if _, err := l.Checkpoint(ctx, jobA, 1, &flinkckpttest.Checkpoint{Shared: shared("a", 1)}); err != nil {
		t.Fatal(err)
	}
	w, err := l.Checkpoint(ctx, jobA, 2, &flinkckpttest.Checkpoint{Shared: shared("b", 1), UnionState: size})
	if err != nil {
		t.Fatal(err)
	}
	a, err := fb.Attributes(ctx, w.Dir+"_metadata")
	if err != nil || a.Size < size {
		t.Fatalf("_metadata of %d bytes, %v", a.Size, err)
	}
	opts := &flinkckpt.Options{FlinkRoot: "file:" + dir + "/ck"}
	r, err := flinkckpt.NewResolver(fb, "ck/", opts)
	if err != nil {
		t.Fatal(err)
	}
	var c resume.Candidate
	n := allocBytes(func() { c, err = r.Resolve(ctx) })
	if err != nil {
		t.Fatal(err)
	}
	p, _ := flinkckpt.PositionOf(c.Position)
	if p.CheckpointID != 2 || !p.Verified || p.CheckedFiles != 2 {
		t.Errorf("chose %+v", p)
	}
	if !hasLine(c.Reasons, `^chk-2 of job .*: checkpoint _metadata version 4, checkpoint id 2, 3 operators`) {
		t.Errorf("reasons %q", c.Reasons)
	}
	// One buffer of the file's size, the model sharing it: well under two
	// copies.
	if n > uint64(a.Size)+uint64(a.Size)/4 {
		t.Errorf("allocated %d bytes for a %d-byte _metadata: more than one copy", n, a.Size)
	}
	t.Logf("resolved a %d-byte _metadata, %d bytes allocated", a.Size, n)

	opts.MaxMetadataSize = 256 << 20
	r, err = flinkckpt.NewResolver(fb, "ck/", opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Resolve(ctx)
	var tl *flinkckpt.TooLargeError
	if !errors.As(err, &tl) || tl.Key != w.Dir+"_metadata" || tl.Size != a.Size || tl.Limit != 256<<20 ||
		!errors.Is(err, metadata.ErrTooLarge) || errors.Is(err, resume.ErrNoPosition) ||
		!strings.Contains(err.Error(), "too large to inspect") || !strings.Contains(err.Error(), "--flink-max-metadata-size") {
		t.Errorf("err %v", err)
	}
}
