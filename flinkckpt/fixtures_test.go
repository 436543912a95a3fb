package flinkckpt_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// fixturesDir returns ../shared/fixtures relative to the module root, or
// $RESUMEKIT_FIXTURES; it skips the test when the folder is absent.
func fixturesDir(t testing.TB) string {
	t.Helper()
	dir := fixturesDirNoSkip()
	if dir == "" {
		t.Skipf("Flink fixtures not found at ../shared/fixtures/flink (set RESUMEKIT_FIXTURES to the shared fixtures folder)")
	}
	return dir
}

// fixturesDirNoSkip returns the fixtures' flink folder, or "" when absent.
func fixturesDirNoSkip() string {
	dir := os.Getenv("RESUMEKIT_FIXTURES")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "shared", "fixtures")
	}
	dir = filepath.Join(dir, "flink")
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

// fixture describes one real _metadata tree, as fixtures/README.md lists it.
type fixture struct {
	dir          string
	version      int
	checkpointID int64
	operators    int
	savepoint    bool
	format       string
	relative     int // relative file references
}

var fixtures = []fixture{
	{"v2-flink1.6-savepoint", 2, 108, 2, false, "", 0},
	{"v2-flink1.8-complexkeyed-savepoint", 2, 381, 3, false, "", 0},
	{"v3-flink1.12-rocksdb-raw-timers", 3, 1, 4, false, "", 0},
	{"v3-flink1.15-rocksdb-checkpoint", 3, 1, 8, false, "", 16},
	{"v3-unified-sink/savepoint-7bd90b-3a2cda6957cb", 3, 3, 4, true, "", 0},
	{"v4-flink1.16-changelog-checkpoint", 4, 2, 3, false, "", 1},
	{"v4-flink1.17-rocksdb-incremental-checkpoint", 4, 1, 8, false, "", 122},
	{"v4-flink1.19-rocksdb-native-savepoint", 4, 1, 8, true, "NATIVE", 82},
	{"v4-flink1.19-hashmap-canonical-savepoint", 4, 2, 8, true, "CANONICAL", 16},
	{"v4-flink1.19-complexkeyed-savepoint", 4, 382, 4, true, "CANONICAL", 0},
}

func TestFixturesParse(t *testing.T) {
	root := fixturesDir(t)
	for _, fx := range fixtures {
		t.Run(fx.dir, func(t *testing.T) {
			dir := filepath.Join(root, fx.dir)
			data, err := os.ReadFile(filepath.Join(dir, "_metadata"))
			if err != nil {
				t.Fatal(err)
			}
			md, err := flinkckpt.ParseMetadata(data, &flinkckpt.ReadOptions{Dir: fx.dir})
			if err != nil {
				t.Fatal(err)
			}
			if md.Size != int64(len(data)) {
				t.Errorf("parsed %d of %d bytes", md.Size, len(data))
			}
			if md.Version != fx.version || md.CheckpointID != fx.checkpointID || len(md.Operators) != fx.operators ||
				md.Savepoint != fx.savepoint || md.Format != fx.format {
				t.Errorf("got version %d id %d operators %d savepoint %v format %q, want %d %d %d %v %q",
					md.Version, md.CheckpointID, len(md.Operators), md.Savepoint, md.Format,
					fx.version, fx.checkpointID, fx.operators, fx.savepoint, fx.format)
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
			if rel != fx.relative || missing != 0 {
				t.Errorf("%d relative references (%d missing), want %d and 0", rel, missing, fx.relative)
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

// TestFixturesVerify inspects every fixture through a file bucket: each is
// complete, with every referenced file present at its recorded size, in one
// listing of its dir and no attribute calls (all references are relative).
func TestFixturesVerify(t *testing.T) {
	root := fixturesDir(t)
	fb, err := fileblob.OpenBucket(root, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	b, rec := blobtest.Wrap(fb, nil)
	defer b.Close()
	for _, fx := range fixtures {
		rec.Reset()
		s, err := flinkckpt.Inspect(context.Background(), b, fx.dir, &flinkckpt.Options{FlinkRoot: "file:///fixtures"})
		if err != nil {
			t.Errorf("%s: %v", fx.dir, err)
			continue
		}
		v := s.Verification
		if s.State != flinkckpt.StateComplete || v.Missing+v.WrongSize+v.Refused+v.Unchecked != 0 || s.Savepoint != fx.savepoint {
			t.Errorf("%s: state %s, %+v", fx.dir, s.State, v)
		}
		wantLists := 0
		if len(v.Files) > 0 {
			wantLists = 1
		}
		if rec.Count(blobtest.OpList) != wantLists || rec.Count(blobtest.OpRead) != 1 || rec.Count(blobtest.OpAttributes) != 0 {
			t.Errorf("%s: calls %s", fx.dir, rec)
		}
	}
}
