package sinkstate_test

import (
	"encoding/binary"

	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
)

// These helpers write committer state as Flink's serializers do
// (CommittableCollectorSerializer and SimpleVersionedSerialization), for
// the tests' hand-made and fuzzed inputs.

func be32(b []byte, v int32) []byte { return binary.BigEndian.AppendUint32(b, uint32(v)) }
func be64(b []byte, v int64) []byte { return binary.BigEndian.AppendUint64(b, uint64(v)) }

// framed appends an int32 length and the bytes.
func framed(b, data []byte) []byte { return append(be32(b, int32(len(data))), data...) }

// request is one CommitRequestImpl: a committable, retries, state ordinal.
type request struct {
	committable []byte
	retries     int32
	state       int32
}

// writer is one SubtaskCommittableManager.
type writer struct {
	subtask                       int32
	requests                      []request
	committables, drained, failed int32
}

// checkpoint is one CheckpointCommittableManager.
type checkpoint struct {
	id             int64
	writerSubtasks int32
	writers        []writer
}

// collectorV2 is CommittableCollectorSerializer v2 with checkpoint
// serializer version cv (0 or 1) and subtask serializer version sv (0 to 2).
func collectorV2(cv, sv int32, cps ...checkpoint) []byte {
	b := binary.BigEndian.AppendUint32(nil, sinkstate.Magic)
	b = be32(b, cv)
	b = be32(b, int32(len(cps)))
	for _, cp := range cps {
		c := be64(nil, cp.id)
		if cv >= 1 {
			c = be32(c, cp.writerSubtasks)
		}
		c = be32(c, sv)
		c = be32(c, int32(len(cp.writers)))
		for _, w := range cp.writers {
			var s []byte
			if sv >= 1 {
				s = be32(s, w.subtask)
			}
			s = be32(s, 0)
			s = be32(s, int32(len(w.requests)))
			for _, r := range w.requests {
				q := be32(nil, 1)
				q = framed(q, r.committable)
				q = be32(q, r.retries)
				q = be32(q, r.state)
				s = framed(s, q)
			}
			s = be32(s, w.committables)
			if sv < 2 {
				s = be32(s, w.drained)
			}
			s = be32(s, w.failed)
			c = framed(c, s)
		}
		b = framed(b, c)
	}
	return b
}

// collectorV1 is Flink 1.13–1.14's StreamingCommitterState.
func collectorV1(committables ...[]byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, sinkstate.Magic)
	b = be32(b, 1)
	b = be32(b, int32(len(committables)))
	for _, c := range committables {
		b = framed(b, c)
	}
	return b
}

// element frames a collector payload as the committer's list state
// element (BytePrimitiveArraySerializer around
// SimpleVersionedSerialization).
func element(version int32, payload []byte) []byte {
	b := be32(nil, int32(len(payload)+8))
	b = be32(b, version)
	return framed(b, payload)
}
