package sinkstate

// KafkaCommittable is a KafkaSink's prepared transaction as its committer
// keeps it (flink-connector-kafka's KafkaCommittable): a restore resumes
// the transaction by producer id and epoch and commits it.
type KafkaCommittable struct {
	TransactionalID string `json:"transactional_id"`
	ProducerID      int64  `json:"producer_id"`
	Epoch           int16  `json:"epoch"`
}

// KafkaCommittableVersion is KafkaCommittableSerializer's version, the
// same in every connector release from Flink 1.14 to the 4.x connectors
// for Flink 2.x.
const KafkaCommittableVersion = 1

// ParseKafkaCommittable reads a KafkaCommittableSerializer payload:
// int16 epoch, int64 producer id, the transactional id as modified UTF-8
// (writeUTF), and nothing after it. Any other serializer version, a
// negative producer id or epoch, an empty id or trailing bytes is an
// error: the committable is not a KafkaCommittable.
func ParseKafkaCommittable(version int32, b []byte) (KafkaCommittable, error) {
	c := newCursor("KafkaCommittable", version, b)
	if version != KafkaCommittableVersion {
		c.Fail("committable serializer version %d, KafkaCommittableSerializer writes %d", version, KafkaCommittableVersion)
		return KafkaCommittable{}, c.Err
	}
	k := KafkaCommittable{Epoch: int16(c.U16("epoch"))}
	k.ProducerID = c.I64("producer id")
	k.TransactionalID = c.UTF("transactional id")
	switch {
	case c.Err != nil:
	case k.Epoch < 0:
		c.Fail("epoch %d", k.Epoch)
	case k.ProducerID < 0:
		c.Fail("producer id %d", k.ProducerID)
	case k.TransactionalID == "":
		c.Fail("empty transactional id")
	}
	c.End()
	return k, c.Err
}
