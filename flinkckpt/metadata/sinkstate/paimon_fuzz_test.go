package sinkstate_test

import (
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
)

type paimonSeed struct {
	version int32
	data    []byte
}

// paimonSeeds are committables of every serializer version and a
// multi-table one (real Paimon bytes are added by golden_paimon_test.go's
// realPaimonElement when the export holds them).
func paimonSeeds() []paimonSeed {
	wm := int64(77)
	out := []paimonSeed{
		{4, manifest{version: 4, id: 4, offsets: map[int32]int64{0: 12}, props: [][2]string{{"k", "v"}}, msgVersion: 10, messages: [][]byte{commitMessage, commitMessage}}.bytes()},
		{4, manifest{version: 4, id: sinkstate.EndOfInput, watermark: &wm, msgVersion: 10}.bytes()},
		{3, manifest{version: 3, id: 2, msgVersion: 3, messages: [][]byte{commitMessage}}.bytes()},
		{2, manifest{version: 2, id: 1, msgVersion: 2}.bytes()},
		{1, wrapped(9, -1, map[string]manifest{"db.orders": {version: 4, id: 9, msgVersion: 10}})},
	}
	return append(out, realPaimonSeeds()...)
}

// FuzzPaimonCommittable: no input panics or allocates beyond its size;
// what decodes has counts its bytes can hold.
func FuzzPaimonCommittable(f *testing.F) {
	for _, s := range paimonSeeds() {
		f.Add(s.version, s.data)
	}
	f.Fuzz(func(t *testing.T, version int32, data []byte) {
		pc, err := sinkstate.ParsePaimonCommittable(version, data)
		if err != nil {
			return
		}
		if pc.Identifier < 0 || pc.LogOffsets < 0 || pc.Properties < 0 || pc.Messages < 0 {
			t.Fatalf("negative in %+v", pc)
		}
		if 12*pc.LogOffsets+4*pc.Properties+12*pc.Messages+16*len(pc.Tables) > len(data) {
			t.Fatalf("%+v from %d bytes", pc, len(data))
		}
	})
}

// FuzzStringValue: a string decodes to valid UTF-8 (lone surrogates become
// U+FFFD) and never needs more bytes than it says.
func FuzzStringValue(f *testing.F) {
	for _, s := range []string{"", "a", paimonUser, "é😀"} {
		f.Add(stringValue(s))
	}
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, null, more, err := sinkstate.StringValue(data)
		if err != nil || null || more > 0 {
			if more < 0 {
				t.Fatalf("more %d", more)
			}
			return
		}
		if !utf8.ValidString(s) || len(s) > 3*len(data) {
			t.Fatalf("%q from %d bytes", s, len(data))
		}
	})
}

// paimonMetadataSeed is a _metadata holding Paimon's committer with the
// committable and a commit user.
func paimonMetadataSeed(version int32, payload []byte) []byte {
	s := paimonCommitter(false, false, stringValue(paimonUser), element(version, payload))
	md := &metadata.Checkpoint{Version: 4, CheckpointID: 5}
	op, _ := s.Operator(md.Version, nil)
	md.Operators = append(md.Operators, op)
	data, err := flinkckpttest.Encode(md)
	if err != nil {
		panic(err)
	}
	return data
}

// paimonCorpus adds the Paimon targets' seeds (and Paimon _metadata seeds
// of FuzzDecode) to TestFuzzSeedCorpus's corpus.
func paimonCorpus(corpus map[string][]string) {
	for _, s := range paimonSeeds() {
		corpus["FuzzPaimonCommittable"] = append(corpus["FuzzPaimonCommittable"], fmt.Sprintf("int32(%d)\n%s", s.version, fuzzBytes(s.data)))
		corpus["FuzzDecode"] = append(corpus["FuzzDecode"], fuzzBytes(paimonMetadataSeed(s.version, s.data)))
	}
	for _, s := range []string{"", "a", paimonUser, "é😀"} {
		corpus["FuzzStringValue"] = append(corpus["FuzzStringValue"], fuzzBytes(stringValue(s)))
	}
}
