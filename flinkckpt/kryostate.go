package flinkckpt

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume/redact"
)

// kryoSnapshotClass is the serializer snapshot Flink writes for a type
// serialized by Kryo (a generic type).
const kryoSnapshotClass = "org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializerSnapshot"

// metaInfoHead is how much of a state file is read for its state meta
// info: Flink writes the meta info (KeyedBackendSerializationProxy,
// OperatorBackendSerializationProxy) first, uncompressed, so the head of
// a key-groups or operator state stream holds it, and a RocksDB meta data
// file is the meta info.
const metaInfoHead = 64 << 10

// kryoStates names, per operator and state, the state whose serializer
// snapshot in the state meta info is Kryo's: read from the meta info inline
// in _metadata (operator state streams, keyed state streams, the RocksDB
// meta data handle, changelog materializations) or, where it is in a file,
// from the head of that file (metaInfoHead), one subtask's file per
// operator and kind (every subtask of an operator registers the same
// states). With the data-inline threshold at 0, or state larger than it,
// nearly every snapshot keeps its meta info in files (conformance U2: a
// Flink 1.20.3 RocksDB savepoint, canonical and native, read by Flink
// 2.2.0). unread names the operators whose file could not be read.
func kryoStates(md *metadata.Checkpoint, rd *stateReader) (found, unread []string) {
	for _, op := range md.Operators {
		names := map[string]bool{}
		var failed []string
		fileRead := map[string]bool{} // "operator state", "keyed state": one file each
		scanFile := func(h *metadata.StreamHandle, kind string) {
			if fileRead[kind] {
				return
			}
			leaf := fileOf(h)
			if leaf == nil {
				return
			}
			fileRead[kind] = true
			b, err := rd.head(leaf, metaInfoHead)
			if err != nil {
				failed = append(failed, fmt.Sprintf("%s (%v)", kind, err))
				return
			}
			scanKryo(b, kind, names)
		}
		for _, st := range op.SubtaskStates {
			for _, h := range []*metadata.OperatorHandle{st.ManagedOperator, st.RawOperator} {
				if h == nil {
					continue
				}
				if b := inlineData(h.Stream); b != nil {
					scanKryo(b, "operator state", names)
				} else {
					scanFile(h.Stream, "operator state")
				}
			}
			for _, k := range []*metadata.KeyedHandle{st.ManagedKeyed, st.RawKeyed} {
				inline := keyedInline(k, 0)
				for _, b := range inline {
					scanKryo(b, "keyed state", names)
				}
				if len(inline) == 0 && k != nil {
					scanFile(keyedMeta(k, 0), "keyed state")
				}
			}
		}
		if len(failed) > 0 {
			unread = append(unread, fmt.Sprintf("operator %s%s: %s", op.ID, uidSuffix(op), strings.Join(failed, ", ")))
		}
		if len(names) == 0 {
			continue
		}
		list := make([]string, 0, len(names))
		for n := range names {
			list = append(list, n)
		}
		sort.Strings(list)
		found = append(found, fmt.Sprintf("operator %s%s: %s", op.ID, uidSuffix(op), strings.Join(list, ", ")))
	}
	return found, unread
}

func scanKryo(b []byte, kind string, names map[string]bool) {
	for _, m := range metadata.ScanStateMetaInfo(b) {
		for _, s := range m.Serializers {
			if s.Class != kryoSnapshotClass {
				continue
			}
			role := strings.ToLower(strings.TrimSuffix(s.Role, "_SERIALIZER"))
			if m.Name == "" {
				names[kind+" key serializer"] = true
			} else {
				names[fmt.Sprintf("%s %q (%s)", kind, m.Name, role)] = true
			}
		}
	}
}

// inlineData returns a stream handle's inline bytes (and those of the
// stream key groups delegate to), nil when the bytes are in a file.
func inlineData(h *metadata.StreamHandle) []byte {
	for d := 0; h != nil && d < 8; d++ {
		if h.Type == metadata.TypeByteStream {
			return h.Data
		}
		h = h.Nested
	}
	return nil
}

// fileOf returns the file handle (absolute, relative or a segment) a stream
// handle's bytes are in, following key groups to their delegate; nil when
// they are inline or there is none.
func fileOf(h *metadata.StreamHandle) *metadata.StreamHandle {
	for d := 0; h != nil && d < 8; d++ {
		switch h.Type {
		case metadata.TypeFile, metadata.TypeRelativeFile, metadata.TypeSegment:
			if h.Path != "" {
				return h
			}
			return nil
		case metadata.TypeByteStream:
			return nil
		}
		h = h.Nested
	}
	return nil
}

// keyedMeta returns the stream of a keyed handle that begins with the
// keyed state meta info: its own (the key-groups stream, the RocksDB meta
// data handle), else that of its first materialized part (changelog).
func keyedMeta(k *metadata.KeyedHandle, depth int) *metadata.StreamHandle {
	if k == nil || depth > 8 {
		return nil
	}
	if k.Stream != nil {
		return k.Stream
	}
	for _, m := range k.Materialized {
		if s := keyedMeta(m, depth+1); s != nil {
			return s
		}
	}
	return nil
}

// head reads the first n bytes of the state file h (a segment: of its
// range), fewer when the file is shorter.
func (r *stateReader) head(h *metadata.StreamHandle, n int64) ([]byte, error) {
	key, err := r.key(h)
	if err != nil {
		return nil, err
	}
	var off int64
	if h.Type == metadata.TypeSegment {
		if h.Start < 0 || h.Size < 0 {
			return nil, fmt.Errorf("segment of %s at %d, %d bytes", redact.QuoteKey(h.Path), h.Start, h.Size)
		}
		off, n = h.Start, min(n, h.Size)
	}
	rd, err := r.b.NewRangeReader(r.ctx, key, off, n, nil)
	if err != nil {
		return nil, r.readError(key, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(io.LimitReader(rd, n))
	if err != nil {
		return nil, r.readError(key, err)
	}
	return data, nil
}

// keyedInline returns the inline streams of a keyed handle that can hold
// the keyed state meta info: a key-groups stream, the RocksDB meta data
// handle, the materialized part of a changelog handle.
func keyedInline(k *metadata.KeyedHandle, depth int) [][]byte {
	if k == nil || depth > 8 {
		return nil
	}
	var out [][]byte
	if b := inlineData(k.Stream); b != nil {
		out = append(out, b)
	}
	for _, m := range k.Materialized {
		out = append(out, keyedInline(m, depth+1)...)
	}
	for _, m := range k.NonMaterialized {
		out = append(out, keyedInline(m, depth+1)...)
	}
	for _, c := range k.Changes {
		out = append(out, c.Data)
	}
	return out
}
