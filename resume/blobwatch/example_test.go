package blobwatch_test

import (
	"context"
	"fmt"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/resume/blobwatch"
)

// printer prints each call as it ends.
type printer struct{}

func (printer) Begin(blobwatch.Call) {}

func (printer) End(c blobwatch.Call, err error) {
	fmt.Printf("%d %s %q err=%v\n", c.Seq, c.Op, c.Key, err != nil)
}

// Every call of the wrapped bucket is seen as it ends: a log of a
// command's storage calls.
func Example() {
	ctx := context.Background()
	mem := memblob.OpenBucket(nil)
	defer mem.Close()
	b := blobwatch.Wrap(mem, printer{})
	defer b.Close() // leaves mem open

	_ = b.WriteAll(ctx, "ck/chk-1/_metadata", []byte("x"), nil)
	_, _ = b.ReadAll(ctx, "ck/chk-1/_metadata")
	_, _ = b.ReadAll(ctx, "ck/chk-2/_metadata")
	// Output:
	// 1 write "ck/chk-1/_metadata" err=false
	// 2 read "ck/chk-1/_metadata" err=false
	// 3 read "ck/chk-2/_metadata" err=true
}
