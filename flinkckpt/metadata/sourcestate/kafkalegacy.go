package sourcestate

import "fmt"

// The legacy FlinkKafkaConsumer's offset sentinels
// (KafkaTopicPartitionStateSentinel): a partition whose restored state
// holds one starts as the sentinel says.
const (
	legacyOffsetNotSet    int64 = -915623761776
	legacyOffsetEarliest  int64 = -915623761775
	legacyOffsetLatest    int64 = -915623761774
	legacyOffsetGroup     int64 = -915623761773
	maxLegacyElementBytes       = 1024 // class id, reference, hash, partition, a 249-character topic in UTF-8, the offset
)

// parseLegacyKafkaOffset decodes one element of the FlinkKafkaConsumer's
// union list state "topic-partition-offset-states": a Tuple2 of
// KafkaTopicPartition and Long, through the TupleSerializer
// FlinkKafkaConsumerBase.createStateSerializer builds — the partition by
// Flink's KryoSerializer (Kryo 2.24: writeClassAndObject with references:
// a varint class id, or 1 and the class name; a varint reference marker,
// 1 for a new object; then FieldSerializer's fields in name order:
// cachedHash and partition as zigzag varints, topic as a not-null byte and
// a Kryo string), the offset as 8 big-endian bytes. The offset recorded is
// the last record read: the split starts at the next one (offset+1); the
// sentinels for earliest, latest and the group's offset become the
// KafkaSource markers. It returns the split and the element's length.
//
// The layout was checked against bytes Flink 1.20.3's serializers wrote
// (flink-connector-kafka 3.4.0-1.20; see kafkalegacy_test.go).
func parseLegacyKafkaOffset(b []byte, subtask int32) (KafkaSplit, int, error) {
	c := newCursor("FlinkKafkaConsumer topic-partition-offset-states element", b)
	class := kryoVarint(c, "Kryo class id")
	switch {
	case c.Err != nil:
	case class == 0:
		c.Fail("null KafkaTopicPartition")
	case class == 1:
		kryoVarint(c, "Kryo class name id")
		if name := kryoString(c, "Kryo class name"); c.Err == nil && name != "org.apache.flink.streaming.connectors.kafka.internals.KafkaTopicPartition" {
			c.Fail("Kryo class %q, want KafkaTopicPartition", truncate(name, 80))
		}
	}
	if ref := kryoVarint(c, "Kryo reference marker"); c.Err == nil && ref != 1 {
		c.Fail("Kryo reference marker %d, want 1 (a new object)", ref)
	}
	kryoVarint(c, "cachedHash")
	part := zigzag(kryoVarint(c, "partition"))
	if nn := c.U8("topic not-null marker"); c.Err == nil && nn != 1 {
		c.Fail("topic not-null marker %d, want 1", nn)
	}
	topic := kryoString(c, "topic")
	off := c.I64("offset")
	if c.Err != nil {
		return KafkaSplit{}, 0, c.Err
	}
	s := KafkaSplit{Subtask: subtask, Topic: topic, Partition: int32(part), StoppingOffset: OffsetNone}
	switch {
	case part < 0 || part > 1<<31-1:
		c.Fail("partition %d", part)
	case topic == "" || len(topic) > 249:
		c.Fail("topic of %d bytes (Kafka allows 1 to 249 characters)", len(topic))
	case off == legacyOffsetEarliest:
		s.StartingOffset = OffsetEarliest
	case off == legacyOffsetLatest:
		s.StartingOffset = OffsetLatest
	case off == legacyOffsetGroup:
		s.StartingOffset = OffsetCommitted
	case off == legacyOffsetNotSet:
		c.Fail("partition %s-%d has no offset set (OFFSET_NOT_SET): where it starts depends on the old job's startup mode", truncate(topic, 80), part)
	case off < -1 || off >= maxID:
		c.Fail("offset %d", off)
	default:
		s.StartingOffset = off + 1
	}
	return s, c.Off, c.Err
}

func zigzag(v uint64) int64 { return int64(v>>1) ^ -int64(v&1) }

// kryoVarint reads Kryo's unsigned varint (7 bits a byte, low first, at
// most 5 bytes for an int).
func kryoVarint(c *cursor, field string) uint64 {
	var v uint64
	for i := 0; i < 5; i++ {
		b := c.U8(field)
		if c.Err != nil {
			return 0
		}
		v |= uint64(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			return v
		}
	}
	c.Fail("%s: varint longer than 5 bytes", field)
	return 0
}

// kryoString reads Output.writeString: ASCII with the last byte's high bit
// set, or (first byte's high bit set) a UTF-8 length+1 in Kryo's length
// encoding and that many characters in UTF-8; length 0 is null.
func kryoString(c *cursor, field string) string {
	b := c.U8(field)
	if c.Err != nil {
		return ""
	}
	if b&0x80 == 0 {
		// ASCII: up to the byte with the high bit set.
		out := []byte{b}
		for len(out) < maxLegacyElementBytes {
			x := c.U8(field)
			if c.Err != nil {
				return ""
			}
			if x&0x80 != 0 {
				return string(append(out, x&0x7f))
			}
			out = append(out, x)
		}
		c.Fail("%s: ASCII string longer than %d bytes", field, maxLegacyElementBytes)
		return ""
	}
	n := uint64(b & 0x3f)
	if b&0x40 != 0 {
		n |= kryoVarint(c, field) << 6
	}
	switch {
	case c.Err != nil:
		return ""
	case n == 0:
		c.Fail("%s: null string", field)
		return ""
	case n-1 > maxLegacyElementBytes:
		c.Fail("%s: %d characters", field, n-1)
		return ""
	}
	var out []rune
	for i := uint64(0); i < n-1; i++ {
		x := c.U8(field)
		var r rune
		switch x >> 4 {
		case 12, 13:
			r = rune(x&0x1f)<<6 | rune(c.U8(field)&0x3f)
		case 14:
			r = rune(x&0x0f)<<12 | rune(c.U8(field)&0x3f)<<6 | rune(c.U8(field)&0x3f)
		default:
			r = rune(x)
		}
		if c.Err != nil {
			return ""
		}
		out = append(out, r)
	}
	return string(out)
}

// legacyKafkaElement reads the element at off of a FlinkKafkaConsumer's
// offset state through at: the bytes up to the next element's offset
// (next > off), or for the last one as many as the stream holds, up to
// the most an element can take.
func legacyKafkaElement(at func(off, n int64, what string) ([]byte, error), off, next int64, subtask int32, what string) (KafkaSplit, error) {
	var b []byte
	var err error
	if next > off {
		b, err = at(off, next-off, what)
	} else {
		// The largest n ≤ maxLegacyElementBytes the stream holds at off.
		lo, hi := int64(0), int64(maxLegacyElementBytes)
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if _, e := at(off, mid, what); e == nil {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		b, err = at(off, lo, what)
	}
	if err != nil {
		return KafkaSplit{}, err
	}
	s, _, err := parseLegacyKafkaOffset(b, subtask)
	if err != nil {
		return KafkaSplit{}, fmt.Errorf("%s: %w", what, err)
	}
	return s, nil
}
