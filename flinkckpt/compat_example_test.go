package flinkckpt_test

import (
	"fmt"
	"os"

	"github.com/resumekit/resumekit/flinkckpt"
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
