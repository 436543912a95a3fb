package sinkstate_test

import (
	"fmt"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
)

// A checkpoint of a job with a two-phase sink: its committer had received
// the transactions prepared at checkpoint 12 (one per writer subtask) and
// not committed them yet. A restore of the checkpoint commits them; a
// stateless start never does.
func ExampleDecode() {
	pending := collectorV2(1, 1, checkpoint{id: 12, writerSubtasks: 2, writers: []writer{
		{subtask: 0, requests: []request{{committable: []byte("txn-0-12")}}, committables: 1},
		{subtask: 1, requests: []request{{committable: []byte("txn-1-12")}}, committables: 1},
	}})
	committer := flinkckpttest.Source{UID: "Sink Committer: orders-sink", ListStates: []flinkckpttest.ListState{{
		Name:     sinkstate.CommitterStateName,
		Elements: []flinkckpttest.ListElement{{Data: element(2, pending)}},
	}}}
	md := &metadata.Checkpoint{Version: 4, CheckpointID: 12}
	op, _ := committer.Operator(md.Version, nil)
	md.Operators = append(md.Operators, op)
	data, _ := flinkckpttest.Encode(md)

	cp, err := metadata.Parse(data, nil)
	if err != nil {
		panic(err)
	}
	st, err := sinkstate.Decode(cp, nil)
	if err != nil {
		panic(err)
	}
	for _, c := range st.Committers {
		fmt.Println(c.OperatorID, c.Format)
		for _, p := range c.Pending() {
			fmt.Printf("  checkpoint %d: %d committable(s) not committed\n", p.CheckpointID, p.Committables)
		}
	}
	// Output:
	// fc428c7d64bfe5c756b1d3ab83d213b1 committable-collector
	//   checkpoint 12: 2 committable(s) not committed
}
