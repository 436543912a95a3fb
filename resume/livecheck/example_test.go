package livecheck_test

import (
	"fmt"

	"github.com/resumekit/resumekit/resume/livecheck"
)

// The Kafka start rule every resolver grades a partition by: a checkpoint
// at offset 10 on a log that starts at 50 today starts at 50, 40 records
// lost; the earliest marker resolves to the log start.
func ExampleKafkaStart() {
	v, _ := livecheck.KafkaStart(10, 50, 100)
	fmt.Println(v.Offset, v.Lost)
	v, _ = livecheck.KafkaStart(livecheck.MarkerEarliest, 50, 100)
	fmt.Println(v.Offset, v.Resolved)
	_, err := livecheck.KafkaStart(150, 50, 100)
	fmt.Println(err)
	// Output:
	// 50 40
	// 50 true
	// livecheck: offset above the end offset: offset 150, end offset 100
}
