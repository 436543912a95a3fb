package sinkstate_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/opstate"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
)

// These helpers write Paimon's committer state as paimon-flink 1.3 does:
// ManifestCommittableSerializer (version 4: identifier, watermark, log
// offsets, properties, commit messages), WrappedManifestCommittableSerializer
// (version 1) and the commit user as Flink's StringSerializer writes it.

// manifest is one ManifestCommittable.
type manifest struct {
	version    int32
	id         int64
	watermark  *int64
	offsets    map[int32]int64
	props      [][2]string
	msgVersion int32
	messages   [][]byte // each message's bytes, not interpreted
}

func (m manifest) bytes() []byte {
	b := be64(nil, m.id)
	if m.watermark == nil {
		b = append(b, 1)
	} else {
		b = append(b, 0)
		b = be64(b, *m.watermark)
	}
	b = be32(b, int32(len(m.offsets)))
	for k, v := range m.offsets {
		b = be32(b, k)
		b = be64(b, v)
	}
	if m.version == 4 {
		b = be32(b, int32(len(m.props)))
		for _, p := range m.props {
			b = javaUTF(b, p[0])
			b = javaUTF(b, p[1])
		}
	}
	b = be32(b, m.msgVersion)
	b = be32(b, int32(len(m.messages)))
	for _, msg := range m.messages {
		b = append(b, msg...)
	}
	return b
}

func javaUTF(b []byte, s string) []byte {
	b = append(b, byte(len(s)>>8), byte(len(s)))
	return append(b, s...)
}

// wrapped is a WrappedManifestCommittable of the tables' committables.
func wrapped(id, watermark int64, tables map[string]manifest) []byte {
	b := be64(nil, id)
	b = be64(b, watermark)
	b = be32(b, int32(len(tables)))
	for name, m := range tables {
		b = framed(b, []byte(name))
		b = framed(b, m.bytes())
	}
	return b
}

// stringValue is s as Flink's StringValue.writeString writes it.
func stringValue(s string) []byte {
	units := utf16.Encode([]rune(s))
	varint := func(b []byte, v uint32) []byte {
		for v >= 0x80 {
			b = append(b, byte(v)|0x80)
			v >>= 7
		}
		return append(b, byte(v))
	}
	b := varint(nil, uint32(len(units)+1))
	for _, u := range units {
		b = varint(b, uint32(u))
	}
	return b
}

// commitMessage is a plausible commit message's first bytes (an empty
// partition row, bucket, total buckets, then file metas): resumekit only
// counts messages.
var commitMessage = be32(be32(be32(nil, 0), 1), 2)

const paimonUser = "3b9c8f0e-7d1a-4c2b-9e5f-0a1b2c3d4e5f"

// paimonCommitter is Paimon's committer operator (uid-less in Paimon: the
// operator id is what the topology hashes) with the committables and the
// commit user.
func paimonCommitter(compressed, inFile bool, user []byte, committables ...[]byte) flinkckpttest.Source {
	var elems []flinkckpttest.ListElement
	for _, c := range committables {
		elems = append(elems, flinkckpttest.ListElement{Data: c})
	}
	states := []flinkckpttest.ListState{{Name: sinkstate.CommitterStateName, Elements: elems}}
	if user != nil {
		states = append(states, flinkckpttest.ListState{Name: sinkstate.CommitUserStateName, Elements: []flinkckpttest.ListElement{{Data: user}}})
	}
	return flinkckpttest.Source{UID: "Global Committer : sink", Parallelism: 1, ListStates: states, Compressed: compressed, InFile: inFile}
}

func decodePaimon(t *testing.T, src flinkckpttest.Source) *sinkstate.Committer {
	t.Helper()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	l := &flinkckpttest.Layout{Bucket: b, Root: "s3a://b/"}
	w, err := l.Checkpoint(context.Background(), "job", 7, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := b.ReadAll(context.Background(), w.Dir+"_metadata")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := metadata.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sinkstate.Decode(cp, &sinkstate.Options{ReadStream: func(h *metadata.StreamHandle) ([]byte, error) {
		return b.ReadAll(context.Background(), strings.TrimPrefix(h.Path, "s3a://b/"))
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Committers) != 1 {
		t.Fatalf("committers %+v", st.Committers)
	}
	return &st.Committers[0]
}

// TestPaimonCommitter: Paimon's committer state (two checkpoints' manifest
// committables and the commit user) is decoded, its identifiers are the
// pending checkpoints, in plain, Snappy-compressed and file-held state.
func TestPaimonCommitter(t *testing.T) {
	wm := int64(1_700_000_000_000)
	c4 := manifest{version: 4, id: 4, offsets: map[int32]int64{0: 12}, props: [][2]string{{"k", "v"}}, msgVersion: 10, messages: [][]byte{commitMessage, commitMessage}}
	c5 := manifest{version: 4, id: 5, watermark: &wm, msgVersion: 10, messages: [][]byte{commitMessage}}
	want := &sinkstate.PaimonCommitter{CommitUser: paimonUser, Committables: []sinkstate.PaimonCommittable{
		{Version: 4, Identifier: 4, LogOffsets: 1, Properties: 1, MessageVersion: 10, Messages: 2},
		{Version: 4, Identifier: 5, Watermark: wm, HasWatermark: true, MessageVersion: 10, Messages: 1},
	}}
	for _, tc := range []struct {
		name               string
		compressed, inFile bool
	}{{"inline", false, false}, {"snappy", true, true}, {"file", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			c := decodePaimon(t, paimonCommitter(tc.compressed, tc.inFile, stringValue(paimonUser), element(4, c4.bytes()), element(4, c5.bytes())))
			if c.Format != sinkstate.FormatPaimon || c.Err != nil || c.Elements != 2 || len(c.Notes) != 0 {
				t.Fatalf("committer %+v", c)
			}
			if d := cmp.Diff(want, c.Paimon); d != "" {
				t.Errorf("paimon (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]sinkstate.Pending{{CheckpointID: 4, Committables: 1}, {CheckpointID: 5, Committables: 1}}, c.Pending()); d != "" {
				t.Errorf("pending (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]int64{4, 5}, c.Paimon.Identifiers()); d != "" {
				t.Errorf("identifiers (-want +got):\n%s", d)
			}
		})
	}
}

// TestPaimonCommitterEmpty: a Paimon committer that held nothing (every
// checkpoint committed) still names its commit user, and pends nothing.
func TestPaimonCommitterEmpty(t *testing.T) {
	c := decodePaimon(t, paimonCommitter(false, false, stringValue(paimonUser)))
	if c.Format != sinkstate.FormatPaimon || c.Paimon == nil || c.Paimon.CommitUser != paimonUser || len(c.Pending()) != 0 || c.Err != nil {
		t.Fatalf("committer %+v paimon %+v", c, c.Paimon)
	}
}

// TestPaimonCommitterWithoutUserIsUnknown: without commit_user_state the
// operator is not known to be Paimon's, and its elements are not guessed
// at (as before).
func TestPaimonCommitterWithoutUserIsUnknown(t *testing.T) {
	c := decodePaimon(t, paimonCommitter(false, false, nil, element(4, manifest{version: 4, id: 4, msgVersion: 10}.bytes())))
	if c.Format != sinkstate.FormatUnknown || c.Paimon != nil || len(c.Notes) != 1 {
		t.Fatalf("committer %+v", c)
	}
}

// TestPaimonWrapped: a multi-table (CDC) sink's WrappedManifestCommittable
// names each table with its identifier.
func TestPaimonWrapped(t *testing.T) {
	data := wrapped(9, -1, map[string]manifest{"db.orders": {version: 4, id: 9, msgVersion: 10}})
	got, err := sinkstate.ParsePaimonCommittable(1, data)
	if err != nil {
		t.Fatal(err)
	}
	want := sinkstate.PaimonCommittable{Version: 1, Identifier: 9, Watermark: -1, HasWatermark: true,
		Tables: []sinkstate.PaimonTableCommittable{{Table: "db.orders", Identifier: 9}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestPaimonVersions: versions 2 and 3 have no properties; 4 does.
func TestPaimonVersions(t *testing.T) {
	for _, v := range []int32{2, 3, 4} {
		m := manifest{version: v, id: 3, msgVersion: 3, messages: [][]byte{commitMessage}}
		got, err := sinkstate.ParsePaimonCommittable(v, m.bytes())
		if err != nil || got.Identifier != 3 || got.Messages != 1 || got.Version != v {
			t.Errorf("version %d: %+v, %v", v, got, err)
		}
	}
}

// TestPaimonRejects: every malformed committable is an error naming the
// structure, the offset and the problem; never a panic or a guess.
func TestPaimonRejects(t *testing.T) {
	good := manifest{version: 4, id: 4, msgVersion: 10, messages: [][]byte{commitMessage}}.bytes()
	for _, tc := range []struct {
		name    string
		version int32
		data    []byte
		want    string
	}{
		{"version 5", 5, good, "version 5, want 2 to 4"},
		{"version 0", 0, good, "version 0, want 2 to 4"},
		{"truncated identifier", 4, good[:5], "identifier"},
		{"negative identifier", 4, be64(nil, -3), "identifier -3"},
		{"bad watermark flag", 4, append(be64(nil, 4), 7), "watermark is null"},
		{"log offsets too many", 4, be32(append(be64(nil, 4), 1), 1000), "log offsets: count 1000"},
		{"negative properties", 4, be32(be32(append(be64(nil, 4), 1), 0), -1), "properties: negative count -1"},
		{"message version 0", 4, be32(be32(be32(append(be64(nil, 4), 1), 0), 0), 0), "commit message serializer version 0"},
		{"messages beyond the bytes", 4, be32(be32(be32(be32(append(be64(nil, 4), 1), 0), 0), 10), 99), "commit messages: count 99"},
		{"trailing bytes without messages", 4, append(manifest{version: 4, id: 4, msgVersion: 10}.bytes(), 0), "1 trailing bytes"},
		{"wrapped short table committable", 1, framed(framed(be32(be64(be64(nil, 4), 0), 1), []byte("db.t")), []byte{1, 2}), "at least 8"},
		{"wrapped trailing", 1, append(wrapped(4, 0, nil), 9), "trailing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sinkstate.ParsePaimonCommittable(tc.version, tc.data)
			if !errors.Is(err, sinkstate.ErrMalformed) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "Paimon") {
				t.Fatalf("err %v, want ErrMalformed naming Paimon and %q", err, tc.want)
			}
		})
	}
}

// TestPaimonBadCommitUser: a commit user that is no StringValue, or two
// different users, is the committer's error, not a guess.
func TestPaimonBadCommitUser(t *testing.T) {
	for _, tc := range []struct {
		name string
		user []byte
		want string
	}{
		{"null", []byte{0}, "a null string"},
		{"unit above 16 bits", []byte{2, 0xff, 0xff, 0x7f}, "UTF-16 unit: varint above 65535"},
		{"beyond the stream", []byte{0x40}, "commit_user_state element of subtask 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := decodePaimonErr(t, paimonCommitter(false, false, tc.user))
			if c.Err == nil || !strings.Contains(c.Err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", c.Err, tc.want)
			}
		})
	}
}

func decodePaimonErr(t *testing.T, src flinkckpttest.Source) *sinkstate.Committer {
	t.Helper()
	md := &metadata.Checkpoint{Version: 4, CheckpointID: 5}
	op, _ := src.Operator(md.Version, nil)
	md.Operators = append(md.Operators, op)
	data, err := flinkckpttest.Encode(md)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := metadata.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sinkstate.Decode(cp, nil)
	if err == nil || len(st.Committers) != 1 {
		t.Fatalf("decode: %v, %+v", err, st)
	}
	return &st.Committers[0]
}

// TestStringValue: Flink's StringSerializer bytes decode to the string,
// with lengths and units of one to three varint bytes; a short input says
// how many more bytes it needs at least.
func TestStringValue(t *testing.T) {
	long := strings.Repeat("é", 200) + "😀"
	for _, s := range []string{"", "a", paimonUser, long} {
		b := stringValue(s)
		got, null, more, err := sinkstate.StringValue(append(b, 0xAA))
		if err != nil || null || more != 0 || got != s {
			t.Errorf("%q: %q %v %d %v", s, got, null, more, err)
		}
		for cut := 0; cut < len(b); cut++ {
			_, _, more, err := sinkstate.StringValue(b[:cut])
			if err != nil || more < 1 || cut+more > len(b) {
				t.Fatalf("%q cut at %d of %d: more %d, %v", s, cut, len(b), more, err)
			}
		}
	}
	if _, null, _, err := sinkstate.StringValue([]byte{0}); !null || err != nil {
		t.Errorf("null: %v %v", null, err)
	}
	if _, _, _, err := sinkstate.StringValue([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}); !errors.Is(err, sinkstate.ErrMalformed) {
		t.Errorf("huge length: %v", err)
	}
}

// TestReadStreamAtShort: the stream reader refuses to read past the end.
func TestReadStreamAtShort(t *testing.T) {
	stream := be32(nil, 6) // proxy version 6, uncompressed header follows
	s, err := opstate.Open(stream, nil, []int64{4})
	if err == nil {
		_, err = s.At(4, 1, "x")
	}
	if err == nil {
		t.Fatal("read past the end")
	}
}
