package flinkckpt_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// Sources reads state files of savepoints (relative) and checkpoints
// (absolute), compressed or not, and decodes the positions in them.
func TestSourcesFromFiles(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		savepoint  bool
		compressed bool
	}{{"checkpoint", false, false}, {"checkpoint-snappy", false, true}, {"savepoint", true, false}, {"savepoint-snappy", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			b := memblob.OpenBucket(nil)
			defer b.Close()
			l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "s3a://bucket/"}
			kafka := flinkckpttest.KafkaSource("orders", "orders", 10, 11)
			kafka.InFile, kafka.Compressed, kafka.Parallelism = true, tc.compressed, 2
			paimon := flinkckpttest.PaimonSource("lookup", "s3a://wh/db.db/lookup", 8, 6, 7)
			paimon.InFile, paimon.Compressed = true, tc.compressed
			c := &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{kafka, paimon}}
			var w *flinkckpttest.Written
			var err error
			if tc.savepoint {
				w, err = l.Savepoint(ctx, "savepoint-aaaaaa-bbbbbbbbbbbb", 5, c)
			} else {
				w, err = l.Checkpoint(ctx, "6f1e00000000000000000000000000aa", 5, c)
			}
			if err != nil {
				t.Fatal(err)
			}
			snap, st, err := flinkckpt.Sources(ctx, b, w.Dir, &flinkckpt.Options{FlinkRoot: l.FlinkRoot()})
			if err != nil {
				t.Fatal(err)
			}
			if snap.CheckpointID != 5 || len(st.Sources) != 2 {
				t.Fatalf("checkpoint %d, %d sources", snap.CheckpointID, len(st.Sources))
			}
			ps, _ := st.Sources[0].Kafka.Positions()
			want := []sourcestate.KafkaPosition{{Topic: "orders", Partition: 0, Offset: 10}, {Topic: "orders", Partition: 1, Offset: 11}}
			if diff := cmp.Diff(want, ps); diff != "" {
				t.Errorf("kafka (-want +got):\n%s", diff)
			}
			pp, ok, _ := st.Sources[1].Paimon.Position()
			if !ok || pp.NextSnapshot != 6 || pp.Table != "s3a://wh/db.db/lookup" {
				t.Errorf("paimon %+v", pp)
			}
		})
	}
}

// A state file that is gone fails that source only, naming the key.
func TestSourcesMissingFile(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	l := &flinkckpttest.Layout{Bucket: b, Root: "s3a://bucket/"}
	kafka := flinkckpttest.KafkaSource("orders", "orders", 10)
	kafka.InFile = true
	w, err := l.Savepoint(ctx, "savepoint-aaaaaa-bbbbbbbbbbbb", 5, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{kafka, flinkckpttest.MonitorSource("m", 3)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range w.Files {
		if err := b.Delete(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	_, st, err := flinkckpt.Sources(ctx, b, w.Dir, nil)
	if err == nil || st == nil || len(st.Sources) != 2 || st.Sources[0].Err == nil || st.Sources[1].Err != nil {
		t.Fatalf("err %v, state %+v", err, st)
	}
	if pos, ok, _ := st.Sources[1].Paimon.Position(); !ok || pos.NextSnapshot != 3 {
		t.Errorf("the inline source is still decoded: %+v", pos)
	}
	if _, _, err := flinkckpt.Sources(ctx, b, "nothing/", nil); !errors.Is(err, flinkckpt.ErrNoMetadata) {
		t.Errorf("no _metadata: %v", err)
	}
}

// A relative state path that escapes the snapshot dir is refused, not read.
func TestSourcesRefusesEscapingPath(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	src := flinkckpttest.KafkaSource("orders", "orders", 10)
	src.InFile = true
	op, files := src.Operator(4, func(name string, size int64) *metadata.StreamHandle {
		return &metadata.StreamHandle{Type: metadata.TypeRelativeFile, Path: "../../secret/" + name, Size: size}
	})
	data, err := flinkckpttest.Encode(&metadata.Checkpoint{Version: 4, CheckpointID: 1, Savepoint: true, Operators: []metadata.Operator{op}})
	if err != nil {
		t.Fatal(err)
	}
	b.WriteAll(ctx, "sp/savepoint-aaaaaa-bbbbbbbbbbbb/_metadata", data, nil)
	b.WriteAll(ctx, "secret/"+files[0].Name, files[0].Data, nil)
	_, st, err := flinkckpt.Sources(ctx, b, "sp/savepoint-aaaaaa-bbbbbbbbbbbb/", nil)
	if err == nil || !strings.Contains(err.Error(), "escapes the snapshot dir") || len(st.Sources[0].Kafka.Splits) != 0 {
		t.Errorf("err %v", err)
	}
}

// Flink 1.20's file merging (execution.checkpointing.file-merging.enabled)
// puts several subtasks' operator state into one physical file: each
// subtask's handle (type 17) holds a segment (type 15: path, start, size),
// and the element offsets are relative to the segment's start. Sources
// reads each segment's byte range, compressed or not, and decodes the
// splits at their relative offsets.
func TestSourcesFromMergedFileSegments(t *testing.T) {
	ctx := context.Background()
	for _, compressed := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "snappy"}[compressed], func(t *testing.T) {
			b := memblob.OpenBucket(nil)
			defer b.Close()
			const job = "6f1e00000000000000000000000000aa"
			dir := "ck/" + job + "/chk-5/"
			mergedKey := "ck/" + job + "/taskowned/merged-1"
			src := flinkckpttest.KafkaSource("orders", "orders", 10, 11)
			src.Parallelism, src.Compressed = 2, compressed
			src.Splits[1].Subtask = 1 // one split per subtask, one segment each
			op, _ := src.Operator(4, nil)
			// The merged file: another state's bytes, subtask 0's stream,
			// padding, subtask 1's stream.
			merged := []byte(strings.Repeat("x", 37))
			for i := range op.SubtaskStates {
				h := op.SubtaskStates[i].ManagedOperator
				stream := h.Stream.Data
				h.Type, h.TaskOwnedDir, h.SharedDir = metadata.TypeFileMergingOperator, "s3a://bucket/ck/"+job+"/taskowned", "s3a://bucket/ck/"+job+"/shared"
				h.Stream = &metadata.StreamHandle{Type: metadata.TypeSegment, Path: "s3a://bucket/" + mergedKey, Name: "logical-" + string(rune('a'+i)),
					Start: int64(len(merged)), Size: int64(len(stream))}
				merged = append(merged, stream...)
				merged = append(merged, strings.Repeat("y", 13)...)
			}
			data, err := flinkckpttest.Encode(&metadata.Checkpoint{Version: 4, CheckpointID: 5, Operators: []metadata.Operator{op}})
			if err != nil {
				t.Fatal(err)
			}
			if err := b.WriteAll(ctx, dir+"_metadata", data, nil); err != nil {
				t.Fatal(err)
			}
			if err := b.WriteAll(ctx, mergedKey, merged, nil); err != nil {
				t.Fatal(err)
			}
			_, st, err := flinkckpt.Sources(ctx, b, dir, &flinkckpt.Options{FlinkRoot: "s3a://bucket/"})
			if err != nil {
				t.Fatal(err)
			}
			ps, _ := st.Sources[0].Kafka.Positions()
			want := []sourcestate.KafkaPosition{{Topic: "orders", Partition: 0, Offset: 10}, {Topic: "orders", Partition: 1, Offset: 11}}
			if diff := cmp.Diff(want, ps); diff != "" {
				t.Errorf("kafka (-want +got):\n%s", diff)
			}

			// A merged file shorter than a segment: that source fails,
			// naming the key; nothing is misread.
			if err := b.WriteAll(ctx, mergedKey, merged[:len(merged)-20], nil); err != nil {
				t.Fatal(err)
			}
			_, st, err = flinkckpt.Sources(ctx, b, dir, &flinkckpt.Options{FlinkRoot: "s3a://bucket/"})
			if err == nil || !strings.Contains(err.Error(), mergedKey) || st.Sources[0].Err == nil {
				t.Fatalf("short merged file: err %v", err)
			}
			if n := len(st.Sources[0].Kafka.Splits); n != 1 {
				t.Errorf("%d splits decoded from a short merged file, want subtask 0's only", n)
			}
		})
	}
}
