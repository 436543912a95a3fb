package paimon

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/resume"
)

// ResetPlan is what ResetConsumer writes (or, from PlanResetConsumer, would
// write).
type ResetPlan struct {
	Table      string `json:"table"`
	Branch     string `json:"branch"`
	ConsumerID string `json:"consumer_id"`
	Key        string `json:"key"`
	// NextSnapshot is the value written to the consumer file.
	NextSnapshot int64 `json:"next_snapshot"`
	// Snapshot is snapshot-<NextSnapshot>, which exists.
	Snapshot *Snapshot `json:"snapshot"`
	// Previous is the consumer's nextSnapshot before the reset; nil when
	// there was no (readable) consumer file.
	Previous *int64 `json:"previous,omitempty"`
	// Content is the exact file content: Jackson's pretty JSON.
	Content string `json:"content"`
	// SQL is the equivalent Flink procedure call.
	SQL string `json:"sql"`
	// Warnings are risks of the reset, each with a stable code.
	Warnings []resume.Warning `json:"warnings"`
	// Written is true once ResetConsumer wrote the file.
	Written bool `json:"written"`
}

// PlanResetConsumer checks everything ResetConsumer checks and returns what
// it would write, without writing: a dry run.
func (t *Table) PlanResetConsumer(ctx context.Context, id string, nextSnapshot int64) (*ResetPlan, error) {
	if err := ValidateID("consumer", id); err != nil {
		return nil, err
	}
	key := t.consumerKey(id)
	if nextSnapshot <= 0 {
		return nil, fmt.Errorf("paimon: reset %s: next snapshot %d is not a positive snapshot id", key, nextSnapshot)
	}
	// Paimon's reset_consumer refuses an id whose snapshot does not exist.
	snap, err := t.Snapshot(ctx, nextSnapshot)
	if err != nil {
		return nil, wrapf(err, "paimon: reset %s to %d", key, nextSnapshot)
	}
	p := &ResetPlan{
		Table: t.String(), Branch: t.branch, ConsumerID: id, Key: key, NextSnapshot: nextSnapshot,
		Snapshot: snap, Content: string(ConsumerJSON(nextSnapshot)),
		SQL: ResetConsumerSQL(t.SQLName(), id, nextSnapshot), Warnings: []resume.Warning{},
	}
	data, _, err := t.read(ctx, key)
	switch {
	case err == nil:
		if n, perr := ParseConsumer(key, data); perr == nil {
			p.Previous = &n
		} else {
			p.Warnings = append(p.Warnings, resume.Warnf(WarnConsumerFileUnusable, "the current consumer file is unusable and will be replaced: %v", perr))
		}
	case errors.Is(err, errNotFound):
	default:
		return nil, err
	}
	schema, err := t.LatestSchema(ctx)
	if err != nil {
		return nil, err
	}
	if schema.Options[OptConsumerExpiration] == "" {
		p.Warnings = append(p.Warnings, resume.Warnf(WarnNoConsumerExpiration,
			"table %s has no %s: if this consumer is abandoned it pins snapshot-%d and every later snapshot forever (storage grows without bound); set it with ALTER TABLE %s SET ('%s' = '7 d') or delete the consumer when done",
			t.SQLName(), OptConsumerExpiration, nextSnapshot, t.SQLName(), OptConsumerExpiration))
	}
	return p, nil
}

// ResetConsumer sets the consumer id to read snapshot nextSnapshot next, as
// Paimon's reset_consumer procedure does: the id is validated and
// snapshot-<nextSnapshot> must exist before anything is written; the file is
// then written in one object write (atomic on object stores, a rename on
// fileblob), so readers never see partial content. The plan's warnings say
// when the table has no consumer.expiration-time.
func (t *Table) ResetConsumer(ctx context.Context, id string, nextSnapshot int64) (*ResetPlan, error) {
	p, err := t.PlanResetConsumer(ctx, id, nextSnapshot)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("paimon: write %s: %w", p.Key, err)
	}
	if err := t.bucket.WriteAll(ctx, p.Key, []byte(p.Content), &blob.WriterOptions{ContentType: "application/octet-stream"}); err != nil {
		return nil, fmt.Errorf("paimon: write %s: %w", p.Key, ctxErr(ctx, err))
	}
	p.Written = true
	return p, nil
}

// ResetConsumerSQL returns the Flink procedure call that does the same:
// CALL sys.reset_consumer('db.t', 'id', 42).
func ResetConsumerSQL(table, id string, nextSnapshot int64) string {
	return fmt.Sprintf("CALL sys.reset_consumer(%s, %s, %d)", sqlString(table), sqlString(id), nextSnapshot)
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
