package opstate_test

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/klauspost/compress/snappy"
)

// element frames one SimpleVersionedSerialization payload as a list
// element: int32 L, int32 version, int32 N, N bytes.
func element(version int32, data []byte) []byte {
	e := binary.BigEndian.AppendUint32(nil, uint32(len(data)+8))
	e = binary.BigEndian.AppendUint32(e, uint32(version))
	e = binary.BigEndian.AppendUint32(e, uint32(len(data)))
	return append(e, data...)
}

// stream writes an operator state stream as Flink does: the proxy header
// of version 6 and empty meta info lists, then each element at its offset
// (for a compressed stream: the Snappy stream identifier, then one flush,
// chunks of at most 64 KiB, per element). It returns the offsets.
func stream(compressed bool, elems ...[]byte) ([]byte, []int64) {
	b := binary.BigEndian.AppendUint32(nil, 6)
	if compressed {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, 0)
	if compressed {
		b = append(b, 0xff, 6, 0, 0, 's', 'N', 'a', 'P', 'p', 'Y')
	}
	var offs []int64
	for _, e := range elems {
		offs = append(offs, int64(len(b)))
		if !compressed {
			b = append(b, e...)
			continue
		}
		for len(e) > 0 {
			n := min(len(e), 64<<10)
			b = appendChunk(b, e[:n])
			e = e[n:]
		}
	}
	return b, offs
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendChunk appends one compressed framed chunk of data.
func appendChunk(b, data []byte) []byte {
	c := crc32.Checksum(data, castagnoli)
	body := snappy.Encode(nil, data)
	n := len(body) + 4
	b = append(b, 0, byte(n), byte(n>>8), byte(n>>16))
	b = binary.LittleEndian.AppendUint32(b, (c>>15|c<<17)+0xa282ead8)
	return append(b, body...)
}
