package metadata_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// derived are the fields ReadMetadata computes rather than reads.
var derived = cmp.Options{
	cmpopts.IgnoreFields(metadata.Checkpoint{}, "Files", "MasterStates", "Size", "Properties"),
	cmpopts.EquateEmpty(),
}

func TestRoundTripEveryHandleType(t *testing.T) {
	for v := 2; v <= 7; v++ {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			want := flinkckpttest.AllHandles(v, "s3a://bucket/ck/job/")
			data, err := flinkckpttest.Encode(want)
			if err != nil {
				t.Fatal(err)
			}
			got, err := metadata.Parse(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, derived); diff != "" {
				t.Errorf("parse(write(spec)) differs (-spec +parsed):\n%s", diff)
			}
			again, err := flinkckpttest.Encode(got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, data) {
				t.Errorf("write(parse(bytes)) is not byte-exact: %d vs %d bytes", len(again), len(data))
			}
			if got.Size != int64(len(data)) {
				t.Errorf("parsed %d of %d bytes", got.Size, len(data))
			}
		})
	}
}

func TestFilesListsEveryReference(t *testing.T) {
	md := flinkckpttest.AllHandles(6, "s3a://b/")
	data, err := flinkckpttest.Encode(md)
	if err != nil {
		t.Fatal(err)
	}
	got, err := metadata.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range got.Files {
		p := f.Path
		if f.Segment {
			p += fmt.Sprintf("@%d+%d", f.Offset, f.Size)
		}
		paths = append(paths, p)
	}
	want := []string{
		"rel-op", "s3a://b/chk/kg-3", // subtask 0
		"s3a://b/taskowned/merged-2@0+10", "s3a://b/taskowned/merged-2@0+10", "rel-sp", "rel-in", "rel-merged-in", // subtask 1
		"rel-op", "rel-kg", "s3a://b/shared/sst-10", "rel-manifest", "rel-meta", "s3a://b/shared/merged-1@100+50",
		"s3a://b/dstl/log-1", "s3a://b/dstl/log-2", "s3a://b/dstl/log-2", "rel-op",
	}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if got.Operators[2].Finished != true || got.Operators[1].SubtaskStates[1].Finished != true {
		t.Errorf("finished operator/subtask not recognised")
	}
	if !got.Savepoint || got.Format != "NATIVE" || got.Drained {
		t.Errorf("properties: savepoint %v format %q drained %v", got.Savepoint, got.Format, got.Drained)
	}
}

func TestPropertiesKinds(t *testing.T) {
	for _, tc := range []struct {
		savepoint bool
		format    metadata.Format
		drained   bool
	}{{false, "", false}, {true, "CANONICAL", false}, {true, "NATIVE", true}, {true, "CANONICAL", true}} {
		md := (&flinkckpttest.Spec{Version: 4, CheckpointID: 3, Operators: 1, Savepoint: tc.savepoint, Format: tc.format, Drained: tc.drained}).Metadata()
		data, err := flinkckpttest.Encode(md)
		if err != nil {
			t.Fatal(err)
		}
		got, err := metadata.Parse(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.Savepoint != tc.savepoint || got.Format != tc.format || got.Drained != tc.drained {
			t.Errorf("%+v: got savepoint %v format %q drained %v", tc, got.Savepoint, got.Format, got.Drained)
		}
	}
}
