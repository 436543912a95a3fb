package flinkckpttest

import (
	"encoding/binary"

	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
)

// KafkaCommitterElement is a KafkaSink committer subtask's list state
// element as Flink 1.20 writes it: one KafkaCommittable (epoch, producer
// id, transactional id) of checkpoint id, received and not committed
// (SimpleVersionedSerialization of CommittableCollectorSerializer v2,
// checkpoint serializer v1, subtask serializer v1, KafkaCommittableSerializer
// v1). Put it in a committer operator's list state ("streaming_committer_raw_states")
// to give a test snapshot a pending KafkaSink transaction.
func KafkaCommitterElement(checkpointID int64, transactionalID string, producerID int64, epoch int16) []byte {
	i32 := func(b []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(b, v) }
	frame := func(b, data []byte) []byte { return append(i32(b, uint32(len(data))), data...) }
	kc := binary.BigEndian.AppendUint16(nil, uint16(epoch))
	kc = binary.BigEndian.AppendUint64(kc, uint64(producerID))
	kc = binary.BigEndian.AppendUint16(kc, uint16(len(transactionalID)))
	kc = append(kc, transactionalID...)
	req := frame(i32(nil, 1), kc)      // committable: serializer version, bytes
	req = i32(i32(req, 0), 0)          // retries, state RECEIVED
	sub := i32(i32(i32(nil, 0), 0), 1) // subtask 0, request serializer v0, 1 request
	sub = frame(sub, req)
	sub = i32(i32(i32(sub, 1), 0), 0) // committables, drained, failed
	cp := binary.BigEndian.AppendUint64(nil, uint64(checkpointID))
	cp = i32(i32(i32(cp, 1), 1), 1) // 1 writer subtask, subtask serializer v1, 1 subtask
	cp = frame(cp, sub)
	col := i32(i32(i32(nil, sinkstate.Magic), 1), 1) // magic, checkpoint serializer v1, 1 checkpoint
	col = frame(col, cp)
	// the byte[] element's length, then SimpleVersionedSerialization:
	// serializer version 2, length, payload
	return frame(i32(i32(nil, uint32(len(col)+8)), 2), col)
}
