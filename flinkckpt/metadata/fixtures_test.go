package metadata_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/internal/fixtures"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

func TestFixturesParse(t *testing.T) {
	root := fixtures.Dir(t)
	for _, fx := range fixtures.Flink {
		t.Run(fx.Dir, func(t *testing.T) {
			dir := filepath.Join(root, fx.Dir)
			data, err := os.ReadFile(filepath.Join(dir, "_metadata"))
			if err != nil {
				t.Fatal(err)
			}
			md, err := metadata.Parse(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if md.Size != int64(len(data)) {
				t.Errorf("parsed %d of %d bytes", md.Size, len(data))
			}
			if md.Version != fx.Version || md.CheckpointID != fx.CheckpointID || len(md.Operators) != fx.Operators ||
				md.Savepoint != (fx.Savepoint && fx.Version >= 4) || string(md.Format) != fx.Format {
				t.Errorf("got version %d id %d operators %d savepoint %v format %q, want %d %d %d %v %q",
					md.Version, md.CheckpointID, len(md.Operators), md.Savepoint, md.Format,
					fx.Version, fx.CheckpointID, fx.Operators, fx.Savepoint, fx.Format)
			}
			rel, missing := 0, 0
			for _, f := range md.Files {
				if !f.Relative {
					t.Errorf("absolute reference %q", f.Path)
					continue
				}
				rel++
				st, err := os.Stat(filepath.Join(dir, f.Path))
				if err != nil || st.Size() != f.Size {
					missing++
					t.Errorf("%s: %v (size %d want %d)", f.Path, err, sizeOf(st), f.Size)
				}
			}
			if rel != fx.Relative || missing != 0 {
				t.Errorf("%d relative references (%d missing), want %d and 0", rel, missing, fx.Relative)
			}
		})
	}
}

func sizeOf(st os.FileInfo) int64 {
	if st == nil {
		return -1
	}
	return st.Size()
}
