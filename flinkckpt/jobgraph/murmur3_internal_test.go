package jobgraph

import (
	"encoding/binary"
	"encoding/hex"
	"testing"
)

// TestMurmur3GuavaVectors checks murmur3x64_128 against Guava's known values
// (Murmur3Hash128Test.testKnownValues: seed, h1, h2, input), its smhasher
// string, and the operator ids found in real Flink files.
func TestMurmur3GuavaVectors(t *testing.T) {
	for _, tc := range []struct {
		seed   uint32
		h1, h2 uint64
		in     string
	}{
		{0, 0x629942693e10f867, 0x92db0b82baeb5347, "hell"},
		{1, 0xa78ddff5adae8d10, 0x128900ef20900135, "hello"},
		{2, 0x8a486b23f422e826, 0xf962a2c58947765f, "hello "},
		{3, 0x2ea59f466f6bed8c, 0xc610990acc428a17, "hello w"},
		{4, 0x79f6305a386c572c, 0x46305aed3483b94e, "hello wo"},
		{5, 0xc2219d213ec1f1b5, 0xa1d8e2e0a52785bd, "hello wor"},
		{0, 0xe34bbc7bbc071b6c, 0x7a433ca9c49a9347, "The quick brown fox jumps over the lazy dog"},
		{0, 0x658ca970ff85269a, 0x43fee3eaa68e5c3e, "The quick brown fox jumps over the lazy cog"},
	} {
		got := murmur3x64_128([]byte(tc.in), tc.seed)
		if h1, h2 := binary.LittleEndian.Uint64(got[:8]), binary.LittleEndian.Uint64(got[8:]); h1 != tc.h1 || h2 != tc.h2 {
			t.Errorf("murmur3_128(%d, %q) = %#x %#x, want %#x %#x", tc.seed, tc.in, h1, h2, tc.h1, tc.h2)
		}
	}
	for in, want := range map[string]string{
		"": "00000000000000000000000000000000",
		"The quick brown fox jumps over the lazy dog": "6c1b07bc7bbc4be347939ac4a93c437a", // Guava's HashCode.toString
		// Flink operator ids (StreamGraphHasherV2.generateUserSpecifiedHash) in real savepoints.
		"kafka-source-operator-uid": "cb16aa5adb311e8ac72482def19accbe",
		"kafka-source-uid":          "a4122ae5704b2a344a4284a3b4b9ee29",
		"1_source":                  "d3f21cabc6fe0fdf76c8be915bdb22a2",
	} {
		if got := murmur3x64_128([]byte(in), 0); hex.EncodeToString(got[:]) != want {
			t.Errorf("murmur3_128(0, %q) = %x, want %s", in, got, want)
		}
	}
}
