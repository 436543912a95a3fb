package localblob_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/resumekit/resumekit/resume/localblob"
)

// A bucket over a table directory: reads and writes stay inside it, and a
// consumer folder linked out of it is refused.
func Example() {
	ctx := context.Background()
	table, _ := os.MkdirTemp("", "table-")
	outside, _ := os.MkdirTemp("", "outside-")
	defer os.RemoveAll(table)
	defer os.RemoveAll(outside)

	b, err := localblob.OpenBucket(table, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	if err := b.WriteAll(ctx, "consumer/consumer-job", []byte(`{"nextSnapshot":42}`), nil); err != nil {
		fmt.Println(err)
		return
	}
	data, _ := b.ReadAll(ctx, "consumer/consumer-job")
	fmt.Println(string(data))

	os.Symlink(outside, filepath.Join(table, "linked"))
	err = b.WriteAll(ctx, "linked/consumer-job", []byte("x"), nil)
	fmt.Println(errors.Is(err, localblob.ErrOutside))
	// Output:
	// {"nextSnapshot":42}
	// true
}
