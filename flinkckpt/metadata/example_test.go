package metadata_test

import (
	"bytes"
	"fmt"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// Read parses a _metadata file from any reader.
func ExampleRead() {
	spec := &flinkckpttest.Spec{Version: 5, CheckpointID: 7, Operators: 2,
		Absolute: []string{"s3a://bucket/ck/job/shared/a.sst"}, Relative: []string{"b"}, FileSize: 10,
		Savepoint: true, Format: "NATIVE"}
	data, _ := flinkckpttest.Encode(spec.Metadata())

	md, err := metadata.Read(bytes.NewReader(data), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(md.Version, md.CheckpointID, md.Savepoint, md.Format, len(md.Operators), md.Operators[0].Name)
	for _, f := range md.Files {
		fmt.Println(f.Path, f.Relative, f.Size)
	}
	// Output:
	// 5 7 true NATIVE 2 operator-0
	// s3a://bucket/ck/job/shared/a.sst false 10
	// b true 10
}
