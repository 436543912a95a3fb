package metadata

import (
	"bytes"
	"encoding/hex"
)

// checkpoint decodes a whole file: header, master states, operators, and
// (v4+) the Java-serialized properties.
func (d *decoder) checkpoint() *Checkpoint {
	md := &Checkpoint{}
	d.md = md
	if magic := uint32(d.i32("magic number", "")); d.err == nil && magic != metadataMagic {
		d.off = 0
		d.fail("magic number", "got %#08x, want %#08x (not a Flink _metadata file)", magic, metadataMagic)
	}
	vStart := d.off
	v := d.i32("version", "")
	if d.err == nil && (v < 2 || v > 7) {
		d.off = vStart
		d.fail("version", "unsupported version %d (want 2 to 7)", v)
	}
	md.Version = int(v)
	idStart := d.off
	md.CheckpointID = d.i64("checkpoint id", "")
	switch {
	case d.err != nil:
	case md.CheckpointID < 0:
		d.off = idStart
		d.fail("checkpoint id", "negative checkpoint id %d", md.CheckpointID)
	case md.CheckpointID > MaxCheckpointID:
		d.off = idStart
		d.fail("checkpoint id", "checkpoint id %d is above 2^62", md.CheckpointID)
	}
	nm := d.count("master state count", "", 8)
	for i := 0; i < nm && d.err == nil; i++ {
		d.masterState(md)
	}
	nop := d.count("operator count", "", 25)
	for i := 0; i < nop && d.err == nil; i++ {
		md.Operators = append(md.Operators, d.operator(md.Version))
	}
	if d.err != nil {
		return md
	}
	if md.Version >= 4 {
		d.properties(md)
	} else if d.left() > 0 {
		d.fail("end of file", "%d trailing bytes after the last operator", d.left())
	}
	d.finishFiles()
	md.Size = int64(d.off)
	return md
}

func (d *decoder) masterState(md *Checkpoint) {
	start := d.off
	if magic := uint32(d.i32("master state magic number", "")); d.err == nil && magic != masterStateMagic {
		d.off = start
		d.fail("master state magic number", "got %#08x, want %#08x", magic, masterStateMagic)
		return
	}
	n := int(d.i32("master state length", ""))
	if d.err != nil {
		return
	}
	if n <= 0 || n > d.left() {
		d.off -= 4
		d.fail("master state length", "length %d, %d bytes left", n, d.left())
		return
	}
	end := d.off + n
	sub := &decoder{buf: d.buf[:end], off: d.off}
	var ms MasterState
	ms.Version = sub.i32("master state version", "")
	ms.Name = sub.utf("master state name", "")
	ms.Data = sub.bytes("master state data", "")
	if sub.err == nil && sub.off != end {
		sub.fail("master state", "%d trailing bytes", end-sub.off)
	}
	if sub.err != nil {
		d.err = sub.err
		return
	}
	d.off = end
	md.Masters = append(md.Masters, ms)
	md.MasterStates = append(md.MasterStates, ms.Name)
}

func (d *decoder) operator(version int) Operator {
	var op Operator
	if version >= 5 {
		op.Name = d.utf("operator name", "")
		op.UID = d.utf("operator uid", "")
	}
	if !d.need(16, "operator id", "") {
		return op
	}
	op.ID = hex.EncodeToString(d.buf[d.off : d.off+16])
	d.off += 16
	d.op = op.ID
	op.Parallelism = int(d.i32("parallelism", ""))
	op.MaxParallelism = int(d.i32("max parallelism", ""))
	if version == 2 {
		start := d.off
		if cl := d.i32("chain length", ""); d.err == nil && cl != 1 {
			d.off = start
			d.fail("chain length", "chain length %d, want 1", cl)
		}
	} else {
		op.Coordinator = d.stream("coordinator state", "")
	}
	start := d.off
	n := d.i32("subtask count", "")
	if d.err != nil {
		return op
	}
	if n == -1 && version >= 3 {
		op.Finished = true
		return op
	}
	d.off = start
	cnt := d.count("subtask count", "", 4)
	for i := 0; i < cnt && d.err == nil; i++ {
		op.SubtaskStates = append(op.SubtaskStates, d.subtask(version))
	}
	op.Subtasks = len(op.SubtaskStates)
	return op
}

func (d *decoder) subtask(version int) SubtaskState {
	var st SubtaskState
	st.Index = d.i32("subtask index", "")
	if d.err != nil {
		return st
	}
	if version >= 3 && st.Index < 0 {
		st.Finished = true
		st.Index = -st.Index - 1
		return st
	}
	if version == 2 {
		st.Duration = d.i64("subtask duration", "")
		start := d.off
		if n := d.i32("legacy state count", ""); d.err == nil && n != 0 {
			d.off = start
			d.fail("legacy state count", "legacy (Flink 1.1) state count %d, want 0", n)
			return st
		}
	}
	if d.i32("managed operator state flag", "") != 0 {
		st.ManagedOperator = d.operatorHandle("managed operator state", "")
	}
	if d.i32("raw operator state flag", "") != 0 {
		st.RawOperator = d.operatorHandle("raw operator state", "")
	}
	st.ManagedKeyed = d.keyed("managed keyed state", "")
	st.RawKeyed = d.keyed("raw keyed state", "")
	if version >= 3 {
		n := d.count("input channel state count", "", 1)
		for i := 0; i < n && d.err == nil; i++ {
			st.InputChannels = append(st.InputChannels, d.channel(version, "input channel state"))
		}
		n = d.count("result subpartition state count", "", 1)
		for i := 0; i < n && d.err == nil; i++ {
			st.ResultSubpartitions = append(st.ResultSubpartitions, d.channel(version, "result subpartition state"))
		}
	}
	if version >= 7 {
		switch m := d.u8("reference checkpoint id marker", ""); {
		case d.err != nil:
		case m == 1:
			id := d.i64("reference checkpoint id", "")
			st.RefCheckpointID = &id
		case m != 0:
			d.off--
			d.fail("reference checkpoint id marker", "marker %d, want 0 or 1", m)
		}
	}
	return st
}

// Java serialization markers of CheckpointProperties (Flink 1.16+). Scanning
// for the class and enum names is enough to tell checkpoints from savepoints;
// resumekit does not implement Java deserialization.
var (
	javaStreamMagic = []byte{0xAC, 0xED, 0x00, 0x05}
	savepointClass  = []byte("org.apache.flink.runtime.checkpoint.SavepointType")
	checkpointClass = []byte("org.apache.flink.runtime.checkpoint.CheckpointType")
	enumCanonical   = javaString("CANONICAL")
	enumNative      = javaString("NATIVE")
	enumTerminate   = javaString("TERMINATE")
	enumSuspend     = javaString("SUSPEND")
	enumNone        = javaString("NONE")
)

// javaString is a short string as ObjectOutputStream writes it (TC_STRING).
func javaString(s string) []byte {
	return append([]byte{0x74, 0, byte(len(s))}, s...)
}

func (d *decoder) properties(md *Checkpoint) {
	rest := d.buf[d.off:]
	walkJava(d)
	if d.err != nil {
		return
	}
	md.Properties = rest
	switch {
	case bytes.Contains(rest, savepointClass):
		md.Savepoint = true
		switch {
		case bytes.Contains(rest, enumCanonical):
			md.Format = FormatCanonical
		case bytes.Contains(rest, enumNative):
			md.Format = FormatNative
		}
		md.Drained = bytes.Contains(rest, enumTerminate)
		switch {
		case md.Drained:
			md.Action = ActionTerminate
		case bytes.Contains(rest, enumSuspend):
			md.Action = ActionSuspend
		case bytes.Contains(rest, enumNone):
			md.Action = ActionNone
		}
	case bytes.Contains(rest, checkpointClass):
	}
}
