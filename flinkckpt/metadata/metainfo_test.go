package metadata_test

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

const (
	kryoSnapshot   = "org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializerSnapshot"
	longSnapshot   = "org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot"
	tupleSnapshot  = "org.apache.flink.api.java.typeutils.runtime.TupleSerializerSnapshot"
	voidNSSnapshot = "org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot"
)

// metaStream writes state meta infos as Flink's StateMetaInfoSnapshot
// writer (version 6) lays them out, after a proxy header holding a keyed
// backend's key serializer snapshot when key is set.
type metaStream struct{ b []byte }

func (m *metaStream) utf(s string) {
	m.b = binary.BigEndian.AppendUint16(m.b, uint16(len(s)))
	m.b = append(m.b, s...)
}
func (m *metaStream) i32(v int32) { m.b = binary.BigEndian.AppendUint32(m.b, uint32(v)) }

// snapshot writes a serializer snapshot: class name, version, and nested
// snapshots as composite serializers write theirs (a count, then each).
func (m *metaStream) snapshot(class string, nested ...string) {
	m.utf(class)
	m.i32(3)
	if len(nested) > 0 {
		m.i32(int32(len(nested)))
		for _, n := range nested {
			m.snapshot(n)
		}
	}
}

func (m *metaStream) state(name string, typ int32, option, value string, serializers [][2]string) {
	m.utf(name)
	m.i32(typ)
	m.i32(1)
	m.utf(option)
	m.utf(value)
	m.i32(int32(len(serializers)))
	for _, s := range serializers {
		m.utf(s[0])
		m.snapshot(s[1])
	}
}

func keyedStream() []byte {
	var m metaStream
	m.i32(6)             // proxy version
	m.b = append(m.b, 0) // compression flag
	m.snapshot(kryoSnapshot)
	m.i32(2)
	m.state("counts", 0, "KEYED_STATE_TYPE", "VALUE", [][2]string{{"NAMESPACE_SERIALIZER", voidNSSnapshot}, {"VALUE_SERIALIZER", longSnapshot}})
	m.state("events", 0, "KEYED_STATE_TYPE", "LIST", [][2]string{{"NAMESPACE_SERIALIZER", voidNSSnapshot}, {"VALUE_SERIALIZER", kryoSnapshot}})
	return m.b
}

func operatorStream() []byte {
	var m metaStream
	m.i32(6)
	m.b = append(m.b, 0)
	m.i32(1)
	m.utf("topic-partition-offset-states")
	m.i32(1)
	m.i32(1)
	m.utf("OPERATOR_STATE_DISTRIBUTION_MODE")
	m.utf("UNION")
	m.i32(1)
	m.utf("VALUE_SERIALIZER")
	m.snapshot(tupleSnapshot, kryoSnapshot, longSnapshot)
	m.i32(0) // broadcast states
	return m.b
}

// TestScanStateMetaInfo: each state's name and its serializer snapshots
// (nested ones included) under the key they follow; a keyed backend's key
// serializer before the first state under an unnamed entry.
func TestScanStateMetaInfo(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want []metadata.StateMetaInfo
	}{
		{"Keyed", keyedStream(), []metadata.StateMetaInfo{
			{Serializers: []metadata.SerializerClass{{Role: "KEY_SERIALIZER", Class: kryoSnapshot}}},
			{Name: "counts", Serializers: []metadata.SerializerClass{{Role: "NAMESPACE_SERIALIZER", Class: voidNSSnapshot}, {Role: "VALUE_SERIALIZER", Class: longSnapshot}}},
			{Name: "events", Serializers: []metadata.SerializerClass{{Role: "NAMESPACE_SERIALIZER", Class: voidNSSnapshot}, {Role: "VALUE_SERIALIZER", Class: kryoSnapshot}}},
		}},
		{"Operator", operatorStream(), []metadata.StateMetaInfo{
			{Name: "topic-partition-offset-states", Type: metadata.MetaInfoOperator, Serializers: []metadata.SerializerClass{{Role: "VALUE_SERIALIZER", Class: tupleSnapshot}, {Role: "VALUE_SERIALIZER", Class: kryoSnapshot}, {Role: "VALUE_SERIALIZER", Class: longSnapshot}}},
		}},
		// The async state API's keyed state (Flink 2.x, ForSt): KEY_VALUE_V2.
		{"AsyncKeyed", func() []byte {
			var m metaStream
			m.state("count", metadata.MetaInfoKeyValueV2, "KEYED_STATE_TYPE", "VALUE", [][2]string{{"NAMESPACE_SERIALIZER", voidNSSnapshot}, {"VALUE_SERIALIZER", longSnapshot}})
			return m.b
		}(), []metadata.StateMetaInfo{
			{Name: "count", Type: metadata.MetaInfoKeyValueV2, Serializers: []metadata.SerializerClass{{Role: "NAMESPACE_SERIALIZER", Class: voidNSSnapshot}, {Role: "VALUE_SERIALIZER", Class: longSnapshot}}},
		}},
		{"Empty", nil, nil},
		{"NoMetaInfo", []byte("\x00\x05hello\x00\x10KEYED_STATE_TYPE"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, metadata.ScanStateMetaInfo(tc.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzScanStateMetaInfo: no input panics the scan, and what it returns is
// what it promises: named states have printable names, every class ends
// in "Snapshot", and a role is a serializer key or empty.
func FuzzScanStateMetaInfo(f *testing.F) {
	f.Add(keyedStream())
	f.Add(operatorStream())
	f.Fuzz(func(t *testing.T, data []byte) {
		out := metadata.ScanStateMetaInfo(data)
		if len(out) > len(data) {
			t.Fatalf("%d meta infos from %d bytes", len(out), len(data))
		}
		for i, m := range out {
			if m.Name == "" && i > 0 {
				t.Fatalf("unnamed meta info at %d", i)
			}
			for _, s := range m.Serializers {
				switch s.Role {
				case "", "KEY_SERIALIZER", "NAMESPACE_SERIALIZER", "VALUE_SERIALIZER":
				default:
					t.Fatalf("role %q", s.Role)
				}
				if len(s.Class) < 10 || s.Class[len(s.Class)-8:] != "Snapshot" {
					t.Fatalf("class %q", s.Class)
				}
			}
		}
	})
}
