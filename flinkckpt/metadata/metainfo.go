package metadata

import (
	"bytes"
	"encoding/binary"
)

// StateMetaInfo is what [ScanStateMetaInfo] found of one state's meta info
// in a state stream: its name and the serializer snapshot classes recorded
// for it.
type StateMetaInfo struct {
	// Name is the state's name; "" for what precedes the first state's meta
	// info (a keyed backend's key serializer).
	Name string
	// Type is the backend state type the meta info records
	// (StateMetaInfoSnapshot.BackendStateType's ordinal): one of the
	// MetaInfo* constants, or a later one; 0 (MetaInfoKeyValue) for what
	// precedes the first state.
	Type int32
	// Serializers are the serializer snapshot classes recorded for the
	// state, nested ones included, in stream order.
	Serializers []SerializerClass
}

// SerializerClass is one serializer snapshot class name in a state's meta
// info, and the serializer it belongs to.
type SerializerClass struct {
	// Role is the serializer key it follows: KEY_SERIALIZER,
	// NAMESPACE_SERIALIZER or VALUE_SERIALIZER; "KEY_SERIALIZER" also for
	// a keyed backend's key serializer before the first state.
	Role string
	// Class is the snapshot's Java class name, e.g.
	// org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializerSnapshot.
	Class string
}

// Backend state types a meta info records (StateMetaInfoSnapshot's
// BackendStateType, written as its ordinal; Flink 2.2.0's order).
const (
	// MetaInfoKeyValue: keyed state of the classic state API.
	MetaInfoKeyValue int32 = 0
	// MetaInfoOperator: operator (non-keyed) list or union state.
	MetaInfoOperator int32 = 1
	// MetaInfoBroadcast: broadcast state.
	MetaInfoBroadcast int32 = 2
	// MetaInfoPriorityQueue: a priority queue (timers).
	MetaInfoPriorityQueue int32 = 3
	// MetaInfoKeyValueV2: keyed state of the async state API (Flink 2.x),
	// which only ForSt's async keyed backend registers (read from the
	// Flink 2.2.0 jars: v2.RegisteredKeyValueStateBackendMetaInfo is
	// created by ForStKeyedStateBackend alone).
	MetaInfoKeyValueV2 int32 = 4
)

// The option keys that open a state's options in its meta info
// (StateMetaInfoSnapshot.CommonOptionsKeys), and the serializer keys
// (CommonSerializerKeys).
var (
	metaInfoOptionKeys = []string{"KEYED_STATE_TYPE", "OPERATOR_STATE_DISTRIBUTION_MODE"}
	serializerKeys     = map[string]bool{"KEY_SERIALIZER": true, "NAMESPACE_SERIALIZER": true, "VALUE_SERIALIZER": true}
)

// maxMetaInfos bounds what one scan returns.
const maxMetaInfos = 4096

// ScanStateMetaInfo finds the state meta infos in a state stream's bytes (an
// operator state stream, a keyed state stream, a RocksDB meta data file,
// a changelog's metadata change) as Flink's StateMetaInfoSnapshot writer
// lays them out: the state name (UTF), int32 backend state type, int32
// option count, the options as UTF pairs opening with KEYED_STATE_TYPE or
// OPERATOR_STATE_DISTRIBUTION_MODE, then the serializer snapshots, each
// after its key (KEY_SERIALIZER, NAMESPACE_SERIALIZER, VALUE_SERIALIZER) and
// written as its class name (UTF), a version and its own content.
//
// It scans rather than parses: the serializer snapshots' contents have no
// common layout, so it finds each state by the options that open its meta
// info, and every Java class name ending in "Snapshot" after it as one of
// its serializer snapshots. Bytes that hold no meta info give nothing; no
// input panics it (FuzzScanStateMetaInfo).
func ScanStateMetaInfo(b []byte) []StateMetaInfo {
	var out []StateMetaInfo
	cur := -1 // index in out of the state being read; -1 before the first
	role := "KEY_SERIALIZER"
	for i := 0; i+2 <= len(b) && len(out) < maxMetaInfos; i++ {
		n := int(binary.BigEndian.Uint16(b[i:]))
		if n == 0 || i+2+n > len(b) {
			continue
		}
		s := b[i+2 : i+2+n]
		switch {
		case isOptionKey(s):
			name, typ, ok := stateNameBefore(b, i)
			if !ok {
				continue
			}
			out = append(out, StateMetaInfo{Name: name, Type: typ})
			cur, role = len(out)-1, ""
			i += 1 + n
		case serializerKeys[string(s)]:
			role = string(s)
			i += 1 + n
		case isSnapshotClass(s):
			if cur < 0 {
				out = append(out, StateMetaInfo{})
				cur = 0
			}
			if len(out[cur].Serializers) < maxMetaInfos {
				out[cur].Serializers = append(out[cur].Serializers, SerializerClass{Role: role, Class: string(s)})
			}
			i += 1 + n
		}
	}
	return out
}

func isOptionKey(s []byte) bool {
	for _, k := range metaInfoOptionKeys {
		if string(s) == k {
			return true
		}
	}
	return false
}

// stateNameBefore reads the state name that ends 8 bytes (backend state
// type, option count) before the option key's length at at, and that type:
// a UTF string of printable characters whose length prefix matches. The
// type must be a small ordinal and the count positive.
func stateNameBefore(b []byte, at int) (string, int32, bool) {
	end := at - 8
	if end < 2 {
		return "", 0, false
	}
	typ := int32(binary.BigEndian.Uint32(b[end:]))
	count := int32(binary.BigEndian.Uint32(b[end+4:]))
	if typ < 0 || typ > 16 || count < 1 || count > 64 {
		return "", 0, false
	}
	for n := 1; n <= 1024 && end-2-n >= 0; n++ {
		if int(binary.BigEndian.Uint16(b[end-2-n:])) != n {
			continue
		}
		name := b[end-n : end]
		if printable(name) {
			return string(name), typ, true
		}
	}
	return "", 0, false
}

func printable(s []byte) bool {
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return len(s) > 0
}

// isSnapshotClass reports whether s looks like a Java class name (letters,
// digits, '_', '$', dots, at least one dot) ending in "Snapshot".
func isSnapshotClass(s []byte) bool {
	if len(s) < 10 || !bytes.HasSuffix(s, []byte("Snapshot")) || bytes.IndexByte(s, '.') < 0 {
		return false
	}
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '$':
		default:
			return false
		}
	}
	return true
}
