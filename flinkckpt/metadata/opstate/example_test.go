package opstate_test

import (
	"fmt"

	"github.com/resumekit/resumekit/flinkckpt/metadata/opstate"
)

// Reading a committer's list state out of one subtask's compressed
// operator state stream, with a budget for the whole snapshot.
func Example() {
	raw, offsets := stream(true, element(2, []byte("pending transactions")))
	budget := (&opstate.Options{MaxDecodedSize: 1 << 20}).NewBudget()
	s, err := opstate.Open(raw, budget, offsets)
	if err != nil {
		fmt.Println(err)
		return
	}
	elems, err := s.Elements("streaming_committer_raw_states", "element", offsets, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range elems {
		fmt.Printf("subtask %d: version %d, %q\n", e.Subtask, e.Version, e.Data)
	}
	// An offset listed twice is refused before anything is decoded.
	_, err = opstate.ReadListElements(raw, "streaming_committer_raw_states", []int64{offsets[0], offsets[0]}, 0, 0)
	fmt.Println(err)
	// Output:
	// subtask 0: version 2, "pending transactions"
	// opstate: malformed streaming_committer_raw_states offsets of subtask 0 at byte 23: element 1's offset 23 is not above element 0's 23 (Flink writes strictly increasing offsets)
}
