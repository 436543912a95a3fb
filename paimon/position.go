package paimon

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/resumekit/resumekit/resume"
)

// KindSnapshot is the Kind of a paimon Position.
const KindSnapshot = "paimon-snapshot"

// PositionKind is the old name of KindSnapshot.
//
// Deprecated: use KindSnapshot, named like every package's Kind constants.
const PositionKind = KindSnapshot

// Position is where a streaming read of a Paimon table starts: a consumer
// id and the snapshot it reads next. Its JSON is part of the
// resumekit.decision/v1 document.
type Position struct {
	// Table is the table's location; TableName its SQL identifier.
	Table     string `json:"table"`
	TableName string `json:"table_name"`
	Branch    string `json:"branch"`
	// ConsumerID is the consumer-id the job must use.
	ConsumerID string `json:"consumer_id"`
	// NextSnapshot is where the job really starts reading (a consumer's
	// nextSnapshot moved up to the earliest readable id when it expired).
	NextSnapshot int64 `json:"next_snapshot"`
	// ConsumerNextSnapshot is the nextSnapshot recorded in the consumer
	// file; 0 when there is none.
	ConsumerNextSnapshot int64 `json:"consumer_next_snapshot,omitempty"`
	// ConsumerFile says whether the consumer file exists; without it the
	// launch carries scan.snapshot-id (or the consumer is bound first with
	// ResetConsumer).
	ConsumerFile bool `json:"consumer_file"`
	// Earliest and Latest are the snapshot ids the table held.
	Earliest int64 `json:"earliest"`
	Latest   int64 `json:"latest"`
	// EarliestChangelog is the earliest long-lived changelog id, 0 when
	// changelogs are not decoupled or were not looked at.
	EarliestChangelog int64 `json:"earliest_changelog,omitempty"`
	// Mode is the consumer.mode the job runs with.
	Mode string `json:"mode"`
	// IgnoreProgress mirrors consumer.ignore-progress: when true the consumer
	// file does not set the start, so the launch pins scan.snapshot-id.
	IgnoreProgress bool `json:"ignore_progress,omitempty"`
	// SQLHint is the ready OPTIONS hint for the source table.
	SQLHint string `json:"sql_hint"`
	// ResetConsumerSQL binds the consumer up front with the Flink procedure.
	ResetConsumerSQL string `json:"reset_consumer_sql"`
}

var _ resume.Position = Position{}

// Kind returns "paimon-snapshot".
func (p Position) Kind() string { return KindSnapshot }

// String describes the position in one line.
func (p Position) String() string {
	name := p.TableName
	if p.Branch != "" && p.Branch != "main" {
		name += "$branch_" + p.Branch
	}
	s := fmt.Sprintf("snapshot %d of %s for consumer %s", p.NextSnapshot, name, p.ConsumerID)
	if !p.ConsumerFile {
		s += " (no consumer file yet)"
	}
	return s
}

// Launch returns the source options: consumer-id, plus scan.snapshot-id when
// the consumer file does not set the start, plus consumer.mode in
// at-least-once mode.
func (p Position) Launch() resume.Launch {
	return resume.Launch{Options: p.options()}
}

func (p Position) options() map[string]string {
	o := map[string]string{"consumer-id": p.ConsumerID}
	if !p.ConsumerFile || p.IgnoreProgress {
		o["scan.snapshot-id"] = strconv.FormatInt(p.NextSnapshot, 10)
	}
	if p.Mode == ModeAtLeastOnce {
		o[OptConsumerMode] = ModeAtLeastOnce
	}
	return o
}

// MarshalJSON encodes the exported fields (value receiver, so that both
// Position and *Position marshal the same).
func (p Position) MarshalJSON() ([]byte, error) {
	type plain Position
	return json.Marshal(plain(p))
}

// PositionOf returns the paimon position in p: a Position, a *Position, or a
// *resume.RawPosition of kind "paimon-snapshot" read back from a decision
// document.
func PositionOf(p resume.Position) (*Position, error) {
	out, err := resume.PositionAs[Position](p, KindSnapshot)
	if err != nil {
		return nil, fmt.Errorf("paimon: %w", err)
	}
	return out, nil
}

func hintText(opts map[string]string) string {
	return "/*+ OPTIONS(" + resume.HintOptions(opts) + ") */"
}
