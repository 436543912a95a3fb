package flinkckpt_test

import (
	"context"
	"testing"

	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/internal/fixtures"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// TestFixturesVerify inspects every fixture through a file bucket: each is
// complete, with every referenced file present at its recorded size, in one
// listing of its dir and no attribute calls (all references are relative).
func TestFixturesVerify(t *testing.T) {
	root := fixtures.Dir(t)
	fb, err := fileblob.OpenBucket(root, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	b, rec := blobtest.Wrap(fb, nil)
	defer b.Close()
	for _, fx := range fixtures.Flink {
		rec.Reset()
		s, err := flinkckpt.Inspect(context.Background(), b, fx.Dir, &flinkckpt.Options{FlinkRoot: "file:///fixtures"})
		if err != nil {
			t.Errorf("%s: %v", fx.Dir, err)
			continue
		}
		v := s.Verification
		if s.State != flinkckpt.StateComplete || v.Missing+v.WrongSize+v.Refused+v.Unchecked != 0 || s.Savepoint != fx.Savepoint {
			t.Errorf("%s: state %s, %+v", fx.Dir, s.State, v)
		}
		wantLists := 0
		if len(v.Files) > 0 {
			wantLists = 1
		}
		if rec.Count(blobtest.OpList) != wantLists || rec.Count(blobtest.OpRead) != 1 || rec.Count(blobtest.OpAttributes) != 0 {
			t.Errorf("%s: calls %s", fx.Dir, rec)
		}
	}
}
