package paimon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/localblob"
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
	// there was no (readable) consumer file. Pass it back as
	// ResetOptions.ExpectPrevious (resumectl: --expect-previous).
	Previous *int64 `json:"previous,omitempty"`
	// PreviousModTime is the consumer file's modification time before the
	// reset; nil when there was none.
	PreviousModTime *time.Time `json:"previous_mod_time,omitempty"`
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
	if nextSnapshot <= 0 || nextSnapshot > MaxID {
		return nil, fmt.Errorf("paimon: reset %s: next snapshot %d is not a snapshot id (1 to 2^62)", key, nextSnapshot)
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
	data, mod, err := t.read(ctx, key)
	switch {
	case err == nil:
		mod = mod.UTC()
		p.PreviousModTime = &mod
		if n, perr := ParseConsumer(key, data); perr == nil {
			p.Previous = &n
		} else {
			p.Warnings = append(p.Warnings, resume.Warnf(WarnConsumerFileUnusable, "the current consumer file is unusable and will be replaced: %v", perr))
		}
		if age := t.o.Now().Sub(mod); age < DefaultResetQuietPeriod {
			p.Warnings = append(p.Warnings, resume.Warnf(WarnConsumerRecentlyModified,
				"%s was modified %s ago: a running job rewrites it on every checkpoint and would undo the reset; stop the job first (the reset refuses a consumer modified within %s unless forced)",
				key, roundDur(max(age, 0)), DefaultResetQuietPeriod))
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
		// Expiry runs in the writers' commits with their options
		// (TableCommitImpl), so only the table's options can be said.
		pins := fmt.Sprintf("snapshot-%d and every later snapshot", nextSnapshot)
		if schemaChangelogOnly(schema.Options) {
			pins = fmt.Sprintf("long-lived changelog-%d and every later changelog (%s=true, Paimon 1.4+: consumers do not stop snapshot expiry, so snapshot-%d may expire before the job starts and the read then continues from changelog-%d)",
				nextSnapshot, OptConsumerChangelogOnly, nextSnapshot, nextSnapshot)
		}
		p.Warnings = append(p.Warnings, resume.Warnf(WarnNoConsumerExpiration,
			"%s is not set in the options of table %s (%s): unless a writer sets it as a dynamic option, this consumer, once abandoned, pins %s forever (storage grows without bound); set it with ALTER TABLE %s SET ('%s' = '7 d') or delete the consumer when done",
			OptConsumerExpiration, t.SQLName(), schema.Key, pins, t.SQLName(), OptConsumerExpiration))
	}
	return p, nil
}

// Defaults for ResetOptions fields left zero.
const (
	// DefaultResetQuietPeriod: a consumer file modified more recently than
	// this is taken to belong to a running job.
	DefaultResetQuietPeriod = time.Minute
	// DefaultResetObserve is how long the consumer file is watched before
	// it is written.
	DefaultResetObserve = 5 * time.Second
)

// ResetOptions configures ResetConsumer. A nil *ResetOptions means the
// defaults: the consumer must look idle, and its current value is not
// compared.
//
// [Table.ResetConsumer] takes [ResetOptions]: by default it refuses a
// consumer whose file changed within the last minute or changes during a
// short watch ([ErrConsumerActive]: a running job would undo the reset), it
// can check the value a dry run saw right before writing
// ([ResetOptions.ExpectPrevious], [ErrUnexpectedPrevious]), and it checks
// after writing that the snapshot still exists.
type ResetOptions struct {
	// ExpectPrevious, when set, is the nextSnapshot the consumer file must
	// hold right before the write: a dry run's ResetPlan.Previous. When the
	// file holds anything else (another value, no readable value, no file),
	// nothing is written and the error wraps ErrUnexpectedPrevious, naming
	// the value found. The write is a compare-and-swap where the bucket
	// allows one: on S3 (s3blob) a PUT with If-Match on the ETag read
	// before the check; on localblob a rename under an exclusive lock on
	// the consumer directory with the file compared again; with
	// ExpectAbsent, If-None-Match (IfNotExist) on every bucket that honours
	// it. Of two resets of one consumer at the same moment, one wins and
	// the other fails naming the winner's value. Other buckets (memblob,
	// GCS, Azure with ExpectPrevious) get a check right before the write
	// only: there both can pass, and the later write wins.
	ExpectPrevious *int64
	// ExpectAbsent says there must be no consumer file right before the
	// write (a dry run's Previous was nil); exclusive with ExpectPrevious.
	ExpectAbsent bool
	// QuietPeriod refuses a consumer file modified less than this before
	// now (TableOptions.Now): a running Flink job rewrites it on every
	// completed checkpoint, so a reset would be undone silently. Zero means
	// DefaultResetQuietPeriod; negative means no check.
	QuietPeriod time.Duration
	// Observe reads the consumer file again after this long (through
	// TableOptions.Wait) and refuses the reset if it changed. Zero means
	// DefaultResetObserve; negative means no observation.
	Observe time.Duration
	// Force skips QuietPeriod and Observe, for a consumer known not to be in
	// use. ExpectPrevious still applies.
	Force bool
}

// ResetConsumer sets the consumer id to read snapshot nextSnapshot next, as
// Paimon's reset_consumer procedure does, with the checks Paimon leaves to
// the operator ("stop the job first"):
//
//  1. the bucket must not be one that writes sidecar files (gocloud's
//     fileblob answers As(*os.FileInfo) and may write consumer-<id>.attrs,
//     which Paimon lists and reads as a consumer at 0, stopping expiry for
//     the whole table); localblob, memblob and object stores are fine;
//  2. everything PlanResetConsumer checks (the id, that snapshot-<n> exists);
//  3. unless opts.Force, the consumer must look idle: its file not modified
//     within QuietPeriod and unchanged over Observe (ErrConsumerActive);
//  4. opts.ExpectPrevious / ExpectAbsent, right before the write and, where
//     the bucket allows, as a compare-and-swap with it (see
//     ResetOptions.ExpectPrevious; ErrUnexpectedPrevious);
//  5. the file is written in one object write (atomic on object stores; a
//     rename in consumer/ itself on localblob), so readers never see part
//     of it;
//  6. snapshot-<n> must still exist after the write: when expiry removed
//     it meanwhile, the plan comes back with Written set and an error
//     wrapping ErrSnapshotNotFound, because the job would then not start
//     where the plan says.
//
// The plan's warnings say when the table has no consumer.expiration-time.
func (t *Table) ResetConsumer(ctx context.Context, id string, nextSnapshot int64, opts *ResetOptions) (*ResetPlan, error) {
	var o ResetOptions
	if opts != nil {
		o = *opts
	}
	if o.ExpectAbsent && o.ExpectPrevious != nil {
		return nil, errors.New("paimon: ResetOptions: ExpectPrevious and ExpectAbsent are exclusive")
	}
	if p := o.ExpectPrevious; p != nil && (*p <= 0 || *p > MaxID) {
		return nil, fmt.Errorf("paimon: ResetOptions: ExpectPrevious %d is not a snapshot id (1 to 2^62)", *p)
	}
	if o.QuietPeriod == 0 {
		o.QuietPeriod = DefaultResetQuietPeriod
	}
	if o.Observe == 0 {
		o.Observe = DefaultResetObserve
	}
	if err := ValidateID("consumer", id); err != nil {
		return nil, err
	}
	if err := t.checkNoSidecar(t.consumerKey(id)); err != nil {
		return nil, err
	}
	p, err := t.PlanResetConsumer(ctx, id, nextSnapshot)
	if err != nil {
		return nil, err
	}
	if !o.Force {
		if err := t.checkIdle(ctx, p.Key, o); err != nil {
			return nil, err
		}
	}
	wo := &blob.WriterOptions{ContentType: "application/octet-stream"}
	cas := o.ExpectPrevious != nil || o.ExpectAbsent
	if cas {
		etag, err := t.checkPrevious(ctx, p.Key, o)
		if err != nil {
			return nil, err
		}
		wo = casWrite(p.Key, o, etag)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("paimon: write %s: %w", p.Key, err)
	}
	if err := t.bucket.WriteAll(ctx, p.Key, []byte(p.Content), wo); err != nil {
		if cas && gcerrors.Code(err) == gcerrors.FailedPrecondition && ctx.Err() == nil {
			// Another write came first: say what the file holds now.
			if _, cerr := t.checkPrevious(ctx, p.Key, o); cerr != nil {
				return nil, cerr
			}
			return nil, fmt.Errorf("paimon: reset %s: the consumer file was rewritten while the reset ran (%v); run it again: %w", p.Key, err, ErrUnexpectedPrevious)
		}
		return nil, fmt.Errorf("paimon: write %s: %w", p.Key, ctxErr(ctx, err))
	}
	p.Written = true
	there, err := t.exists(ctx, t.snapshotKey(nextSnapshot))
	switch {
	case err != nil:
		return p, wrapf(err, "paimon: wrote %s, but could not check that snapshot-%d still exists", p.Key, nextSnapshot)
	case !there:
		return p, fmt.Errorf("paimon: wrote %s = %d, but %s no longer exists (expired while the reset ran): the job cannot start there; reset again to a snapshot that exists: %w",
			p.Key, nextSnapshot, t.snapshotKey(nextSnapshot), ErrSnapshotNotFound)
	}
	return p, nil
}

// checkNoSidecar refuses buckets that may write a sidecar next to key: a
// file-system bucket (As(*os.FileInfo)) that is not localblob (which also
// answers As(**os.Root)).
func (t *Table) checkNoSidecar(key string) error {
	var fi os.FileInfo
	var root *os.Root
	if t.bucket.As(&fi) && !t.bucket.As(&root) {
		return fmt.Errorf("paimon: write %s: the table's bucket is a file-system bucket (gocloud fileblob?) that may write a %s.attrs sidecar, which Paimon would read as a consumer at snapshot 0 and so stop snapshot expiry for the whole table: open the table with OpenTable, or over localblob.OpenBucket",
			key, key[strings.LastIndexByte(key, '/')+1:])
	}
	return nil
}

// consumerState is what a read of a consumer file saw.
type consumerState struct {
	exists  bool
	content string
	mod     time.Time
}

func (t *Table) consumerState(ctx context.Context, key string) (consumerState, error) {
	data, mod, err := t.read(ctx, key)
	switch {
	case err == nil:
		return consumerState{exists: true, content: string(data), mod: mod}, nil
	case errors.Is(err, errNotFound):
		return consumerState{}, nil
	}
	return consumerState{}, err
}

// checkIdle refuses a consumer whose file changed within the quiet period
// or changes while it is observed.
func (t *Table) checkIdle(ctx context.Context, key string, o ResetOptions) error {
	before, err := t.consumerState(ctx, key)
	if err != nil {
		return err
	}
	if before.exists && o.QuietPeriod > 0 {
		if age := t.o.Now().Sub(before.mod); age < o.QuietPeriod {
			return fmt.Errorf("paimon: reset %s: the file was modified %s ago (%s), within the quiet period of %s: a running job rewrites it on every checkpoint and would undo the reset; stop the job first, or force the reset: %w",
				key, roundDur(max(age, 0)), before.mod.UTC().Format(time.RFC3339), o.QuietPeriod, ErrConsumerActive)
		}
	}
	if o.Observe <= 0 {
		return nil
	}
	if err := t.pause(ctx, o.Observe); err != nil {
		return wrapf(err, "paimon: reset %s: observing the consumer file", key)
	}
	after, err := t.consumerState(ctx, key)
	if err != nil {
		return err
	}
	if after.exists != before.exists || after.content != before.content || !after.mod.Equal(before.mod) {
		return fmt.Errorf("paimon: reset %s: the file changed during a %s observation (%s): a job is writing it; stop the job first, or force the reset: %w",
			key, o.Observe, describeChange(before, after), ErrConsumerActive)
	}
	return nil
}

func describeChange(a, b consumerState) string {
	switch {
	case !a.exists:
		return "it appeared"
	case !b.exists:
		return "it was deleted"
	case a.content != b.content:
		return "its content changed"
	}
	return "its modification time changed"
}

// checkPrevious compares the consumer file with the expectation and
// returns the ETag the file had before it was read ("" when there is no
// file or the bucket gives none): a write conditional on it (If-Match)
// fails if anything wrote the file since, even the value expected.
func (t *Table) checkPrevious(ctx context.Context, key string, o ResetOptions) (string, error) {
	var etag string
	if a, err := t.bucket.Attributes(ctx, key); err == nil {
		etag = a.ETag
	} else if gcerrors.Code(err) != gcerrors.NotFound {
		return "", fmt.Errorf("paimon: reset %s: %w", key, ctxErr(ctx, err))
	}
	cur, err := t.consumerState(ctx, key)
	if err != nil {
		return "", err
	}
	return etag, previousMismatch(key, o, []byte(cur.content), cur.exists)
}

// previousMismatch says how the consumer file's content (exists false: no
// file) differs from the expectation; nil when it matches.
func previousMismatch(key string, o ResetOptions, content []byte, exists bool) error {
	var have string
	switch {
	case !exists:
		if o.ExpectAbsent {
			return nil
		}
		have = "no consumer file"
	default:
		n, perr := ParseConsumer(key, content)
		switch {
		case perr != nil:
			have = "an unreadable consumer file"
		case o.ExpectPrevious != nil && n == *o.ExpectPrevious:
			return nil
		default:
			have = fmt.Sprintf("nextSnapshot %d", n)
		}
	}
	want := "no consumer file"
	if o.ExpectPrevious != nil {
		want = fmt.Sprintf("nextSnapshot %d", *o.ExpectPrevious)
	}
	return fmt.Errorf("paimon: reset %s: expected %s, found %s: the consumer moved since the dry run; run it again: %w", key, want, have, ErrUnexpectedPrevious)
}

// casWrite returns the writer options that make the write of key a
// compare-and-swap against what checkPrevious saw: on S3 (s3blob) If-Match
// on etag, or If-None-Match: * when no file is expected; on localblob a
// WriteCondition that compares the file again under the directory's lock.
// Other buckets get IfNotExist for an expected absence (memblob, GCS and
// Azure honour it) and otherwise only the check before the write.
func casWrite(key string, o ResetOptions, etag string) *blob.WriterOptions {
	wo := &blob.WriterOptions{ContentType: "application/octet-stream", IfNotExist: o.ExpectAbsent}
	wo.BeforeWrite = func(as func(any) bool) error {
		var c *localblob.WriteCondition
		if as(&c) {
			c.Check = func(cur []byte, exists bool) error { return previousMismatch(key, o, cur, exists) }
			return nil
		}
		if o.ExpectAbsent || etag == "" {
			return nil
		}
		var tm *transfermanager.UploadObjectInput
		if as(&tm) {
			tm.IfMatch = aws.String(etag)
			return nil
		}
		var put *s3.PutObjectInput
		if as(&put) {
			put.IfMatch = aws.String(etag)
		}
		return nil
	}
	return wo
}

// ResetConsumerSQL returns the Flink procedure call that does the same:
// CALL sys.reset_consumer('db.t', 'id', 42).
func ResetConsumerSQL(table, id string, nextSnapshot int64) string {
	return fmt.Sprintf("CALL sys.reset_consumer(%s, %s, %d)", sqlString(table), sqlString(id), nextSnapshot)
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
