package sourcestate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
)

var writeSeeds = os.Getenv("SOURCESTATE_WRITE_SEEDS") != ""

func fuzzBytes(b []byte) string { return fmt.Sprintf("[]byte(%s)", strconv.Quote(string(b))) }

// TestFuzzSeedCorpus keeps testdata/fuzz/<target>/ in step with the
// writer: the encoder's seeds of every fuzz target, committed
// (SOURCESTATE_WRITE_SEEDS=1 rewrites them).
func TestFuzzSeedCorpus(t *testing.T) {
	corpus := map[string][]string{}
	for _, s := range streamSeeds() {
		corpus["FuzzReadSplits"] = append(corpus["FuzzReadSplits"], fuzzBytes(s.stream)+"\n"+fmt.Sprintf("int64(%d)", s.offset))
	}
	for _, c := range coordinatorSeeds() {
		corpus["FuzzCoordinator"] = append(corpus["FuzzCoordinator"], fuzzBytes(flinkckpttest.EncodeCoordinator(*c)))
		corpus["FuzzKafka"] = append(corpus["FuzzKafka"], fmt.Sprintf("int32(%d)\n%s", c.Version, fuzzBytes(c.Data)))
	}
	for _, s := range paimonSeeds() {
		corpus["FuzzPaimon"] = append(corpus["FuzzPaimon"], fmt.Sprintf("int32(%d)\n%s", s.Version, fuzzBytes(s.Data)))
	}
	for _, s := range mysqlSeeds() {
		corpus["FuzzMySQL"] = append(corpus["FuzzMySQL"], fmt.Sprintf("int32(%d)\n%s", s.Version, fuzzBytes(s.Data)))
	}
	for _, s := range postgresSeeds() {
		corpus["FuzzPostgres"] = append(corpus["FuzzPostgres"], fmt.Sprintf("int32(%d)\n%s", s.Version, fuzzBytes(s.Data)))
	}
	for _, md := range metadataSeeds() {
		data, err := flinkckpttest.Encode(md)
		if err != nil {
			t.Fatal(err)
		}
		corpus["FuzzDecode"] = append(corpus["FuzzDecode"], fuzzBytes(data))
	}
	for target, seeds := range corpus {
		for i, s := range seeds {
			want := "go test fuzz v1\n" + s + "\n"
			path := filepath.Join("testdata", "fuzz", target, fmt.Sprintf("seed-%02d", i))
			if writeSeeds {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("%s is stale (run with SOURCESTATE_WRITE_SEEDS=1)", path)
			}
		}
	}
}
