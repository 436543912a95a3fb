package flinkckpt_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt"
)

// resolveRealFlink2x resolves the checkpoints of the real Flink 2.x tree
// name (testdata/conformance-2.x) under the root Flink wrote it with.
func resolveRealFlink2x(t *testing.T, name string) (flinkckpt.Position, []string) {
	t.Helper()
	sd := filepath.Join(realFlink2xDir(), name)
	raw, err := os.ReadFile(filepath.Join(sd, "facts.json"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var f realFlinkFacts
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	b, err := fileblob.OpenBucket(sd, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r, err := flinkckpt.NewResolver(b, "ck/", &flinkckpt.Options{FlinkRoot: strings.TrimSuffix(f.Root, "/") + "/ck", FlinkVersion: "2.2"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(context.Background())
	if err != nil {
		t.Fatalf("%s: Resolve: %v", name, err)
	}
	return c.Position.(flinkckpt.Position), c.Reasons
}

// TestRealFlinkForSt (issue 29 item 3): on real Flink 2.2.0 ForSt trees, a
// job on the async state API (F15a) is named forst — its keyed state meta
// info records KEY_VALUE_V2, which only ForSt writes — and one on the
// classic state API (F15), whose handles and meta data file are RocksDB's
// byte for byte, stays rocksdb-incremental, said to be possibly ForSt's.
// Both say that ForSt takes no canonical savepoint, in Flink's words.
func TestRealFlinkForSt(t *testing.T) {
	p, reasons := resolveRealFlink2x(t, "F15a")
	if p.StateBackend != flinkckpt.BackendForSt {
		t.Errorf("F15a: state_backend %q, want forst: %q", p.StateBackend, reasons)
	}
	if !hasReason(reasons, "state backend forst (its keyed state meta info records state of the async state API, KEY_VALUE_V2") ||
		!hasReason(reasons, `ForSt takes no canonical savepoint ("Canonical savepoints are not supported by ForSt State Backend."`) {
		t.Errorf("F15a reasons: %q", reasons)
	}
	p, reasons = resolveRealFlink2x(t, "F15")
	if p.StateBackend != flinkckpt.BackendRocksDBIncremental {
		t.Errorf("F15: state_backend %q: %q", p.StateBackend, reasons)
	}
	if !hasReason(reasons, "state backend rocksdb-incremental (from its keyed state handles), or ForSt's: Flink 2.x writes the same handles for both") ||
		!hasReason(reasons, "if it runs ForSt, ForSt takes no canonical savepoint") {
		t.Errorf("F15 reasons: %q", reasons)
	}
	// RocksDB on Flink 2.x (F2): the same words; on Flink 1.20 none.
	if _, reasons = resolveRealFlink2x(t, "F2"); !hasReason(reasons, "or ForSt's") {
		t.Errorf("F2 (2.x) reasons: %q", reasons)
	}
}

func hasReason(reasons []string, sub string) bool {
	for _, r := range reasons {
		if strings.Contains(r, sub) {
			return true
		}
	}
	return false
}
