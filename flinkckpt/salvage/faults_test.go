package salvage_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// TestSourceStateFileFaults: a checkpoint whose Kafka reader state is in
// files. A file that is gone (or garbage) gives no position to salvage —
// honestly nothing to offer, so weaker candidates stay eligible; a file the
// store fails to return is a failure (ErrStateUnreadable), which blocks
// them, because the state may well be there.
func TestSourceStateFileFaults(t *testing.T) {
	ctx := context.Background()
	mem := memblob.OpenBucket(nil)
	defer mem.Close()
	l := &flinkckpttest.Layout{Bucket: mem, Prefix: "ck/", Root: "s3a://bucket/"}
	kafka := flinkckpttest.KafkaSource("orders", "orders", 10, 11)
	kafka.InFile, kafka.Parallelism = true, 2
	w, err := l.Checkpoint(ctx, "6f1e00000000000000000000000000aa", 5, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{kafka}})
	if err != nil {
		t.Fatal(err)
	}
	var stateFile string // subtask 0's: it holds both splits
	for _, f := range w.Files {
		if strings.HasSuffix(f, "-0-reader-state") {
			stateFile = f
		}
	}
	if stateFile == "" {
		t.Fatalf("no state file written: %q", w.Files)
	}
	resolve := func(fault func(blobtest.Call) error) error {
		t.Helper()
		b, _ := blobtest.Wrap(mem, &blobtest.Options{Fault: fault})
		defer b.Close()
		r, err := salvage.NewResolver(b, w.Dir, &salvage.Options{Snapshot: w.Dir, Flink: &flinkckpt.Options{FlinkRoot: l.FlinkRoot()}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Resolve(ctx)
		return err
	}
	if err := resolve(nil); err != nil {
		t.Fatalf("healthy: %v", err)
	}
	file := regexp.MustCompile(regexp.QuoteMeta(stateFile) + "$")
	err = resolve(blobtest.NotFoundKeys(file))
	if !errors.Is(err, resume.ErrNoPosition) || errors.Is(err, flinkckpt.ErrStateUnreadable) {
		t.Errorf("state file gone: %v, want no position", err)
	}
	err = resolve(blobtest.FailKeys(file))
	if err == nil || errors.Is(err, resume.ErrNoPosition) || !errors.Is(err, flinkckpt.ErrStateUnreadable) {
		t.Errorf("state file unreadable: %v, want a failure", err)
	}
	if err := mem.WriteAll(ctx, stateFile, []byte("not a reader state"), nil); err != nil {
		t.Fatal(err)
	}
	err = resolve(nil)
	if !errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), "no position can be derived from its source state") {
		t.Errorf("garbage state file: %v, want no position", err)
	}
}
