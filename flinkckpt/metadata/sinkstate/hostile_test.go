package sinkstate_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// Hostile collectors: each is an error wrapping ErrMalformed that names
// the structure and the problem, never a panic, never a count.
func TestHostileCollector(t *testing.T) {
	good := collectorV2(1, 1, checkpoint{id: 3, writerSubtasks: 2, writers: []writer{{subtask: 1, requests: []request{{committable: []byte("txn")}}, committables: 1}}})
	patch := func(off int, v ...byte) []byte {
		b := append([]byte(nil), good...)
		copy(b[off:], v)
		return b
	}
	for _, tc := range []struct {
		name    string
		version int32
		data    []byte
		want    string
	}{
		{"empty", 2, nil, "magic number: need 4 bytes, 0 left"},
		{"wrong magic", 2, patch(0, 0xca, 0xfe, 0xba, 0xbe), "magic number cafebabe, want b91f252c"},
		{"version 3", 3, good, "version 3, want 1 or 2"},
		{"version -1", -1, good, "version -1, want 1 or 2"},
		{"checkpoint serializer v7", 2, patch(4, 0, 0, 0, 7), "checkpoint serializer version 7, want 0 or 1"},
		{"2^31-1 checkpoints", 2, patch(8, 0x7f, 0xff, 0xff, 0xff), "checkpoints: count 2147483647 needs at least"},
		{"negative checkpoints", 2, patch(8, 0xff, 0xff, 0xff, 0xfe), "checkpoints: negative count -2"},
		{"checkpoint length past the end", 2, patch(12, 0, 0, 0x10, 0), "checkpoint: count 4096 needs at least"},
		{"negative checkpoint id", 2, patch(16, 0xff), "checkpoint id -"},
		{"checkpoint id above 2^62", 2, patch(16, 0x50), "want 0 to 2^62"},
		{"negative writer subtasks", 2, patch(24, 0xff, 0xff, 0xff, 0xff), "number of writer subtasks -1"},
		{"subtask serializer v3", 2, patch(28, 0, 0, 0, 3), "subtask serializer version 3, want 0 to 2"},
		{"request serializer v1", 2, patch(44, 0, 0, 0, 1), "request serializer version 1, want 0"},
		{"request state 9", 2, patch(len(good)-16, 0, 0, 0, 9), "request state 9, want 0 to 3"},
		{"trailing bytes", 2, append(append([]byte(nil), good...), 0), "1 trailing bytes"},
		{"v1 huge committable count", 1, append(collectorV1()[:8], 0x7f, 0, 0, 0), "committables: count 2130706432 needs at least"},
		{"v1 trailing bytes", 1, append(collectorV1([]byte("x")), 1, 2), "2 trailing bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sinkstate.ParseCollector(tc.version, tc.data)
			var fe *sinkstate.FormatError
			if !errors.Is(err, sinkstate.ErrMalformed) || !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(fe.What, "CommittableCollector") {
				t.Errorf("err %v, want ErrMalformed with %q", err, tc.want)
			}
		})
	}
	if _, err := sinkstate.ParseCollector(2, good); err != nil {
		t.Fatalf("the unpatched collector: %v", err)
	}
	// Every truncation of a valid collector is an error, never a panic.
	for n := range len(good) {
		if _, err := sinkstate.ParseCollector(2, good[:n]); !errors.Is(err, sinkstate.ErrMalformed) {
			t.Fatalf("%d of %d bytes: err %v", n, len(good), err)
		}
	}
}

// Hostile operator state around the collectors: a framing that does not
// fit, state in a file not read, a connector's own format. Each committer
// is returned with its Err (or its note), the others decoded.
func TestHostileDecode(t *testing.T) {
	committer := func(uid string, elems ...[]byte) flinkckpttest.Source {
		var list []flinkckpttest.ListElement
		for i, e := range elems {
			list = append(list, flinkckpttest.ListElement{Subtask: int32(i), Data: e})
		}
		return flinkckpttest.Source{UID: uid, Parallelism: max(len(elems), 1), ListStates: []flinkckpttest.ListState{{Name: sinkstate.CommitterStateName, Elements: list}}}
	}
	pending := element(2, collectorV2(1, 1, checkpoint{id: 4, writers: []writer{{requests: []request{{committable: []byte("t")}}, committables: 1}}}))
	md := &metadata.Checkpoint{Version: 4, CheckpointID: 4}
	for _, s := range []flinkckpttest.Source{
		committer("good", pending, element(2, collectorV2(1, 1))),
		committer("bad length", []byte{0, 0, 0, 12, 0, 0, 0, 2, 0, 0, 0, 99, 1, 2, 3, 4}),
		committer("paimon", element(3, []byte("a manifest committable"))),
		committer("empty"),
	} {
		op, _ := s.Operator(md.Version, nil)
		md.Operators = append(md.Operators, op)
	}
	data, err := flinkckpttest.Encode(md)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := metadata.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sinkstate.Decode(cp, nil)
	if !errors.Is(err, sinkstate.ErrMalformed) || !strings.Contains(err.Error(), "not SimpleVersionedSerialization framing") {
		t.Errorf("err %v", err)
	}
	if len(st.Committers) != 4 {
		t.Fatalf("committers %+v", st.Committers)
	}
	good, bad, paimon, empty := st.Committers[0], st.Committers[1], st.Committers[2], st.Committers[3]
	if good.Err != nil || good.Format != sinkstate.FormatCollector || good.PendingCommittables() != 1 {
		t.Errorf("good %+v", good)
	}
	if bad.Err == nil || !strings.Contains(bad.Err.Error(), "committer "+bad.OperatorID+": subtask 0") {
		t.Errorf("bad %+v", bad)
	}
	if paimon.Err != nil || paimon.Format != sinkstate.FormatUnknown || paimon.Elements != 1 || len(paimon.Notes) != 1 || !strings.Contains(paimon.Notes[0], "no CommittableCollector") {
		t.Errorf("paimon %+v", paimon)
	}
	if empty.Err != nil || empty.Format != "" || empty.Elements != 0 {
		t.Errorf("empty %+v", empty)
	}
	if st.Committer(good.OperatorID) == nil || st.Committer("00000000000000000000000000000000") != nil {
		t.Errorf("Committer lookup")
	}

	// State in a file, without ReadStream: ErrNotRead, naming the file.
	l := md.Operators[0]
	l.SubtaskStates = append([]metadata.SubtaskState(nil), l.SubtaskStates...)
	h := *l.SubtaskStates[0].ManagedOperator
	h.Stream = &metadata.StreamHandle{Type: metadata.TypeRelativeFile, Path: "committer-state"}
	l.SubtaskStates[0].ManagedOperator = &h
	st, err = sinkstate.Decode(&metadata.Checkpoint{Version: 4, Operators: []metadata.Operator{l}}, nil)
	if !errors.Is(err, sourcestate.ErrNotRead) || !strings.Contains(err.Error(), "committer-state") || len(st.Committers) != 1 {
		t.Errorf("not read: %v", err)
	}
	// A file over MaxStreamSize: ErrTooLarge.
	_, err = sinkstate.Decode(&metadata.Checkpoint{Version: 4, Operators: []metadata.Operator{l}}, &sinkstate.Options{
		MaxStreamSize: 8, ReadStream: func(*metadata.StreamHandle) ([]byte, error) { return make([]byte, 9), nil }})
	if !errors.Is(err, sourcestate.ErrTooLarge) {
		t.Errorf("too large: %v", err)
	}
}
