package jobgraph_test

import (
	"fmt"
	"os"

	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// A deploy tool's test asserts that the newest savepoint restores into the
// compiled plan about to be deployed — in a test, t.Fatalf where this
// prints. The refactored plan renumbered the aggregation: its keyed state
// would be dropped, and the new aggregate would start empty.
func ExampleCheckCompat() {
	restores := func(planFile, savepoint string) (*jobgraph.Compat, error) {
		plan, err := os.Open(planFile)
		if err != nil {
			return nil, err
		}
		defer plan.Close()
		job, err := jobgraph.JobFromPlan(plan, nil)
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
		return jobgraph.CheckCompat(cp, job), nil
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
	job := jobgraph.JobFromUIDs("1_source", "3_group-aggregate")
	c := jobgraph.CheckCompat(cp, job)
	fmt.Println("unknown:", c.UnknownNames(), "dropped:", c.Dropped)
	job.AllUIDs = true
	c = jobgraph.CheckCompat(cp, job)
	fmt.Println("unknown:", c.Unknown, "dropped:", c.DroppedNames())
	// Output:
	// unknown: 3a16aff6d1991cf4b79bdba575de154c dropped: []
	// unknown: [] dropped: 3a16aff6d1991cf4b79bdba575de154c
}

// An operator with both a uid and a uid hash: Flink restores the state
// under the hash where the snapshot has any, else the state under the
// uid's id.
func ExampleJob_AddUIDWithHash() {
	hash := jobgraph.OperatorID("what the job had before it set a uid")
	cp := &metadata.Checkpoint{Operators: []metadata.Operator{{ID: hash, SubtaskStates: []metadata.SubtaskState{{
		ManagedKeyed: &metadata.KeyedHandle{Type: metadata.TypeKeyGroupsV2}}}}}}
	job := &jobgraph.Job{}
	if err := job.AddUIDWithHash("count", hash); err != nil {
		fmt.Println(err)
		return
	}
	c := jobgraph.CheckCompat(cp, job)
	fmt.Println(c.Operators[0].Match, c.Compatible)
	// Output:
	// restored true
}
