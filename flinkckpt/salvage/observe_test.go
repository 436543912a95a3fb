package salvage_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/resume"
)

// TestSalvageHonoursObservationWindow (issue 22 item 4): with a new job
// whose state does not fit, the restore resolver has nothing to offer and
// the salvage candidate is the one a chain would choose. It honours
// Flink.Observe — the default choice and a snapshot given by key alike —
// and a checkpoint the old job writes during the window fails the resolve
// with a *flinkckpt.StillRunningError, as on the restore path. The window
// is the Wait hook: no real sleep.
func TestSalvageHonoursObservationWindow(t *testing.T) {
	ctx := context.Background()
	const job = "6f1e0000000000000000000000000002"
	setup := func(t *testing.T) (*flinkckpttest.Layout, *jobgraph.Job) {
		b := memblob.OpenBucket(nil)
		t.Cleanup(func() { b.Close() })
		l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "s3a://b/"}
		for id := int64(1); id <= 2; id++ {
			if _, err := l.Checkpoint(ctx, job, id, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{flinkckpttest.KafkaSource("orders", "topic", 10*id)}}); err != nil {
				t.Fatal(err)
			}
		}
		// The refactored job: the source's uid changed, and its uids are all.
		j := jobgraph.JobFromUIDs("uid-0", "uid-1", "orders-v2")
		j.AllUIDs = true
		return l, j
	}
	for _, given := range []bool{false, true} {
		name := "Chosen"
		if given {
			name = "GivenByKey"
		}
		t.Run(name, func(t *testing.T) {
			l, j := setup(t)
			waits := 0
			var during func()
			opts := func() *salvage.Options {
				o := &salvage.Options{Job: j, Flink: &flinkckpt.Options{FlinkRoot: l.FlinkRoot(), Observe: 5 * time.Second,
					Wait: func(_ context.Context, d time.Duration) error {
						waits++
						if d != 5*time.Second {
							t.Errorf("waited %s", d)
						}
						if during != nil {
							during()
						}
						return nil
					}}}
				if given {
					o.Snapshot = "ck/" + job + "/chk-2/"
				}
				return o
			}
			restore, err := flinkckpt.NewResolver(l.Bucket, "ck/", &flinkckpt.Options{FlinkRoot: l.FlinkRoot(), Job: j, Observe: 5 * time.Second,
				Wait: func(context.Context, time.Duration) error {
					t.Error("the restore path waited without a candidate")
					return nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			sr, err := salvage.NewResolver(l.Bucket, "ck/", opts())
			if err != nil {
				t.Fatal(err)
			}
			// Quiet: the salvage start, with the observation in its reasons.
			d, err := (&resume.Chain{Resolvers: []resume.Resolver{restore, sr}}).Resolve(ctx)
			if err != nil || d.Chosen == nil || d.Chosen.Resolver != salvage.DefaultName || waits != 1 ||
				!strings.Contains(strings.Join(d.Chosen.Reasons, "\n"), "observed \"ck/\" for 5s: no new checkpoint appeared") {
				t.Fatalf("quiet: err %v, waits %d\n%s", err, waits, d.Explain())
			}
			// The old job writes chk-3 during the window: the resolve fails,
			// and the chain does not fall back to a weaker start.
			waits = 0
			during = func() {
				if _, err := l.Checkpoint(ctx, job, 3, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{flinkckpttest.KafkaSource("orders", "topic", 30)}}); err != nil {
					t.Error(err)
				}
			}
			sr, err = salvage.NewResolver(l.Bucket, "ck/", opts())
			if err != nil {
				t.Fatal(err)
			}
			_, err = sr.Resolve(ctx)
			var still *flinkckpt.StillRunningError
			if !errors.As(err, &still) || waits != 1 || len(still.Appeared) != 1 || still.Appeared[0] != "ck/"+job+"/chk-3/" {
				t.Fatalf("err %v, waits %d", err, waits)
			}
			if errors.Is(err, resume.ErrNoPosition) {
				t.Errorf("a running job is not 'no position': %v", err)
			}
		})
	}
}
