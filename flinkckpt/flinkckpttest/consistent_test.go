package flinkckpttest_test

import (
	"context"
	"strings"
	"testing"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// TestLabelsAndIDsFromOneUID (issue 22 item 7): from _metadata version 5
// on the writer records uids and names, and they always belong to the
// operator's id: by default uid-<i> with OperatorID(i); with UIDs each
// uid's own id; with OperatorIDs (ids without a uid) no uid at all. A
// job given by the recorded uids restores every operator, and nothing is
// reported dropped under a uid the new job has.
func TestLabelsAndIDsFromOneUID(t *testing.T) {
	ctx := context.Background()
	other := []string{jobgraph.OperatorID("orders-a"), jobgraph.OperatorID("orders-b")}
	for _, tc := range []struct {
		name string
		c    flinkckpttest.Checkpoint
		uids []string // recorded, "" for none
	}{
		{"Default", flinkckpttest.Checkpoint{Operators: 2}, []string{"uid-0", "uid-1"}},
		{"UIDs", flinkckpttest.Checkpoint{UIDs: []string{"orders-a", "orders-b"}}, []string{"orders-a", "orders-b"}},
		{"OperatorIDs", flinkckpttest.Checkpoint{OperatorIDs: other}, []string{"", ""}},
	} {
		for _, version := range []int{4, 5, 6} {
			b := memblob.OpenBucket(nil)
			l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "s3a://bucket/"}
			c := tc.c
			c.Version = version
			w, err := l.Checkpoint(ctx, "6f1e0000000000000000000000000004", 3, &c)
			if err != nil {
				t.Fatal(err)
			}
			data, err := b.ReadAll(ctx, w.Dir+"_metadata")
			if err != nil {
				t.Fatal(err)
			}
			md, err := metadata.Parse(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			var uids []string
			for i, op := range md.Operators {
				if version < 5 {
					if op.UID != "" || op.Name != "" {
						t.Errorf("%s v%d: operator %d labelled %q/%q", tc.name, version, i, op.UID, op.Name)
					}
					continue
				}
				if op.UID != tc.uids[i] {
					t.Errorf("%s v%d: operator %d uid %q, want %q", tc.name, version, i, op.UID, tc.uids[i])
				}
				if op.UID != "" && op.ID != jobgraph.OperatorID(op.UID) {
					t.Errorf("%s v%d: operator %d labelled uid %q carries id %s, not %s", tc.name, version, i, op.UID, op.ID, jobgraph.OperatorID(op.UID))
				}
				if op.UID != "" && !strings.Contains(op.Name, op.UID) && tc.name != "Default" {
					t.Errorf("%s v%d: operator %d name %q", tc.name, version, i, op.Name)
				}
				if op.UID != "" {
					uids = append(uids, op.UID)
				}
			}
			if len(uids) > 0 {
				cc := jobgraph.CheckCompat(md, jobgraph.JobFromUIDs(uids...))
				if !cc.Compatible || len(cc.Dropped) != 0 {
					t.Errorf("%s v%d: a job with the recorded uids %q: dropped %s", tc.name, version, uids, cc.DroppedNames())
				}
			}
		}
	}
	b := memblob.OpenBucket(nil)
	defer b.Close()
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "s3a://bucket/"}
	if _, err := l.Checkpoint(ctx, "", 1, &flinkckpttest.Checkpoint{UIDs: []string{"a"}, OperatorIDs: other[:1]}); err == nil {
		t.Error("UIDs and OperatorIDs both accepted")
	}
}

// TestDSTLLayout: Checkpoint.DSTL writes a changelog backend's keyed
// state as FORMATS.md describes — a changelog handle (14; 8 before v4)
// whose non-materialized part is one changelog file handle (13 with the
// storage id; 10 before v4) per DSTL file at <base>/<job>/dstl/<uuid> —
// and the files themselves at their keys.
func TestDSTLLayout(t *testing.T) {
	ctx := context.Background()
	const job = "6f1e0000000000000000000000000005"
	for _, tc := range []struct {
		version          int
		outer, increment metadata.HandleType
	}{{3, metadata.TypeChangelog, metadata.TypeChangelogFile}, {4, metadata.TypeChangelogV2, metadata.TypeChangelogFileV2}, {6, metadata.TypeChangelogV2, metadata.TypeChangelogFileV2}} {
		b := memblob.OpenBucket(nil)
		l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "s3a://bucket/"}
		w, err := l.Checkpoint(ctx, job, 2, &flinkckpttest.Checkpoint{Version: tc.version, Shared: []string{"m.sst"},
			DSTL: &flinkckpttest.DSTL{Base: "s3a://bucket/changelog/", Files: 3}})
		if err != nil {
			t.Fatal(err)
		}
		data, _ := b.ReadAll(ctx, w.Dir+"_metadata")
		md, err := metadata.Parse(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		k := md.Operators[0].SubtaskStates[0].ManagedKeyed
		if k.Type != tc.outer || len(k.Materialized) != 1 || len(k.NonMaterialized) != 3 {
			t.Fatalf("v%d: keyed %+v", tc.version, k)
		}
		for i, h := range k.NonMaterialized {
			want := flinkckpttest.DSTLFile("s3a://bucket/changelog", job, 2, i)
			if h.Type != tc.increment || len(h.Increments) != 1 || h.Increments[0].Handle.Path != want ||
				(tc.increment == metadata.TypeChangelogFileV2) != (h.StorageID == "filesystem") {
				t.Errorf("v%d: increment %d %+v", tc.version, i, h)
			}
			if !strings.HasPrefix(want, "s3a://bucket/changelog/"+job+"/dstl/") {
				t.Errorf("DSTL file %s", want)
			}
			if ok, _ := b.Exists(ctx, strings.TrimPrefix(want, "s3a://bucket/")); !ok {
				t.Errorf("v%d: %s not written", tc.version, want)
			}
		}
		b.Close()
	}
}
