package flinkckpt_test

import (
	"bytes"
	"strings"
	"testing"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
)

// TestDSTLFileOneByteLongerThanRecorded: Flink 1.20.3's changelog uploader
// (StateChangeFsUploader) writes one byte before the changes that the size
// it records leaves out, so every DSTL file real Flink wrote in the
// conformance scenario F3 was its recorded size + 1, and Flink restored the
// checkpoint (CLAIM) with its first checkpoint completing. A DSTL file of
// the recorded size or one byte longer verifies; two bytes longer, or one
// short, does not. Any other file must still have its recorded size exactly
// (flinkckpt.TestReferencedFileSizeMustMatch).
func TestDSTLFileOneByteLongerThanRecorded(t *testing.T) {
	const job = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
	for _, tc := range []struct {
		name     string
		change   func([]byte) []byte
		complete bool
	}{
		{"recorded size", func(b []byte) []byte { return b }, true},
		{"one byte longer (what Flink writes)", func(b []byte) []byte { return append(b, 0) }, true},
		{"two bytes longer", func(b []byte) []byte { return append(b, 0, 0) }, false},
		{"one byte short", func(b []byte) []byte { return b[:len(b)-1] }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			bucket, dstl := memblob.OpenBucket(nil), memblob.OpenBucket(nil)
			defer bucket.Close()
			defer dstl.Close()
			l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "ck/", Root: "s3a://state/"}
			l.Checkpoint(ctx, job, 3, &flinkckpttest.Checkpoint{Shared: []string{"a.sst"},
				DSTL: &flinkckpttest.DSTL{Base: "s3a://changelog/dstl", Files: 2, Bucket: dstl, Key: "dstl/"}})
			key := "dstl/" + strings.TrimPrefix(flinkckpttest.DSTLFile("s3a://changelog/dstl", job, 3, 1), "s3a://changelog/dstl/")
			data, err := dstl.ReadAll(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if err := dstl.WriteAll(ctx, key, tc.change(bytes.Clone(data)), nil); err != nil {
				t.Fatal(err)
			}
			snaps, err := flinkckpt.List(ctx, bucket, l.Prefix, &flinkckpt.Options{
				ExtraRoots: []flinkckpt.ExtraRoot{{FlinkRoot: "s3a://changelog/dstl", Bucket: dstl, Prefix: "dstl/"}}})
			if err != nil || len(snaps) != 1 {
				t.Fatalf("list: %v %+v", err, snaps)
			}
			if got := snaps[0].State == flinkckpt.StateComplete; got != tc.complete {
				t.Errorf("state %s (%s), want complete %v", snaps[0].State, snaps[0].Reason, tc.complete)
			}
		})
	}
}
