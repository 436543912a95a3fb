package salvage_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
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

// TestHugeIDsInSourceState: a Kafka offset or a Paimon snapshot id above
// 2^62 in source state is malformed (sourcestate refuses it), never a start
// nor a false "was the topic/table recreated?" (a Paimon next snapshot of
// 9223372036854775807 was "above the latest snapshot + 1"): with or without
// the live checks, nothing is offered.
func TestHugeIDsInSourceState(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	l := &flinkckpttest.Layout{Bucket: b, Root: "s3a://b/"}
	cl := kafkaCluster(t, 1, 20)
	tb := paimontest.New(t, b, "wh/shop.db/orders").Schema(nil).CommitEvery(5, time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), time.Minute)
	table, err := paimon.NewTable(b, tb.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, src := range []flinkckpttest.Source{
		flinkckpttest.KafkaSource("k", "topic", math.MaxInt64),
		flinkckpttest.KafkaSource("k", "topic", 1<<62+1),
		flinkckpttest.MonitorSource("m", math.MaxInt64),
		flinkckpttest.PaimonSource("p", "wh/shop.db/orders", math.MaxInt64),
		flinkckpttest.PaimonSource("p", "wh/shop.db/orders", 3, math.MaxInt64),
	} {
		w, err := l.Savepoint(ctx, fmt.Sprintf("savepoint-aaaaaa-00000000000%d", i), 9, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{src}})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []*salvage.Options{
			{Snapshot: w.Dir},
			{Snapshot: w.Dir, Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: cl}, Paimon: table}},
		} {
			r, err := salvage.NewResolver(b, "", o)
			if err != nil {
				t.Fatal(err)
			}
			c, err := r.Resolve(ctx)
			if !errors.Is(err, resume.ErrNoPosition) || strings.Contains(err.Error(), "recreated") || c.Position != nil {
				t.Errorf("source %d (live checks %v): %+v, %v; want no position from a malformed state", i, o.Live != nil, c.Position, err)
			}
			if i < 2 && (err == nil || !strings.Contains(err.Error(), "is neither an offset (up to 2^62) nor a marker")) {
				t.Errorf("source %d: %v does not say what is malformed", i, err)
			}
		}
	}
}
