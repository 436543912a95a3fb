package kafkaoffset

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestGroupPartition checks Kafka's partitionFor(group): Java's
// String.hashCode ("hello" is 99162322, "polygenelubricants" is
// Integer.MIN_VALUE, which Utils.abs maps to 0), over UTF-16 code units.
func TestGroupPartition(t *testing.T) {
	for _, tc := range []struct {
		group string
		n     int32
		want  int32
	}{
		{"", 50, 0},
		{"a", 50, 47},
		{"abc", 50, 4},
		{"hello", 50, 22},             // 99162322
		{"polygenelubricants", 50, 0}, // hash Integer.MIN_VALUE
		{"orders-job", 50, 9},         // 772765909
		{"flink-kafka-orders-consumer-group", 50, 6}, // -1641345156: abs
		{"😀", 50, 49},     // surrogate pair D83D DE00: 1772899
		{"grüße", 50, 23}, // 98768023
		{"hello", 1, 0},
		{"hello", 0, -1},
	} {
		if got := GroupPartition(tc.group, tc.n); got != tc.want {
			t.Errorf("GroupPartition(%q, %d) = %d, want %d", tc.group, tc.n, got, tc.want)
		}
	}
}

// Records built by hand from Kafka's schemas (OffsetCommitKey.json,
// OffsetCommitValue.json), independent of kmsg's encoder.
func be16(v int16) []byte { return binary.BigEndian.AppendUint16(nil, uint16(v)) }
func be32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
func be64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
func str(s string) []byte { return append(be16(int16(len(s))), s...) }
func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestDecodeCommitRecord(t *testing.T) {
	key1 := cat(be16(1), str("job"), str("orders"), be32(3))
	key0 := cat(be16(0), str("job"), str("orders"), be32(3))
	want := commitRecord{group: "job", topic: "orders", partition: 3, offset: 42, commitMillis: 1795946400000}
	for _, tc := range []struct {
		name       string
		key, value []byte
		want       commitRecord
		ok         bool
		err        bool
	}{
		{"KeyV1ValueV0", key1, cat(be16(0), be64(42), str("m"), be64(1795946400000)), want, true, false},
		{"KeyV0ValueV1", key0, cat(be16(1), be64(42), str(""), be64(1795946400000), be64(1796032800000)), want, true, false},
		{"ValueV2", key1, cat(be16(2), be64(42), str(""), be64(1795946400000)), want, true, false},
		{"ValueV3", key1, cat(be16(3), be64(42), be32(7), str("meta"), be64(1795946400000)), want, true, false},
		// v4 is flexible: compact string (length+1 as uvarint), then
		// tagged fields (none).
		{"ValueV4", key1, cat(be16(4), be64(42), be32(7), []byte{5}, []byte("meta"), be64(1795946400000), []byte{0}), want, true, false},
		{"Tombstone", key1, nil, commitRecord{group: "job", topic: "orders", partition: 3, offset: -1, commitMillis: -1, tombstone: true}, true, false},
		{"GroupMetadataKey", cat(be16(2), str("job")), []byte{0, 3}, commitRecord{}, false, false},
		{"NewerRecordType", cat(be16(8), str("job")), []byte{0, 0}, commitRecord{}, false, false},
		{"NegativeKeyVersion", cat(be16(-1), str("job")), nil, commitRecord{}, false, false},
		{"ShortKey", []byte{0}, nil, commitRecord{}, false, true},
		{"TruncatedKey", cat(be16(1), str("job"), str("ord")[:4]), nil, commitRecord{}, false, true},
		{"KeyTrailingBytes", cat(key1, []byte{9}), cat(be16(0), be64(42), str(""), be64(1)), commitRecord{}, false, true},
		{"ValueTrailingBytes", key1, cat(be16(0), be64(42), str(""), be64(1), []byte{1}), commitRecord{}, false, true},
		{"ValueVersion5", key1, cat(be16(5), be64(42)), commitRecord{}, false, true},
		{"ShortValue", key1, []byte{0}, commitRecord{}, false, true},
		{"TruncatedValue", key1, cat(be16(3), be64(42), be32(7)), commitRecord{}, false, true},
		{"MetadataLongerThanValue", key1, cat(be16(0), be64(42), be16(3000), be64(1)), commitRecord{}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := decodeCommitRecord(tc.key, tc.value)
			if (err != nil) != tc.err || ok != tc.ok {
				t.Fatalf("ok %v err %v, want ok %v err %v", ok, err, tc.ok, tc.err)
			}
			if ok {
				if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(commitRecord{})); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestDecodeCommitRecordKmsgRoundTrip: what kmsg encodes (the helper
// kafkaoffsettest writes with it) decodes to the same fields, every value
// version.
func TestDecodeCommitRecordKmsgRoundTrip(t *testing.T) {
	for v := int16(0); v <= maxCommitValueVersion; v++ {
		k := kmsg.NewOffsetCommitKey()
		k.Version, k.Group, k.Topic, k.Partition = 1, "g", "t", 9
		val := kmsg.NewOffsetCommitValue()
		val.Version, val.Offset, val.LeaderEpoch, val.Metadata, val.CommitTimestamp, val.ExpireTimestamp = v, 77, 3, "x", 123456, 999
		got, ok, err := decodeCommitRecord(k.AppendTo(nil), val.AppendTo(nil))
		if err != nil || !ok {
			t.Fatalf("value v%d: ok %v err %v", v, ok, err)
		}
		if got.group != "g" || got.topic != "t" || got.partition != 9 || got.offset != 77 || got.commitMillis != 123456 {
			t.Errorf("value v%d: %+v", v, got)
		}
	}
}

// FuzzDecodeCommitRecord: any bytes decode or fail with an error, never
// panic; an offset commit that decodes re-encodes (key v1, value v3) and
// decodes to the same fields.
func FuzzDecodeCommitRecord(f *testing.F) {
	key := cat(be16(1), str("job"), str("orders"), be32(3))
	f.Add(key, cat(be16(3), be64(42), be32(7), str("meta"), be64(1795946400000)), false)
	f.Add(key, cat(be16(4), be64(42), be32(7), []byte{5}, []byte("meta"), be64(1795946400000), []byte{0}), false)
	f.Add(key, cat(be16(1), be64(42), str(""), be64(1), be64(2)), false)
	f.Add(key, []byte(nil), true)
	f.Add(cat(be16(2), str("job")), []byte{0, 3, 0, 0}, false)
	f.Fuzz(func(t *testing.T, key, value []byte, tombstone bool) {
		if tombstone {
			value = nil
		}
		rec, ok, err := decodeCommitRecord(key, value)
		if err != nil || !ok || rec.tombstone {
			return
		}
		k := kmsg.NewOffsetCommitKey()
		k.Version, k.Group, k.Topic, k.Partition = 1, rec.group, rec.topic, rec.partition
		v := kmsg.NewOffsetCommitValue()
		v.Version, v.Offset, v.CommitTimestamp = 3, rec.offset, rec.commitMillis
		back, ok, err := decodeCommitRecord(k.AppendTo(nil), v.AppendTo(nil))
		if err != nil || !ok || back != rec {
			t.Fatalf("%+v re-encoded decodes to %+v (ok %v, err %v)", rec, back, ok, err)
		}
	})
}

// TestBatchesEnd: the offset after the last whole batch, v2 batches and old
// message sets, a batch cut short by the byte limit ignored.
func TestBatchesEnd(t *testing.T) {
	v2 := func(base int64, lastDelta int32) []byte {
		b := kmsg.RecordBatch{FirstOffset: base, Magic: 2, LastOffsetDelta: lastDelta, NumRecords: lastDelta + 1}
		raw := b.AppendTo(nil)
		binary.BigEndian.PutUint32(raw[8:], uint32(len(raw)-12))
		return raw
	}
	old := cat(be64(30), be32(14), be32(0), []byte{1, 0}, be64(0)) // offset, size, crc, magic 1, attrs, …
	two := cat(v2(10, 4), v2(15, 2))
	for _, tc := range []struct {
		name string
		raw  []byte
		off  int64
		want int64
	}{
		{"Empty", nil, 5, 5},
		{"TwoBatches", two, 10, 18},
		{"LastCut", two[:len(two)-3], 10, 15},
		{"OldMessageSet", old, 30, 31},
		{"Garbage", []byte{1, 2, 3}, 7, 7},
		{"NegativeLength", cat(be64(1), be32(-5), make([]byte, 20)), 1, 1},
	} {
		if got := batchesEnd(tc.raw, tc.off); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
