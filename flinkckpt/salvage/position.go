package salvage

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/internal/specificoffsets"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

// KindSalvage is the Kind of a [Position].
const KindSalvage = "flink-salvage"

// Position is a stateless start of every source of a job exactly where a
// Flink checkpoint or savepoint had them: one composite position for all
// of the job's sources. Its JSON is part of the resumekit.decision/v1
// document.
type Position struct {
	// Snapshot is the salvaged snapshot's Flink path ("" when unknown),
	// SnapshotKey its dir's key in the bucket.
	Snapshot     string `json:"snapshot"`
	SnapshotKey  string `json:"snapshot_key"`
	CheckpointID int64  `json:"checkpoint_id"`
	// Sources has one entry per source operator, in _metadata order.
	Sources []Source `json:"sources"`
	// Sinks are the Sink V2 committers that held prepared transactions
	// (committables) a start at this position never commits; absent when
	// none did.
	Sinks []SinkPending `json:"sinks,omitempty"`
}

// Source is the start of one source operator. Its JSON holds operator_id,
// uid, kind and positions — KafkaStart, PaimonStart or MySQLStart values,
// by kind — and the connector options that start it there.
type Source struct {
	OperatorID string
	UID        string
	// Kind is sourcestate.KindKafka, KindPaimon, KindMySQLCDC or
	// KindPostgresCDC.
	Kind   sourcestate.Kind
	Kafka  []KafkaStart
	Paimon *PaimonStart
	MySQL  *MySQLStart
	// Postgres is a Flink CDC Postgres source's start.
	Postgres *PostgresStart
	// Options are the connector options (SQL hints) that start the source
	// there; empty when no option can (several Kafka topics: the candidate
	// is graded data loss, and its salvage.several-topics warning gives the
	// DataStream form and each topic's specific offsets).
	Options map[string]string
	// Checked says the position was checked against the live system.
	Checked bool
}

// KafkaStart is where one Kafka partition starts.
type KafkaStart struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// Offset is the start offset; for an unresolved marker, the marker's
	// value (-2 earliest, -1 latest, -3 committed).
	Offset int64 `json:"offset"`
	// Marker is the snapshot's marker when the old job had not started
	// the partition; Offset is then resolved from the live log when it
	// could be.
	Marker sourcestate.Marker `json:"marker,omitempty"`
	// Resolved reports a marker resolved to Offset from the live log.
	Resolved bool `json:"resolved,omitempty"`
	// LogStart and LogEnd are the live log's offsets when checked.
	LogStart *int64 `json:"log_start,omitempty"`
	LogEnd   *int64 `json:"log_end,omitempty"`
	// Lost counts the records below the log start that the old job had
	// not read; for a resolved earliest marker, the offsets below the log
	// start (0..LogStart-1), which it may never have read.
	Lost int64 `json:"lost,omitempty"`
}

// PaimonStart is where a Paimon source starts.
type PaimonStart struct {
	NextSnapshot int64 `json:"next_snapshot"`
	// Table is the table's directory when the state names it.
	Table string `json:"table,omitempty"`
	// TableName is the table's SQL identifier: the checked table's, else
	// derived from Table; "" when neither names it.
	TableName string `json:"table_name,omitempty"`
	// Full: the start is inside the initial full read (from-snapshot-full).
	Full bool `json:"full,omitempty"`
	// Exact: every snapshot before NextSnapshot was read completely.
	Exact bool `json:"exact"`
	// Earliest and Latest are the live table's readable range when checked.
	Earliest *int64 `json:"earliest,omitempty"`
	Latest   *int64 `json:"latest,omitempty"`
	// Expired, when not 0, is the next snapshot the snapshot recorded when
	// it had expired: snapshots Expired..NextSnapshot-1 are never read
	// (NextSnapshot was moved up to the earliest readable id).
	Expired int64 `json:"expired,omitempty"`
	// ConsumerID and ResetConsumerSQL bind a consumer at NextSnapshot.
	ConsumerID       string `json:"consumer_id,omitempty"`
	ResetConsumerSQL string `json:"reset_consumer_sql,omitempty"`
}

// PostgresStart is where a Flink CDC Postgres source starts: the WAL
// position its stream split had ({"slot", "lsn", "tx_id", "ts_usec"}).
type PostgresStart struct {
	sourcestate.PostgresPosition
	// SnapshotPhase: the source had no WAL position (still reading the
	// initial snapshot); it starts with a new snapshot.
	SnapshotPhase bool `json:"snapshot_phase,omitempty"`
	// AdvanceSlotSQL moves the replication slot to the position, so that
	// scan.startup.mode=committed-offset starts there.
	AdvanceSlotSQL string `json:"advance_slot_sql,omitempty"`
}

// MySQLStart is where a MySQL CDC source starts.
type MySQLStart struct {
	sourcestate.MySQLPosition
	// SnapshotPhase: the source had no binlog position (still reading the
	// initial snapshot); it starts with a new snapshot.
	SnapshotPhase bool `json:"snapshot_phase,omitempty"`
}

type sourceJSON struct {
	OperatorID string            `json:"operator_id"`
	UID        string            `json:"uid,omitempty"`
	Kind       sourcestate.Kind  `json:"kind"`
	Positions  json.RawMessage   `json:"positions"`
	Options    map[string]string `json:"options"`
	Checked    bool              `json:"checked"`
}

// MarshalJSON encodes the source with its positions by kind.
func (s Source) MarshalJSON() ([]byte, error) {
	var positions any = []any{}
	switch {
	case s.Kafka != nil:
		positions = s.Kafka
	case s.Paimon != nil:
		positions = []PaimonStart{*s.Paimon}
	case s.MySQL != nil:
		positions = []MySQLStart{*s.MySQL}
	case s.Postgres != nil:
		positions = []PostgresStart{*s.Postgres}
	}
	p, err := json.Marshal(positions)
	if err != nil {
		return nil, err
	}
	opts := s.Options
	if opts == nil {
		opts = map[string]string{}
	}
	return json.Marshal(sourceJSON{OperatorID: s.OperatorID, UID: s.UID, Kind: s.Kind, Positions: p, Options: opts, Checked: s.Checked})
}

// UnmarshalJSON decodes what MarshalJSON wrote. Its errors say which source
// and what is wrong with it; PositionOf names the package and the position.
func (s *Source) UnmarshalJSON(b []byte) error {
	var j sourceJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	*s = Source{OperatorID: j.OperatorID, UID: j.UID, Kind: j.Kind, Options: j.Options, Checked: j.Checked}
	switch j.Kind {
	case sourcestate.KindKafka:
		s.Kafka = []KafkaStart{}
		if err := json.Unmarshal(j.Positions, &s.Kafka); err != nil {
			return fmt.Errorf("kafka source %s: positions: %w", j.OperatorID, err)
		}
	case sourcestate.KindPaimon:
		p, err := onePosition[PaimonStart](j)
		if err != nil {
			return err
		}
		s.Paimon = p
	case sourcestate.KindMySQLCDC:
		p, err := onePosition[MySQLStart](j)
		if err != nil {
			return err
		}
		s.MySQL = p
	case sourcestate.KindPostgresCDC:
		p, err := onePosition[PostgresStart](j)
		if err != nil {
			return err
		}
		s.Postgres = p
	default:
		return fmt.Errorf("source %s of kind %s", j.OperatorID, redact.Quote(string(j.Kind)))
	}
	return nil
}

// onePosition decodes the positions of a source that has exactly one.
func onePosition[T any](j sourceJSON) (*T, error) {
	var ps []T
	if err := json.Unmarshal(j.Positions, &ps); err != nil {
		return nil, fmt.Errorf("%s source %s: positions: %w", j.Kind, j.OperatorID, err)
	}
	if len(ps) != 1 {
		return nil, fmt.Errorf("%s source %s: %d positions, want one", j.Kind, j.OperatorID, len(ps))
	}
	return &ps[0], nil
}

var _ resume.Position = Position{}

// Kind returns "flink-salvage".
func (p Position) Kind() string { return KindSalvage }

// String describes the position in one line, e.g. "sources of savepoint
// …/savepoint-3c7c0a-07c49f841952 (checkpoint 1): kafka topic
// partition:0,offset:10;…", followed by each sink committer whose
// prepared transactions are lost ("; sink "Sink Committer: sink"
// (operator …): 2 prepared committable(s) never committed").
func (p Position) String() string {
	var parts []string
	for _, s := range p.Sources {
		parts = append(parts, s.String())
	}
	where := p.Snapshot
	if where == "" {
		where = p.SnapshotKey
	}
	out := fmt.Sprintf("sources of %s (checkpoint %d): %s", where, p.CheckpointID, strings.Join(parts, "; "))
	for _, s := range p.Sinks {
		switch {
		case s.Unknown != "":
			out += fmt.Sprintf("; sink %s: committer state not decoded, possibly lost", s.label())
		case s.Lost > 0:
			out += fmt.Sprintf("; sink %s: %d prepared committable(s) never committed", s.label(), s.Lost)
		}
	}
	return out
}

// String describes one source's start.
func (s Source) String() string {
	switch {
	case s.Kafka != nil:
		var b strings.Builder
		b.WriteString("kafka")
		topic := ""
		for i, k := range s.Kafka {
			if k.Topic != topic {
				topic = k.Topic
				b.WriteString(" " + topic + " ")
			} else if i > 0 {
				b.WriteByte(';')
			}
			if k.Marker != sourcestate.MarkerNone && !k.Resolved {
				fmt.Fprintf(&b, "partition:%d,%s", k.Partition, k.Marker)
			} else {
				b.WriteString(specificoffsets.Entry(k.Partition, k.Offset))
			}
		}
		return b.String()
	case s.Paimon != nil:
		return fmt.Sprintf("paimon snapshot %d", s.Paimon.NextSnapshot)
	case s.MySQL != nil:
		if s.MySQL.SnapshotPhase {
			return "mysql-cdc initial snapshot"
		}
		return fmt.Sprintf("mysql-cdc %s:%d", s.MySQL.File, s.MySQL.Pos)
	case s.Postgres != nil:
		if s.Postgres.SnapshotPhase {
			return "postgres-cdc initial snapshot"
		}
		return "postgres-cdc lsn " + s.Postgres.LSN
	}
	return string(s.Kind)
}

// Launch returns the connector options of the job's source: the one
// source's options, or the union of several sources' options when no key
// is set to two values (none otherwise: each source's options are in the
// position). A stateless start restores no snapshot: no -s argument.
func (p Position) Launch() resume.Launch {
	opts := map[string]string{}
	for _, s := range p.Sources {
		for k, v := range s.Options {
			if old, ok := opts[k]; ok && old != v {
				return resume.Launch{}
			}
			opts[k] = v
		}
	}
	if len(opts) == 0 {
		return resume.Launch{}
	}
	l := resume.Launch{Options: maps.Clone(opts)}
	if len(p.Sources) > 1 {
		for _, s := range p.Sources {
			if len(s.Options) > 0 {
				l.Sources = append(l.Sources, resume.SourceOptions{Table: s.table(), Options: maps.Clone(s.Options)})
			}
		}
		if len(l.Sources) < 2 {
			l.Sources = nil
		}
	}
	return l
}

// table names the source table a source's options belong to: its Kafka
// topic(s), its Paimon table, else its uid or operator id.
func (s Source) table() string {
	var topics []string
	for _, k := range s.Kafka {
		if len(topics) == 0 || topics[len(topics)-1] != k.Topic {
			topics = append(topics, k.Topic)
		}
	}
	switch {
	case len(topics) > 0:
		return strings.Join(topics, ",")
	case s.Paimon != nil && s.Paimon.Table != "":
		return s.Paimon.Table
	case s.UID != "":
		return s.UID
	}
	return string(s.Kind) + " " + s.OperatorID
}

// Facts returns what a start at the salvaged positions never reads: Kafka
// records the old job had not read below today's log start ("orders/1: 2
// records (offsets 52..53)", the log now starting at 54) and Paimon snapshots that expired; and what it never
// commits: a sink committer's prepared transactions (Sinks).
func (p Position) Facts() []resume.Fact {
	var out []resume.Fact
	for _, s := range p.Sources {
		for _, k := range s.Kafka {
			if k.Lost > 0 {
				// Offset is where the start moved to (today's log start):
				// the lost records are the Lost ones below it.
				from := k.Offset - k.Lost
				text := fmt.Sprintf("%s/%d: %d records (offsets %d..%d)", k.Topic, k.Partition, k.Lost, from, k.Offset-1)
				if k.Lost == 1 {
					text = fmt.Sprintf("%s/%d: 1 record (offset %d)", k.Topic, k.Partition, from)
				}
				out = append(out, resume.Fact{Label: resume.FactLoss, Text: text})
			}
		}
		if ps := s.Paimon; ps != nil && ps.Expired > 0 && ps.Expired < ps.NextSnapshot {
			out = append(out, resume.Fact{Label: resume.FactLoss, Text: fmt.Sprintf("%s: snapshots %d..%d expired before the job read them (the read starts at %d)",
				s.table(), ps.Expired, ps.NextSnapshot-1, ps.NextSnapshot)})
		}
	}
	for _, s := range p.Sinks {
		if s.Lost > 0 || s.Unknown != "" && !s.CommittedAsserted {
			out = append(out, resume.Fact{Label: resume.FactLoss, Text: s.text() + ": a stateless start never commits them"})
		}
	}
	return out
}

// MarshalJSON encodes the position with its arrays never null.
func (p Position) MarshalJSON() ([]byte, error) {
	type plain Position
	if p.Sources == nil {
		p.Sources = []Source{}
	}
	return json.Marshal(plain(p))
}

// PositionOf returns the position in p: a Position, a copy of a *Position,
// or a [*resume.RawPosition] of kind "flink-salvage" read back from a decision
// document, decoded. Any other position is an error.
func PositionOf(p resume.Position) (*Position, error) {
	out, err := resume.PositionAs[Position](p, KindSalvage)
	if err != nil {
		return nil, fmt.Errorf("salvage: %w", err)
	}
	if _, raw := p.(*resume.RawPosition); raw && out.Sources == nil {
		return nil, errors.New("salvage: decode position: no sources field")
	}
	return out, nil
}

var _ resume.InputStarter = Position{}

// InputStarts returns where the snapshot had each Kafka partition (before
// any move to the log start) and, when checked, the log start: every
// record below it is gone. Partitions at an unresolved marker are left
// out. A Paimon source whose table is named gives its next snapshot
// (before any move past expired ones), nothing claimed gone.
func (p Position) InputStarts() []resume.InputStart {
	var out []resume.InputStart
	for _, s := range p.Sources {
		for _, k := range s.Kafka {
			if k.Marker != sourcestate.MarkerNone && !k.Resolved {
				continue
			}
			in := resume.InputStart{Input: resume.KafkaInput(k.Topic, k.Partition), Offset: k.Offset - k.Lost, GoneBelow: -1}
			if k.LogStart != nil {
				in.GoneBelow = *k.LogStart
			}
			out = append(out, in)
		}
		if pm := s.Paimon; pm != nil && pm.TableName != "" {
			next := pm.NextSnapshot
			if pm.Expired != 0 {
				next = pm.Expired
			}
			out = append(out, resume.InputStart{Input: resume.PaimonInput(pm.TableName), Offset: next, GoneBelow: -1})
		}
	}
	return out
}
