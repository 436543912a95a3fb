package paimon

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/resumekit/resumekit/resume"
)

// KindSnapshot is the Kind of a [Position].
const KindSnapshot = "paimon-snapshot"

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
	// ChangelogDecoupled says whether the table's options make a streaming
	// read continue below the earliest snapshot from long-lived changelogs
	// (CoreOptions.changelogLifecycleDecoupled, for the declared Paimon
	// version).
	ChangelogDecoupled bool `json:"changelog_decoupled,omitempty"`
	// Mode is the consumer.mode the new job runs with.
	Mode string `json:"mode"`
	// WrittenMode is the consumer.mode the grade takes the old job to have
	// written the consumer file with (Options.WrittenMode, else the table's,
	// else exactly-once, assumed); empty when there is no consumer file.
	WrittenMode string `json:"written_mode,omitempty"`
	// ReplayFrom, when not 0, is the lowest id committed again after the
	// consumer's last progress (a rollback): the start that skips nothing
	// where the consumer's nextSnapshot may. The consumer file wins over
	// scan.snapshot-id, so the consumer must be reset to it first
	// (ResetConsumerSQL) for the job to start there; with
	// consumer.ignore-progress NextSnapshot is it already.
	ReplayFrom int64 `json:"replay_from,omitempty"`
	// IgnoreProgress mirrors consumer.ignore-progress: when true the consumer
	// file does not set the start, so the launch pins scan.snapshot-id.
	IgnoreProgress bool `json:"ignore_progress,omitempty"`
	// ScanMode is the scan.mode the launch sets: empty, or "from-snapshot"
	// when the table's own scan.mode would refuse scan.snapshot-id.
	ScanMode string `json:"scan_mode,omitempty"`
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
	if p.ReplayFrom > 0 && p.ReplayFrom < p.NextSnapshot {
		s += fmt.Sprintf(" (reset it to %d to read what a rollback committed again)", p.ReplayFrom)
	}
	return s
}

// ScanModeFromSnapshot is the scan.mode a launch sets when the table's own
// scan.mode would refuse scan.snapshot-id.
const ScanModeFromSnapshot = "from-snapshot"

// Launch returns the source options: consumer-id and scan.snapshot-id
// always, plus consumer.mode in at-least-once mode (and scan.mode when the
// table's own would refuse scan.snapshot-id).
//
// scan.snapshot-id is a free fallback: Paimon starts from the consumer file
// when it exists (unless consumer.ignore-progress), and from
// scan.snapshot-id only when it does not (AbstractDataTableScan.createStartingScanner;
// 0.8: AbstractInnerTableScan).
// A consumer idle past consumer.expiration-time is deleted by the next
// writer commit; without the option the job would then start by scan.mode's
// default (latest-full: a full read, with no changes emitted for what
// happened in between). Its value is NextSnapshot, or ReplayFrom when set.
func (p Position) Launch() resume.Launch {
	return resume.Launch{Options: p.options()}
}

// scanSnapshotID is the launch's scan.snapshot-id: where a job without the
// consumer file should start.
func (p Position) scanSnapshotID() int64 {
	if p.ReplayFrom > 0 {
		return p.ReplayFrom
	}
	return p.NextSnapshot
}

func (p Position) options() map[string]string {
	o := map[string]string{
		"consumer-id":     p.ConsumerID,
		OptScanSnapshotID: strconv.FormatInt(p.scanSnapshotID(), 10),
	}
	if p.Mode == ModeAtLeastOnce {
		o[OptConsumerMode] = ModeAtLeastOnce
	}
	if p.ScanMode != "" {
		o[OptScanMode] = p.ScanMode
	}
	return o
}

// MarshalJSON encodes the exported fields (value receiver, so that both
// Position and *Position marshal the same).
func (p Position) MarshalJSON() ([]byte, error) {
	type plain Position
	return json.Marshal(plain(p))
}

// PositionOf returns the position in p: a Position, a copy of a *Position,
// or a [*resume.RawPosition] of kind "paimon-snapshot" read back from a decision
// document, decoded. Any other position is an error.
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

// SourceTable returns the table's name (db.table), the source table whose
// SQL hint the launch options belong to.
func (p Position) SourceTable() string { return p.TableName }

// Facts returns the lines a report shows beside the launch: the SQL hint,
// the reset_consumer call that binds the consumer first, and, when the
// consumer's nextSnapshot had expired, the snapshots it never reads.
func (p Position) Facts() []resume.Fact {
	var out []resume.Fact
	if p.SQLHint != "" {
		out = append(out, resume.Fact{Label: "sql", Text: p.SQLHint})
	}
	if p.ResetConsumerSQL != "" {
		out = append(out, resume.Fact{Label: "bind", Text: p.ResetConsumerSQL})
	}
	if p.ConsumerFile && p.ConsumerNextSnapshot > 0 && p.ConsumerNextSnapshot < p.NextSnapshot && p.ReplayFrom == 0 {
		out = append(out, resume.Fact{Label: resume.FactLoss, Text: fmt.Sprintf("%s: snapshots %d..%d expired before the consumer read them (earliest now %d)",
			p.TableName, p.ConsumerNextSnapshot, p.NextSnapshot-1, p.Earliest)})
	}
	return out
}
