package flinkckpt_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// A deploy tool's test asserts that the newest savepoint restores into the
// compiled plan about to be deployed — in a test, t.Fatalf where this
// prints. The refactored plan renumbered the aggregation: its keyed state
// would be dropped, and the new aggregate would start empty.
func ExampleCheckCompat() {
	restores := func(planFile, savepoint string) (*flinkckpt.Compat, error) {
		plan, err := os.Open(planFile)
		if err != nil {
			return nil, err
		}
		defer plan.Close()
		job, err := flinkckpt.JobFromPlan(plan, nil)
		if err != nil {
			return nil, err
		}
		md, err := os.Open(savepoint + "/_metadata")
		if err != nil {
			return nil, err
		}
		defer md.Close()
		cp, err := metadata.Read(md, nil)
		if err != nil {
			return nil, err
		}
		return flinkckpt.CheckCompat(cp, job), nil
	}

	const savepoint = "testdata/compat/savepoint-5b9e0a-3c1d2e4f6a7b"
	for _, plan := range []string{"testdata/compat/plan.json", "testdata/compat/plan-renumbered.json"} {
		c, err := restores(plan, savepoint)
		if err != nil {
			fmt.Println(err)
			return
		}
		if !c.Compatible {
			fmt.Printf("%s: state would be dropped: %s; starting empty: %v\n", plan, c.DroppedNames(), c.NewWithoutState)
			continue
		}
		fmt.Printf("%s: all %d operators restore\n", plan, len(c.Operators))
	}
	// Output:
	// testdata/compat/plan.json: all 3 operators restore
	// testdata/compat/plan-renumbered.json: state would be dropped: 4f0fea56069e128b6efb5cf69722457e; starting empty: [13_group-aggregate]
}

// A job given by some of its uids may also have operators without one,
// whose ids Flink generates from the topology: a snapshot operator with
// state that none of the uids matches is unknown, not dropped — until the
// caller adds its id or says the uids are all (Job.AllUIDs).
func ExampleJob_AllUIDs() {
	const savepoint = "testdata/compat/savepoint-5b9e0a-3c1d2e4f6a7b/_metadata"
	f, err := os.Open(savepoint)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	cp, err := metadata.Read(f, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	job := flinkckpt.JobFromUIDs("1_source", "3_group-aggregate")
	c := flinkckpt.CheckCompat(cp, job)
	fmt.Println("unknown:", c.UnknownNames(), "dropped:", c.Dropped)
	job.AllUIDs = true
	c = flinkckpt.CheckCompat(cp, job)
	fmt.Println("unknown:", c.Unknown, "dropped:", c.DroppedNames())
	// Output:
	// unknown: 3a16aff6d1991cf4b79bdba575de154c dropped: []
	// unknown: [] dropped: 3a16aff6d1991cf4b79bdba575de154c
}

// An operator with both a uid and a uid hash: Flink restores the state
// under the hash where the snapshot has any, else the state under the
// uid's id.
func ExampleJob_AddUIDWithHash() {
	hash := flinkckpt.OperatorID("what the job had before it set a uid")
	cp := &metadata.Checkpoint{Operators: []metadata.Operator{{ID: hash, SubtaskStates: []metadata.SubtaskState{{
		ManagedKeyed: &metadata.KeyedHandle{Type: metadata.TypeKeyGroupsV2}}}}}}
	job := &flinkckpt.Job{}
	if err := job.AddUIDWithHash("count", hash); err != nil {
		fmt.Println(err)
		return
	}
	c := flinkckpt.CheckCompat(cp, job)
	fmt.Println(c.Operators[0].Match, c.Compatible)
	// Output:
	// restored true
}

// Observe watches a location for a snapshot chosen elsewhere: a checkpoint
// appearing during the window means the old job still runs. Wait stands in
// for the window here (a test writes the checkpoint in it).
func ExampleResolver_Observe() {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "ck/", Root: "s3a://state/"}
	job := "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
	l.Checkpoint(ctx, job, 1, nil)
	r, _ := flinkckpt.NewResolver(bucket, "ck/", &flinkckpt.Options{Observe: 10 * time.Second,
		Wait: func(ctx context.Context, d time.Duration) error {
			_, err := l.Checkpoint(ctx, job, 2, nil) // the old job checkpoints meanwhile
			return err
		}})
	_, err := r.Observe(ctx)
	var still *flinkckpt.StillRunningError
	fmt.Println(errors.As(err, &still), still.Appeared)
	// Output:
	// true [ck/5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a/chk-2/]
}

// A canonical savepoint names only relative files: without a Flink root
// Resolve cannot give its -s path, and says which snapshot it would choose.
func ExampleNoFlinkPathError() {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "sp/", Root: "s3a://state/"}
	l.Savepoint(ctx, "savepoint-5a5a5a-0123456789ab", 9, &flinkckpttest.Checkpoint{Format: metadata.FormatCanonical})
	r, _ := flinkckpt.NewResolver(bucket, "sp/", nil)
	_, err := r.Resolve(ctx)
	var np *flinkckpt.NoFlinkPathError
	fmt.Println(errors.As(err, &np), np.Key, errors.Is(err, flinkckpt.ErrNoFlinkPath))
	// Output:
	// true sp/savepoint-5a5a5a-0123456789ab/ true
}
