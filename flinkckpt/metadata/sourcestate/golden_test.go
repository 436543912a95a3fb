package sourcestate

import (
	"encoding/hex"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Paimon's own DataSplit compatibility files (embedded from the Paimon repo,
// see golden_paimon_test.go) decode to the values DataSplitCompatibleTest
// builds them from: snapshot 18, bucket 20, bucket path "my path", not
// streaming.
func TestPaimonGoldenDataSplits(t *testing.T) {
	for _, tc := range []struct {
		name    string
		hex     string
		version int32
	}{
		{"datasplit-v1", goldenDataSplitV1, 1},
		{"datasplit-v2", goldenDataSplitV2, 2},
		{"datasplit-v3", goldenDataSplitV3, 3},
		{"datasplit-v4", goldenDataSplitV4, 4},
		{"datasplit-v5", goldenDataSplitV5, 5},
		{"datasplit-v6", goldenDataSplitV6, 6},
		{"datasplit-v7", goldenDataSplitV7, 7},
		{"datasplit-v8", goldenDataSplitV8, 8},
		{"datasplit-v9", goldenDataSplitV9, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := parsePaimonJavaSplit(unhex(t, tc.hex))
			if err != nil {
				t.Fatal(err)
			}
			if s.Class != ClassDataSplit || s.FormatVersion != tc.version || s.Snapshot != 18 || s.Bucket != 20 ||
				s.BucketPath != "my path" || !s.StreamingKnown || s.Streaming {
				t.Errorf("got %+v, want DataSplit v%d snapshot 18 bucket 20 path \"my path\", not streaming", s, tc.version)
			}
		})
	}
}

// The PendingSplitsCheckpoint golden file: a SimpleVersionedSerialization
// frame (version 1) holding next snapshot 20, an IncrementalSplit of
// snapshot 10 (records to skip 11) and a ChainSplit (records to skip 12).
// The resume point is the smallest: 10.
func TestPaimonGoldenPendingSplits(t *testing.T) {
	c := newCursor("frame", unhex(t, goldenPendingSplits))
	version := c.I32("version")
	payload := c.Bytes("payload")
	c.End()
	if c.Err != nil || version != 1 {
		t.Fatalf("frame: version %d, %v", version, c.Err)
	}
	e, err := parsePaimonEnumerator(version, payload)
	if err != nil {
		t.Fatal(err)
	}
	if e.NextSnapshot != 20 || len(e.Splits) != 2 {
		t.Fatalf("next snapshot %d, %d splits", e.NextSnapshot, len(e.Splits))
	}
	inc, chain := e.Splits[0], e.Splits[1]
	if inc.ID != "incremental" || inc.Class != ClassIncrementalSplit || inc.FormatVersion != 1 || inc.Snapshot != 10 || inc.RecordsToSkip != 11 {
		t.Errorf("incremental split %+v", inc)
	}
	if chain.ID != "chain" || chain.Class != ClassChainSplit || chain.FormatVersion != 2 || chain.Snapshot != -1 || chain.RecordsToSkip != 12 {
		t.Errorf("chain split %+v", chain)
	}
	pos, ok, why := (&PaimonState{Enumerator: e}).Position()
	if !ok || pos.NextSnapshot != 10 {
		t.Errorf("position %+v ok %v (%s), want next snapshot 10", pos, ok, why)
	}
}
