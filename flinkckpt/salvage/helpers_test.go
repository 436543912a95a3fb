package salvage_test

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/resume"
)

// savepoints returns a flinkckpttest layout at prefix ("" or "sp/") over
// a new memblob bucket, closed with the test, whose key "" Flink names
// s3a://b/: the store most salvage tests write their savepoints to.
func savepoints(t testing.TB, prefix string) *flinkckpttest.Layout {
	t.Helper()
	b := memblob.OpenBucket(nil)
	t.Cleanup(func() { b.Close() })
	return &flinkckpttest.Layout{Bucket: b, Prefix: prefix, Root: "s3a://b/"}
}

// savepoint writes the savepoint name of checkpoint id holding sources
// under l and returns its dir (salvage.Options.Snapshot).
func savepoint(t *testing.T, l *flinkckpttest.Layout, name string, id int64, sources ...flinkckpttest.Source) string {
	t.Helper()
	w, err := l.Savepoint(context.Background(), name, id, &flinkckpttest.Checkpoint{Sources: sources})
	if err != nil {
		t.Fatal(err)
	}
	return w.Dir
}

// salvager returns the salvage resolver of l's bucket and prefix with
// opts.
func salvager(t *testing.T, l *flinkckpttest.Layout, opts *salvage.Options) *salvage.Resolver {
	t.Helper()
	r, err := salvage.NewResolver(l.Bucket, l.Prefix, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// salvaged resolves salvager(t, l, opts), failing the test on an error.
func salvaged(t *testing.T, l *flinkckpttest.Layout, opts *salvage.Options) resume.Candidate {
	t.Helper()
	c, err := salvager(t, l, opts).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// deleteRecords deletes the records of topic's partition below before
// (the log start moves there), as retention or DeleteRecords does.
func deleteRecords(t *testing.T, cl *kgo.Client, topic string, partition int32, before int64) {
	t.Helper()
	del := make(kadm.Offsets)
	del.AddOffset(topic, partition, before, -1)
	resp, err := kadm.NewClient(cl).DeleteRecords(context.Background(), del)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatalf("delete %s/%d below %d: %v", topic, partition, before, err)
	}
}

// commit commits group's offsets of topic's partitions.
func commit(t *testing.T, cl *kgo.Client, group, topic string, offsets map[int32]int64) {
	t.Helper()
	os := make(kadm.Offsets)
	for p, o := range offsets {
		os.AddOffset(topic, p, o, -1)
	}
	resp, err := kadm.NewClient(cl).CommitOffsets(context.Background(), group, os)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatalf("commit %v of group %s on %s: %v", offsets, group, topic, err)
	}
}

// warning returns the text of c's warning of code, "" when c has none.
func warning(c resume.Candidate, code resume.WarningCode) string {
	for _, w := range c.Warnings {
		if w.Code == code {
			return w.Text
		}
	}
	return ""
}
