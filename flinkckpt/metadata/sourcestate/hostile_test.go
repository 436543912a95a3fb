package sourcestate_test

import (
	"errors"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// Bad input is an error naming what was read and where — never a panic,
// never a silently wrong position.
func TestHostileInput(t *testing.T) {
	kafka := flinkckpttest.KafkaSplit(sourcestate.KafkaSplit{Topic: "orders", Partition: 1, StartingOffset: 5, StoppingOffset: sourcestate.OffsetNone})
	stream, offs := flinkckpttest.ReaderStateStream([]sourcestate.RawSplit{kafka}, false)
	snappy, soffs := flinkckpttest.ReaderStateStream([]sourcestate.RawSplit{kafka}, true)
	mut := func(b []byte, i int, v byte) []byte { c := append([]byte(nil), b...); c[i] = v; return c }

	for _, tc := range []struct {
		name string
		run  func() error
		want error
	}{
		{"proxy version 7", func() error { _, err := sourcestate.ReadSplits(mut(stream, 3, 7), offs, 0, 0); return err }, sourcestate.ErrMalformed},
		{"offset past the stream", func() error { _, err := sourcestate.ReadSplits(stream, []int64{int64(len(stream))}, 0, 0); return err }, sourcestate.ErrMalformed},
		{"negative offset", func() error { _, err := sourcestate.ReadSplits(stream, []int64{-8}, 0, 0); return err }, sourcestate.ErrMalformed},
		{"element length beyond the stream", func() error {
			_, err := sourcestate.ReadSplits(mut(stream, int(offs[0]), 0x7f), offs, 0, 0)
			return err
		}, sourcestate.ErrTooLarge},
		{"split length not L-8", func() error {
			_, err := sourcestate.ReadSplits(mut(stream, int(offs[0])+11, 9), offs, 0, 0)
			return err
		}, sourcestate.ErrMalformed},
		{"snappy chunk truncated", func() error { _, err := sourcestate.ReadSplits(snappy[:len(snappy)-3], soffs, 0, 0); return err }, sourcestate.ErrMalformed},
		{"snappy checksum", func() error {
			_, err := sourcestate.ReadSplits(mut(snappy, len(snappy)-1, snappy[len(snappy)-1]^1), soffs, 0, 0)
			return err
		}, sourcestate.ErrMalformed},
		{"snappy reserved chunk type", func() error {
			_, err := sourcestate.ReadSplits(mut(snappy, int(soffs[0]), 0x02), soffs, 0, 0)
			return err
		}, sourcestate.ErrMalformed},
		{"element over the limit", func() error { _, err := sourcestate.ReadSplits(stream, offs, 0, 16); return err }, sourcestate.ErrTooLarge},
		{"kafka split version 1", func() error { _, err := sourcestate.ParseKafkaSplit(1, kafka.Data); return err }, sourcestate.ErrMalformed},
		{"kafka split trailing byte", func() error { _, err := sourcestate.ParseKafkaSplit(0, append(kafka.Data, 0)); return err }, sourcestate.ErrMalformed},
		{"kafka topic not a topic", func() error { _, err := sourcestate.ParseKafkaSplit(0, mut(kafka.Data, 2, '/')); return err }, sourcestate.ErrMalformed},
		{"kafka offset below the markers", func() error { _, err := sourcestate.ParseKafkaSplit(0, mut(kafka.Data, 12, 0xf0)); return err }, sourcestate.ErrMalformed},
		{"kafka enumerator v4", func() error { _, err := sourcestate.ParseKafkaEnumerator(4, []byte{0, 0, 0, 0}); return err }, sourcestate.ErrMalformed},
		{"kafka enumerator count beyond the bytes", func() error {
			_, err := sourcestate.ParseKafkaEnumerator(1, []byte{0x7f, 0xff, 0xff, 0xff})
			return err
		}, sourcestate.ErrMalformed},
		{"coordinator serde 2", func() error {
			_, err := sourcestate.ParseCoordinator([]byte{0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0})
			return err
		}, sourcestate.ErrMalformed},
		{"coordinator v1 trailing bytes", func() error {
			_, err := sourcestate.ParseCoordinator([]byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 9})
			return err
		}, sourcestate.ErrMalformed},
		{"paimon split of another class", func() error {
			raw, _ := flinkckpttest.PaimonSplit(sourcestate.PaimonSplit{ID: "x", Snapshot: 3})
			i := len("x") + 2 + 6 + 2 + len("org.apache.paimon.table.source.") // first letter of DataSplit
			_, err := sourcestate.ParsePaimonSplit(1, mut(raw.Data, i, 'E'))
			return err
		}, sourcestate.ErrMalformed},
		{"monitor value not a snapshot", func() error {
			raw := flinkckpttest.MonitorSplit(sourcestate.MonitorSplit{ID: "m", Kind: sourcestate.MonitorCheckpoint, NextSnapshot: 4})
			_, err := sourcestate.ParseMonitorSplit(0, mut(raw.Data, len(raw.Data)-1, 'x'))
			return err
		}, sourcestate.ErrMalformed},
		{"mysql split kind 3", func() error {
			raw, _ := flinkckpttest.MySQLSplit(4, sourcestate.MySQLSplit{Binlog: true, Start: &sourcestate.BinlogOffset{File: "f", Pos: 1}})
			_, err := sourcestate.ParseMySQLSplit(4, mut(raw.Data, 3, 3))
			return err
		}, sourcestate.ErrMalformed},
		{"mysql offset kind unknown", func() error {
			raw, _ := flinkckpttest.MySQLSplit(4, sourcestate.MySQLSplit{Binlog: true, Start: &sourcestate.BinlogOffset{File: "f", Pos: 1, Kind: "SOMEDAY"}})
			_, err := sourcestate.ParseMySQLSplit(4, raw.Data)
			return err
		}, sourcestate.ErrMalformed},
		{"mysql split v5", func() error { _, err := sourcestate.ParseMySQLSplit(5, []byte{0, 0, 0, 2}); return err }, sourcestate.ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			var fe *sourcestate.FormatError
			if errors.Is(err, sourcestate.ErrMalformed) && (!errors.As(err, &fe) || fe.What == "") {
				t.Errorf("not a FormatError naming what was read: %v", err)
			}
		})
	}
}

// A stream handed over by ReadStream larger than the limit is refused.
func TestStreamOverLimit(t *testing.T) {
	src := flinkckpttest.KafkaSource("k", "t", 1)
	src.InFile = true
	op, files := src.Operator(4, nil)
	md := &metadata.Checkpoint{Version: 4, Operators: []metadata.Operator{op}}
	_, err := sourcestate.Decode(md, &sourcestate.Options{MaxStreamSize: 8, ReadStream: func(*metadata.StreamHandle) ([]byte, error) { return files[0].Data, nil }})
	if !errors.Is(err, sourcestate.ErrTooLarge) {
		t.Errorf("err %v, want ErrTooLarge", err)
	}
}
