package flinkckpttest_test

import (
	"encoding/binary"
	"fmt"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
)

// A committer element with checkpoint 8's prepared KafkaSink transaction,
// decoded as resumekit reads a snapshot's committer state: the element's
// length and serializer version frame the collector payload.
func ExampleKafkaCommitterElement() {
	e := flinkckpttest.KafkaCommitterElement(8, "orders-sink-0-8", 7, 1)
	version := int32(binary.BigEndian.Uint32(e[4:]))
	s, err := sinkstate.ParseCollector(version, e[12:])
	if err != nil {
		fmt.Println(err)
		return
	}
	cp := s.Checkpoints[0]
	fmt.Println(cp.CheckpointID, cp.Pending, cp.Kafka[0].TransactionalID, cp.Kafka[0].ProducerID, cp.Kafka[0].Epoch)
	// Output: 8 1 orders-sink-0-8 7 1
}
