package sourcestate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/opstate"
)

// DefaultMaxStreamSize is the default limit on a state stream read through
// Options.ReadStream and on one decoded element.
const DefaultMaxStreamSize = opstate.DefaultMaxStreamSize

// ErrNotRead is wrapped by a Source's Err when its state is in a file and no
// Options.ReadStream was given to read it. Check it with errors.Is.
var ErrNotRead = opstate.ErrNotRead

// Names of operator states of legacy SourceFunction sources.
const (
	legacyPaimonNext   = "next-snapshot"                 // Paimon MonitorFunction (≤ 0.9)
	legacyKafkaOffsets = "topic-partition-offset-states" // FlinkKafkaConsumer
	legacyDebezium     = "offset-states"                 // Flink CDC 1.x DebeziumSourceFunction
)

// Options configures [Decode] (a nil *Options means defaults): how state
// held outside _metadata is read (ReadStream), the limits on a stream and
// an element (MaxStreamSize) and on the bytes decoded out of a snapshot's
// compressed streams (MaxDecodedSize), and a Context that stops a decode.
type Options = opstate.Options

// Decode finds every source operator of cp — one whose operator state
// holds "SourceReaderState" (FLIP-27), a legacy source state Paimon's
// MonitorFunction, FlinkKafkaConsumer or Debezium wrote, or whose
// coordinator state is a recognised enumerator — and decodes its reader and
// enumerator state. A source that is not recognised is reported as
// KindUnknown with its split serializer version and a note; nothing is
// guessed.
//
// Decode returns every source it found. Sources whose state could not be
// read or decoded carry their own Err, and the returned error joins them
// (errors.Join); the others are complete either way.
func Decode(cp *metadata.Checkpoint, opts *Options) (*State, error) {
	st := &State{CheckpointID: cp.CheckpointID}
	var errs []error
	budget := opts.NewBudget()
	for i := range cp.Operators {
		if err := budget.Err(); err != nil {
			return st, errors.Join(append(errs, err)...)
		}
		src, ok := decodeOperator(&cp.Operators[i], opts, budget)
		if !ok {
			continue
		}
		if src.Err != nil {
			errs = append(errs, src.Err)
		}
		st.Sources = append(st.Sources, src)
	}
	return st, errors.Join(errs...)
}

// Source returns the source with operator id id, or nil.
func (s *State) Source(id string) *Source {
	for i := range s.Sources {
		if s.Sources[i].OperatorID == id {
			return &s.Sources[i]
		}
	}
	return nil
}

type operatorDecoder struct {
	opts   *Options
	budget *opstate.Budget
	src    *Source
	errs   []error
}

func (d *operatorDecoder) errorf(err error, format string, args ...any) {
	d.errs = append(d.errs, fmt.Errorf("sourcestate: operator %s: %s: %w", d.src.OperatorID, fmt.Sprintf(format, args...), framing(err)))
}

func (d *operatorDecoder) stream(h *metadata.StreamHandle) ([]byte, error) {
	b, err := d.opts.Stream(h)
	if err != nil {
		return nil, err
	}
	if err := d.budget.Err(); err != nil {
		return nil, err
	}
	return b, nil
}

func decodeOperator(op *metadata.Operator, opts *Options, budget *opstate.Budget) (Source, bool) {
	src := Source{OperatorID: op.ID, Name: op.Name, UID: op.UID, SplitVersion: -1}
	d := &operatorDecoder{opts: opts, budget: budget, src: &src}
	var reader, legacyPaimon, legacyKafka bool
	var legacy []string
	for _, sub := range op.SubtaskStates {
		h := sub.ManagedOperator
		if h == nil {
			continue
		}
		var stream *opstate.Stream
		read := false
		load := func() bool {
			if read {
				return stream != nil
			}
			read = true
			b, err := d.stream(h.Stream)
			if err != nil {
				d.errorf(err, "subtask %d", sub.Index)
				return false
			}
			if len(b) == 0 {
				return false
			}
			offsets := make([][]int64, 0, len(h.States))
			for _, s := range h.States {
				offsets = append(offsets, s.Offsets)
			}
			st, err := opstate.Open(b, d.budget, offsets...)
			if err != nil {
				d.errorf(err, "subtask %d", sub.Index)
				return false
			}
			stream = st
			return true
		}
		for _, s := range h.States {
			switch s.Name {
			case ReaderStateName:
				reader = true
				if len(s.Offsets) == 0 || !load() {
					continue
				}
				splits, err := stream.Elements(ReaderStateName, "split", s.Offsets, sub.Index)
				src.Splits = append(src.Splits, splits...)
				if err != nil {
					d.errorf(err, "subtask %d", sub.Index)
				}
			case legacyPaimonNext:
				legacyPaimon = true
				if len(s.Offsets) == 0 || !load() {
					continue
				}
				if err := opstate.CheckOffsets(s.Name, s.Offsets, sub.Index); err != nil {
					d.errorf(err, "subtask %d", sub.Index)
					continue
				}
				for i, off := range s.Offsets {
					b, err := stream.At(off, 8, fmt.Sprintf("%q element %d of subtask %d", s.Name, i, sub.Index))
					if err != nil {
						d.errorf(err, "subtask %d", sub.Index)
						break
					}
					if src.Paimon == nil {
						src.Paimon = &PaimonState{}
					}
					n := int64(binary.BigEndian.Uint64(b))
					if n > maxID {
						d.errorf(fmt.Errorf("next snapshot %d is above 2^62", n), "%q element %d of subtask %d", s.Name, i, sub.Index)
						break
					}
					src.Paimon.LegacyNextSnapshots = append(src.Paimon.LegacyNextSnapshots, n)
				}
			case legacyKafkaOffsets:
				legacyKafka = true
				if len(s.Offsets) == 0 || !load() {
					continue
				}
				if err := opstate.CheckOffsets(s.Name, s.Offsets, sub.Index); err != nil {
					d.errorf(err, "subtask %d", sub.Index)
					continue
				}
				for i, off := range s.Offsets {
					next := int64(0)
					if i+1 < len(s.Offsets) {
						next = s.Offsets[i+1]
					}
					split, err := legacyKafkaElement(stream.At, off, next, sub.Index, fmt.Sprintf("%q element %d of subtask %d", s.Name, i, sub.Index))
					if err != nil {
						d.errorf(err, "subtask %d", sub.Index)
						break
					}
					if src.Kafka == nil {
						src.Kafka = &KafkaState{}
					}
					src.Kafka.Splits = append(src.Kafka.Splits, split)
				}
			case legacyDebezium:
				legacy = appendOnce(legacy, "legacy DebeziumSourceFunction state \"offset-states\" (Flink CDC 1.x; not decoded)")
			}
		}
	}
	var coordErr error
	if op.Coordinator != nil {
		b, err := d.stream(op.Coordinator)
		switch {
		case err != nil:
			coordErr = err
		default:
			src.Coordinator, coordErr = parseCoordinator(b)
		}
	}
	if !reader && !legacyPaimon && !legacyKafka && len(legacy) == 0 {
		// Not a source unless the coordinator state is a known enumerator.
		if src.Coordinator == nil || src.Coordinator.Version == 0 && len(src.Coordinator.Data) == 0 {
			return src, false
		}
		if kinds := enumeratorKinds(src.Coordinator); len(kinds) != 1 {
			return src, false
		}
		src.Notes = append(src.Notes, "no reader state (every subtask finished, or none recorded): positions from the enumerator only")
	}
	if coordErr != nil && (reader || legacyPaimon || legacyKafka) {
		d.errorf(coordErr, "coordinator state")
	}
	src.Notes = append(src.Notes, legacy...)
	if len(src.Splits) > 0 {
		src.SplitVersion = src.Splits[0].Version
	}
	switch {
	case legacyPaimon:
		src.Kind = KindPaimon
		if src.Paimon == nil {
			// An empty "next-snapshot" state: nothing planned yet, which
			// Position says; a Paimon source always has its state.
			src.Paimon = &PaimonState{}
		}
		src.Notes = append(src.Notes, "legacy Paimon MonitorFunction (SourceFunction, Paimon 0.9 and older)")
	case legacyKafka && !reader && !legacyPaimon:
		src.Kind = KindKafka
		if src.Kafka == nil {
			src.Kafka = &KafkaState{}
		}
		src.Notes = append(src.Notes, "legacy FlinkKafkaConsumer (SourceFunction; removed in Flink 2.0 and connector 4.0): its \"topic-partition-offset-states\" record the last offset read per partition, so each split starts at the next one")
	case len(legacy) > 0 && !reader:
		src.Kind = KindUnknown
	default:
		classify(d)
	}
	src.Err = errors.Join(d.errs...)
	return src, true
}

func appendOnce(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// isNoOpEnumerator reports the enumerator state of sources without one
// (NoOpEnumStateSerializer: version 0, no bytes): Paimon's MonitorSource,
// Flink's test ValuesSource.
func isNoOpEnumerator(c *Coordinator) bool { return c != nil && c.Version == 0 && len(c.Data) == 0 }

// enumeratorKinds lists the kinds whose enumerator serializer decodes c
// exactly.
func enumeratorKinds(c *Coordinator) []Kind {
	var out []Kind
	if c == nil || isNoOpEnumerator(c) {
		return nil
	}
	if _, err := parseKafkaEnumerator(c.Version, c.Data); err == nil {
		out = append(out, KindKafka)
	}
	if _, err := parsePaimonEnumerator(c.Version, c.Data); err == nil {
		out = append(out, KindPaimon)
	}
	if _, err := parseMySQLEnumerator(c.Version, c.Data); err == nil {
		out = append(out, KindMySQLCDC)
	}
	return out
}

// splitKind tries the split serializers that exist at s.Version and
// returns the one kind that decodes s exactly (KindUnknown otherwise) with
// why.
func splitKind(s RawSplit) (Kind, string) {
	var kinds []Kind
	var why []string
	// Only the serializers that have s.Version are tried (a failed parse
	// costs an error value).
	if s.Version == KafkaSplitVersion {
		if _, err := parseKafkaSplit(s.Version, s.Data); err == nil {
			kinds = append(kinds, KindKafka)
		} else {
			why = append(why, err.Error())
		}
		if _, err := parseMonitorSplit(s.Version, s.Data); err == nil {
			kinds = append(kinds, KindPaimon)
		}
	}
	if s.Version == PaimonSplitVersion && looksJava(s.Data) {
		if _, err := parsePaimonSplit(s.Version, s.Data); err == nil {
			kinds = append(kinds, KindPaimon)
		} else {
			why = append(why, err.Error())
		}
	}
	if s.Version >= 1 && s.Version <= maxMySQLSplitVersion && !looksJava(s.Data) {
		if _, err := parseMySQLSplit(s.Version, s.Data); err == nil {
			kinds = append(kinds, KindMySQLCDC)
		}
	}
	if s.Version >= minBaseSplitVersion && s.Version <= maxBaseSplitVersion && !looksJava(s.Data) {
		if _, err := parsePostgresSplit(s.Version, s.Data); err == nil {
			kinds = append(kinds, KindPostgresCDC)
		}
	}
	kinds = slices.Compact(kinds)
	if len(kinds) == 1 {
		return kinds[0], ""
	}
	if len(kinds) > 1 {
		return KindUnknown, fmt.Sprintf("split of serializer version %d decodes as %v: ambiguous", s.Version, kinds)
	}
	msg := fmt.Sprintf("split of serializer version %d is no KafkaSource, Paimon, MySQL CDC or Postgres CDC split", s.Version)
	if len(why) > 0 {
		msg += " (" + why[0] + ")"
	}
	return KindUnknown, msg
}

// looksJava reports a UTF string followed by the Java serialization magic.
func looksJava(b []byte) bool {
	if len(b) < 2 {
		return false
	}
	n := int(binary.BigEndian.Uint16(b))
	return len(b) >= 2+n+2 && b[2+n] == 0xAC && b[2+n+1] == 0xED
}

// classify sets the source's kind from its reader splits, or from its
// enumerator when it has none, and decodes both for that kind.
func classify(d *operatorDecoder) {
	src := d.src
	kind := Kind("")
	for i, s := range src.Splits {
		k, why := splitKind(s)
		switch {
		case k == KindUnknown:
			src.Kind = KindUnknown
			src.Notes = append(src.Notes, fmt.Sprintf("subtask %d: %s", s.Subtask, why))
			return
		case kind == "":
			kind = k
		case kind != k:
			src.Kind = KindUnknown
			src.Notes = append(src.Notes, fmt.Sprintf("split %d is a %s split but split 0 a %s split", i, k, kind))
			return
		}
	}
	co := src.Coordinator
	if kind == "" {
		kinds := enumeratorKinds(co)
		switch len(kinds) {
		case 1:
			kind = kinds[0]
		case 0:
			src.Kind = KindUnknown
			switch {
			case co == nil:
				src.Notes = append(src.Notes, "no splits in the reader state and no coordinator state")
			case isNoOpEnumerator(co):
				src.Notes = append(src.Notes, "no splits in the reader state and an empty enumerator state (a source without an enumerator, e.g. Paimon's MonitorSource before its first snapshot, or a test source)")
			default:
				src.Notes = append(src.Notes, fmt.Sprintf("no splits in the reader state; the enumerator state (serializer version %d, %d bytes) is no KafkaSource, Paimon or MySQL CDC enumerator's", co.Version, len(co.Data)))
			}
			return
		default:
			src.Kind = KindUnknown
			src.Notes = append(src.Notes, fmt.Sprintf("no splits in the reader state; the enumerator state (serializer version %d) decodes as %v: ambiguous", co.Version, kinds))
			return
		}
	}
	src.Kind = kind
	enumErr := func(err error) {
		d.errorf(err, "enumerator state")
	}
	switch kind {
	case KindKafka:
		ks := &KafkaState{}
		for _, s := range src.Splits {
			sp, _ := parseKafkaSplit(s.Version, s.Data)
			sp.Subtask = s.Subtask
			ks.Splits = append(ks.Splits, sp)
		}
		if co != nil {
			e, err := parseKafkaEnumerator(co.Version, co.Data)
			if err != nil {
				enumErr(err)
			}
			ks.Enumerator = e
		}
		src.Kafka = ks
	case KindPaimon:
		ps := &PaimonState{}
		for _, s := range src.Splits {
			if m, err := parseMonitorSplit(s.Version, s.Data); err == nil {
				m.Subtask = s.Subtask
				ps.Monitor = append(ps.Monitor, m)
				continue
			}
			sp, _ := parsePaimonSplit(s.Version, s.Data)
			sp.Subtask = s.Subtask
			ps.Splits = append(ps.Splits, sp)
		}
		if len(ps.Monitor) > 0 && len(ps.Splits) > 0 {
			src.Kind = KindUnknown
			src.Notes = append(src.Notes, "reader state mixes MonitorSource and FileStoreSource splits")
			return
		}
		if co != nil && !isNoOpEnumerator(co) {
			e, err := parsePaimonEnumerator(co.Version, co.Data)
			if err != nil {
				enumErr(err)
			}
			ps.Enumerator = e
		}
		src.Paimon = ps
	case KindMySQLCDC:
		ms := &MySQLState{}
		for _, s := range src.Splits {
			sp, _ := parseMySQLSplit(s.Version, s.Data)
			sp.Subtask = s.Subtask
			ms.Splits = append(ms.Splits, sp)
		}
		if co != nil {
			e, err := parseMySQLEnumerator(co.Version, co.Data)
			if err != nil {
				enumErr(err)
			}
			ms.Enumerator = e
		}
		src.MySQL = ms
	case KindPostgresCDC:
		ps := &PostgresState{}
		for _, s := range src.Splits {
			sp, _ := parsePostgresSplit(s.Version, s.Data)
			sp.Subtask = s.Subtask
			ps.Splits = append(ps.Splits, sp)
		}
		if co != nil {
			e, err := parsePostgresEnumerator(co.Version, co.Data)
			if err != nil {
				enumErr(err)
			}
			ps.Enumerator = e
		}
		src.Postgres = ps
	}
}
