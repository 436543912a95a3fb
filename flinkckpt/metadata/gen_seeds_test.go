package metadata_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
)

var writeSeeds = os.Getenv("FLINKCKPT_WRITE_SEEDS") != ""

// TestFuzzSeedCorpus keeps testdata/fuzz/FuzzReadMetadata in step with the
// writer: small _metadata files of versions 3 to 6 (FLINKCKPT_WRITE_SEEDS=1
// rewrites them).
func TestFuzzSeedCorpus(t *testing.T) {
	seeds := map[string]*flinkckpttest.Spec{
		"v3-checkpoint":        {Version: 3, CheckpointID: 1, Operators: 1, Relative: []string{"a"}, FileSize: 4},
		"v4-incremental":       {Version: 4, CheckpointID: 9, Operators: 2, Absolute: []string{"s3a://b/ck/j/shared/x"}, Relative: []string{"p"}, FileSize: 8},
		"v5-native-savepoint":  {Version: 5, CheckpointID: 3, Operators: 1, Relative: []string{"r"}, FileSize: 2, Savepoint: true, Format: "NATIVE"},
		"v6-drained-savepoint": {Version: 6, CheckpointID: 4, Operators: 1, FileSize: 1, Savepoint: true, Format: "CANONICAL", Drained: true},
	}
	for name, spec := range seeds {
		data, err := flinkckpttest.Encode(spec.Metadata())
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(data)))
		path := filepath.Join("testdata", "fuzz", "FuzzReadMetadata", name)
		if writeSeeds {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s is stale (run with FLINKCKPT_WRITE_SEEDS=1)", path)
		}
	}
}
