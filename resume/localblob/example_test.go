package localblob_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

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

// LocalPath tells local locations from gocloud URLs, in every spelling of a
// file URL, and refuses file URLs that name more than a path.
func ExampleLocalPath() {
	for _, raw := range []string{"/data/wh/db.db/orders", "FILE:///data/ck", "file:/data/ck", "s3://bucket/ck", "file://nas/data/ck"} {
		dir, local, err := localblob.LocalPath(raw)
		fmt.Printf("%-24s local=%-5v %q %v\n", raw, local, dir, errors.Is(err, localblob.ErrNotLocal))
	}
	// Output:
	// /data/wh/db.db/orders    local=true  "/data/wh/db.db/orders" false
	// FILE:///data/ck          local=true  "/data/ck" false
	// file:/data/ck            local=true  "/data/ck" false
	// s3://bucket/ck           local=false "" false
	// file://nas/data/ck       local=true  "" true
}

// OpenFile opens a file the user named, but never a named pipe.
func ExampleOpenFile() {
	dir, _ := os.MkdirTemp("", "plan-")
	defer os.RemoveAll(dir)
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"flinkVersion":"1.20"}`), 0o644)
	f, err := localblob.OpenFile(plan)
	fmt.Println(err)
	f.Close()

	pipe := filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		fmt.Println(true) // no named pipes here
		return
	}
	_, err = localblob.OpenFile(pipe)
	fmt.Println(errors.Is(err, localblob.ErrNotRegular))
	// Output:
	// <nil>
	// true
}
