package sourcestate_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// reblock rewrites a Java-serialized split's block data as one-byte
// blocks, with empty blocks (TC_BLOCKDATA of length 0) between them.
func reblock(t *testing.T, java []byte, empties int) []byte {
	t.Helper()
	// The class descriptor ends with TC_ENDBLOCKDATA, TC_NULL; the blocks
	// follow up to the final TC_ENDBLOCKDATA.
	i := bytes.Index(java, []byte{0x78, 0x70})
	if i < 0 || java[len(java)-1] != 0x78 {
		t.Fatal("unexpected Java serialization shape")
	}
	head, blocks := java[:i+2], java[i+2:len(java)-1]
	var data []byte
	for len(blocks) > 0 {
		switch blocks[0] {
		case 0x77:
			n := int(blocks[1])
			data = append(data, blocks[2:2+n]...)
			blocks = blocks[2+n:]
		default:
			t.Fatalf("block type 0x%02x", blocks[0])
		}
	}
	out := bytes.Clone(head)
	for _, b := range data {
		for range empties {
			out = append(out, 0x77, 0)
		}
		out = append(out, 0x77, 1, b)
	}
	return append(out, 0x78)
}

// Issue 31: a Paimon split carrying its bytes as millions of empty
// TC_BLOCKDATA blocks cost 60× its size and was accepted. Java never
// writes an empty block: it is refused, naming it; one-byte blocks (legal,
// if odd) are appended into one buffer, allocations linear in the input.
func TestPaimonJavaSplitBlocks(t *testing.T) {
	java, err := flinkckpttest.PaimonJavaSplit(sourcestate.PaimonSplit{Snapshot: 42, Bucket: 3, BucketPath: "s3://b/t/bucket-3", Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	want, err := sourcestate.ParsePaimonJavaSplit(java)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sourcestate.ParsePaimonJavaSplit(reblock(t, java, 1000))
	if !errors.Is(err, sourcestate.ErrMalformed) || !strings.Contains(err.Error(), "empty block data") {
		t.Fatalf("empty blocks: err %v, want ErrMalformed naming the empty block", err)
	}
	small := reblock(t, java, 0)
	got, err := sourcestate.ParsePaimonJavaSplit(small)
	if err != nil || got.Snapshot != want.Snapshot || got.Bucket != want.Bucket || got.BucketPath != want.BucketPath {
		t.Fatalf("one-byte blocks: %+v, %v", got, err)
	}
	// One buffer grown by append: a few dozen allocations for ~100 blocks,
	// not one per block.
	if n := testing.AllocsPerRun(20, func() { _, _ = sourcestate.ParsePaimonJavaSplit(small) }); n > 40 {
		t.Errorf("%v allocations for %d one-byte blocks", n, len(small)/3)
	}
}
