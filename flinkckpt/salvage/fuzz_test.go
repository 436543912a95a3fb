package salvage_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/resume"
)

// FuzzPositionJSON: any "position" object of a flink-salvage candidate read
// back from a decision document either fails to decode (PositionOf returns
// an error, no panic), or decodes into a Position that marshals, and whose
// JSON is a fixed point after one round. Seeds: the golden position and
// testdata/fuzz/FuzzPositionJSON.
func FuzzPositionJSON(f *testing.F) {
	golden, err := os.ReadFile(filepath.Join("testdata", "position.golden.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(golden)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := salvage.PositionOf(&resume.RawPosition{PositionKind: salvage.KindSalvage, JSON: data})
		if err != nil {
			return
		}
		first, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("decoded %q but cannot marshal it: %v", data, err)
		}
		back, err := salvage.PositionOf(&resume.RawPosition{PositionKind: salvage.KindSalvage, JSON: first})
		if err != nil {
			t.Fatalf("cannot read back %s: %v", first, err)
		}
		if second, err := json.Marshal(back); err != nil || !bytes.Equal(first, second) {
			t.Fatalf("not a fixed point (%v):\n%s\n%s", err, first, second)
		}
		_ = back.String()
		_ = back.Launch()
	})
}
