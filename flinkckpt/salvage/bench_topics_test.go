package salvage_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
)

// manyTopics writes a savepoint whose KafkaSource read n topics, one split
// each, and returns the layout and the savepoint's dir.
func manyTopics(tb testing.TB, n int) (*flinkckpttest.Layout, string) {
	splits := make([]sourcestate.RawSplit, n)
	for i := range splits {
		splits[i] = flinkckpttest.KafkaSplit(sourcestate.KafkaSplit{Topic: fmt.Sprintf("topic-%05d", i), Partition: 0, StartingOffset: int64(i), StoppingOffset: sourcestate.OffsetNone})
	}
	l := savepoints(tb, "")
	w, err := l.Savepoint(context.Background(), "savepoint-aaaaaa-00000000000a", 4, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{{UID: "k", Splits: splits}}})
	if err != nil {
		tb.Fatal(err)
	}
	return l, w.Dir
}

// BenchmarkSalvageTopics: a salvage of a KafkaSource with one split per
// topic, 5,000 and 40,000 topics (issue 31: 40k topics took 29–36 s with a
// linear scan per split and per topic). Time and allocations grow
// linearly; the several-topics warning quotes 20 topics.
func BenchmarkSalvageTopics(b *testing.B) {
	for _, n := range []int{5_000, 40_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			l, dir := manyTopics(b, n)
			r, err := salvage.NewResolver(l.Bucket, l.Prefix, &salvage.Options{Snapshot: dir})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				c, err := r.Resolve(context.Background())
				if err != nil || !c.HasWarning(salvage.WarnSeveralTopics) {
					b.Fatalf("%v %v", err, c.Warnings)
				}
			}
		})
	}
}
