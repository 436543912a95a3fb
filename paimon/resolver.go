package paimon

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

// DefaultName is the resolver's name when Options.Name is empty.
const DefaultName = "paimon-consumer"

// Options configures a Resolver. A nil *Options means defaults.
type Options struct {
	// Name is the resolver's name in decisions; DefaultName when empty.
	Name string
	// StartTime is used when the consumer has no file: the job starts where
	// a streaming read with scan.timestamp-millis would (Replay). Zero means
	// no fallback: a missing consumer is resume.ErrNoPosition.
	StartTime time.Time
	// Mode is the consumer.mode the new job will run with, "exactly-once"
	// or "at-least-once" in any case, as Paimon reads it; default the
	// table's. It shapes the launch only (at-least-once adds the
	// consumer.mode option): what the consumer file means is decided by
	// WrittenMode.
	Mode string
	// WrittenMode is the consumer.mode the old job ran with, which decides
	// what its consumer file means: in exactly-once mode nextSnapshot is
	// one past the last fully read snapshot; in at-least-once mode it is
	// the snapshot the slowest reader was still reading, which a restart
	// reads again (Replay). Either way the old job may have read on past
	// the file (it is written when a checkpoint completes), so a consumer
	// behind the latest snapshot is Replay in both modes; the mode decides
	// the grade of a consumer that has read every snapshot (exactly-once:
	// ExactInput). consumer.mode is usually a SQL hint on the old job and
	// never reaches the table's schema; when neither this field,
	// TableOptions nor the schema says, exactly-once (Paimon's default) is
	// assumed, with a WarnWrittenModeAssumed warning where that decides
	// the grade.
	WrittenMode string
	// PaimonVersion is the Paimon release the new job reads the table with,
	// "major.minor" ("0.8", "1.4.1"). Where releases read the same options
	// differently the grade follows it: Paimon 0.8 reads long-lived
	// changelogs only when changelog-producer is not none, releases before
	// 0.8 never do, and consumer.changelog-only exists from 1.4. Empty means
	// the newest behaviour (1.4), with a WarnVersionAssumed warning where
	// the version would change the grade.
	PaimonVersion string
	// TableOptions override the options of the newest schema file
	// (consumer.expiration-time, consumer.mode, consumer.ignore-progress,
	// the snapshot and changelog retention options, changelog-producer,
	// consumer.changelog-only, ...), e.g. the dynamic options the jobs set.
	TableOptions map[string]string
	// Now returns the current time for idle checks; nil means the table's
	// Now (time.Now by default).
	Now func() time.Time
}

// Resolver offers the start position of a streaming read of a Paimon table
// for one consumer id. It is immutable and safe for concurrent use.
//
// The grade follows what the Paimon reader does, read from the newest
// schema's options plus [Options.TableOptions], as the Paimon release in
// [Options.PaimonVersion] reads them (the newest, 1.4, when empty):
//
//   - a consumer file is written when a checkpoint completes, apart from
//     the sink's commit, and the old job read on past it: a start at its
//     nextSnapshot n re-reads what the old job emitted from snapshots
//     n..latest, Replay with [WarnConsumerLagsOutput]; only a consumer
//     that has read every snapshot (n = latest+1) is ExactInput, and only
//     when the old job's consumer.mode was exactly-once
//     ([Options.WrittenMode]; when nothing says, exactly-once is assumed
//     with [WarnWrittenModeAssumed]); [Options.Mode] is the new job's and
//     shapes the launch only;
//   - long-lived changelogs below the earliest snapshot are read only when
//     the retention options decouple them (CoreOptions.changelogLifecycleDecoupled,
//     and in 0.8 a changelog-producer other than none); files in changelog/
//     that the options do not read give [WarnChangelogIgnored];
//   - ids re-committed after a rollback below the consumer's nextSnapshot
//     are possible loss ([WarnRollbackSuspected]), with the lowest offered as
//     [Position.ReplayFrom];
//   - every launch carries scan.snapshot-id, a fallback for a consumer that
//     expiry deletes before the job starts.
type Resolver struct {
	table   *Table
	id      string
	o       Options
	version paimonVersion
}

var _ resume.Resolver = (*Resolver)(nil)

// NewResolver returns a resolver for consumerID on table. Bad arguments (nil
// table, an id that could escape the consumer folder, an unknown mode, an
// unreadable Paimon version, a table option override that does not parse)
// fail here, before any I/O.
func NewResolver(table *Table, consumerID string, opts *Options) (*Resolver, error) {
	if table == nil {
		return nil, errors.New("paimon: NewResolver: nil table")
	}
	if err := ValidateID("consumer", consumerID); err != nil {
		return nil, err
	}
	var o Options
	if opts != nil {
		o = *opts
		o.TableOptions = maps.Clone(opts.TableOptions)
	}
	if o.Name == "" {
		o.Name = DefaultName
	}
	if o.Now == nil {
		o.Now = table.o.Now
	}
	o.Mode = normMode(o.Mode)
	if err := checkMode(o.Mode, "Options.Mode"); err != nil {
		return nil, err
	}
	o.WrittenMode = normMode(o.WrittenMode)
	if err := checkMode(o.WrittenMode, "Options.WrittenMode"); err != nil {
		return nil, err
	}
	v, err := parsePaimonVersion(o.PaimonVersion)
	if err != nil {
		return nil, err
	}
	if v, ok := o.TableOptions[OptConsumerMode]; ok {
		o.TableOptions[OptConsumerMode] = normMode(v)
		if err := checkMode(o.TableOptions[OptConsumerMode], "TableOptions["+OptConsumerMode+"]"); err != nil {
			return nil, err
		}
	}
	if err := checkTableOptions(o.TableOptions); err != nil {
		return nil, err
	}
	return &Resolver{table: table, id: consumerID, o: o, version: v}, nil
}

// normMode lower-cases a consumer.mode value: Paimon parses enum options
// case-insensitively ('AT-LEAST-ONCE' is at-least-once).
func normMode(m string) string { return strings.ToLower(m) }

// checkMode checks a normalised (normMode) consumer.mode value.
func checkMode(m, where string) error {
	switch m {
	case "", ModeExactlyOnce, ModeAtLeastOnce:
		return nil
	}
	return fmt.Errorf("paimon: %s %s: want %s or %s", where, redact.Quote(m), ModeExactlyOnce, ModeAtLeastOnce)
}

// Name returns the resolver's name.
func (r *Resolver) Name() string { return r.o.Name }

// resolution collects one Resolve call's findings.
type resolution struct {
	r          *Resolver
	t          *Table
	snaps      map[int64]*Snapshot
	changelogs map[int64]*Snapshot
	reasons    []string
	warnings   []resume.Warning
	// until is the candidate's ValidUntil (zero: unknown).
	until time.Time
}

func (x *resolution) reason(format string, args ...any) {
	x.reasons = append(x.reasons, fmt.Sprintf(format, args...))
}

func (x *resolution) warn(code resume.WarningCode, format string, args ...any) {
	x.warnings = append(x.warnings, resume.Warnf(code, format, args...))
}

func (x *resolution) snapshot(ctx context.Context, id int64) (*Snapshot, error) {
	if s, ok := x.snaps[id]; ok {
		return s, nil
	}
	s, err := x.t.Snapshot(ctx, id)
	if err != nil {
		return nil, err
	}
	x.snaps[id] = s
	return s, nil
}

// Resolve reads the consumer file and the snapshot hints and grades a
// restart:
//
//   - consumer file present: start at its nextSnapshot n. Replay when
//     snapshots n..latest exist, which the old job may have read and
//     emitted after the checkpoint that wrote the file
//     (WarnConsumerLagsOutput names them); ExactInput when the consumer has
//     read every snapshot (n = latest+1) and the old job wrote it in
//     exactly-once mode (Options.WrittenMode, else the table's
//     consumer.mode, else assumed with a WarnWrittenModeAssumed warning);
//     Replay in at-least-once mode; DataLoss when nextSnapshot is
//     below the earliest readable id (the earliest snapshot, or the
//     earliest long-lived changelog when the table's options make Paimon
//     read them), naming the lost range, because Paimon silently moves such
//     a start up; DataLoss worded "possible loss" when snapshots below
//     nextSnapshot were committed after the consumer file was last written
//     (a rollback re-committed ids the job had passed: Paimon never reads
//     them), offering the lowest such id as the replay start (ReplayFrom);
//     an error when nextSnapshot > latest+1 (the table was probably
//     recreated).
//   - consumer file missing with Options.StartTime: the snapshot a streaming
//     scan.timestamp-millis read starts from (after the last snapshot, or
//     long-lived changelog, committed before the time), Replay, launched
//     with consumer-id and scan.snapshot-id. When every readable id was
//     committed at or after the time and the lowest, L, is above 1, ids
//     below L are gone: nothing is lost if L-1 was committed before the
//     time, otherwise its records are skipped. The table's tags (at most 32
//     read, one listing) decide when they can: a tag below L committed at or
//     after the time makes it DataLoss ("data loss"); a tag at L-1
//     committed before the time makes it Replay; on a branch, the tag it was
//     created from at L (tag-<name> in the branch and the main table naming
//     L, as create_branch leaves them) makes it Replay, since the branch
//     never had lower ids. Otherwise the loss cannot be ruled out: DataLoss
//     with a "possible loss" warning saying what would clear it.
//   - consumer file missing without a start time: an error wrapping
//     resume.ErrNoPosition.
//
// With correct hints a consumer resolve makes no listing and at most 6
// object reads, whatever the number of snapshots; a suspected rollback adds
// at most 2*ceil(log2(d+1)) snapshot reads, where d is the number of ids
// between the consumer's nextSnapshot and the earliest snapshot (see
// rollbackStart).
func (r *Resolver) Resolve(ctx context.Context) (resume.Candidate, error) {
	x := &resolution{r: r, t: r.table, snaps: map[int64]*Snapshot{}, changelogs: map[int64]*Snapshot{}}
	if err := ctx.Err(); err != nil {
		return resume.Candidate{}, fmt.Errorf("paimon: resolve %s: %w", r.table, err)
	}
	cons, err := r.table.Consumer(ctx, r.id)
	switch {
	case err == nil:
		return x.fromConsumer(ctx, cons)
	case errors.Is(err, ErrConsumerNotFound):
		if r.o.StartTime.IsZero() {
			return resume.Candidate{}, fmt.Errorf("paimon: consumer %q of %s: %s does not exist and no start time was given%s: %w",
				r.id, r.table, r.table.consumerKey(r.id), r.expiredHint(ctx), resume.ErrNoPosition)
		}
		return x.fromTime(ctx)
	default:
		return resume.Candidate{}, err
	}
}

// expiredHint says, when the table sets consumer.expiration-time, that a
// missing consumer file may have expired (the writer's commits delete a
// consumer idle that long, before they expire snapshots): a job down longer
// lost it, and a start by time is what is left. It is "" when the option is
// not set or the schema cannot be read (the error stands without it).
func (r *Resolver) expiredHint(ctx context.Context) string {
	opts := map[string]string{}
	if s, err := r.table.LatestSchema(ctx); err == nil {
		maps.Copy(opts, s.Options)
	}
	maps.Copy(opts, r.o.TableOptions)
	v := strings.TrimSpace(opts[OptConsumerExpiration])
	if v == "" {
		return ""
	}
	return fmt.Sprintf(" (the table's %s is %s: the writer deletes a consumer not updated for that long, so a job down longer lost its file; start by the time the old job stopped reading: Options.StartTime, resumectl --paimon-from)",
		OptConsumerExpiration, redact.Quote(v))
}

// config reads the newest schema's options (found from the latest
// snapshot's schema id without a listing), applies the overrides and reads
// them as the declared Paimon version does.
func (x *resolution) config(ctx context.Context, latest *Snapshot) (tableConfig, error) {
	schema, err := x.t.schemaFrom(ctx, latest.SchemaID)
	if err != nil {
		return tableConfig{}, err
	}
	cfg, err := readConfig(schema, &x.r.o, x.r.version)
	if err != nil {
		return tableConfig{}, err
	}
	x.reason("table options from %s (%d options%s)", schema.Key, len(schema.Options), overrideNote(x.r.o.TableOptions))
	x.warnings = append(x.warnings, cfg.warnings...)
	if cfg.scanMode != "" {
		x.reason("the table's %s %q would refuse %s (SchemaValidation.validateStartupMode) or, as from-snapshot-full, read a full snapshot there: the launch sets %s=from-snapshot", OptScanMode, cfg.scanMode, OptScanSnapshotID, OptScanMode)
	}
	if len(cfg.scanConflicts) > 0 {
		x.warn(WarnScanOptionConflict, "the table's options set %s, which Paimon refuses beside the launch's %s (SchemaValidation.validateStartupMode: the job fails to start), and a SQL hint cannot unset: reset %s on the table (ALTER TABLE %s RESET (%s)) before the job starts, or leave %s out of the launch, which then has no fallback for a consumer that expiry deletes",
			strings.Join(cfg.scanConflicts, ", "), OptScanSnapshotID, strings.Join(cfg.scanConflicts, ", "), x.t.SQLName(), quotedList(cfg.scanConflicts), OptScanSnapshotID)
	}
	return cfg, nil
}

// quotedList renders keys as SQL string literals: 'a', 'b'.
func quotedList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = sqlString(k)
	}
	return strings.Join(q, ", ")
}

func overrideNote(m map[string]string) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return ", overridden: " + strings.Join(slices.Sorted(slices.Values(keys)), ", ")
}

// latestSnapshot reads snapshot-<latest>. A LATEST hint ahead of the real
// latest (Paimon accepts it when snapshot-<hint+1> is missing) names a
// snapshot that does not exist: the folder is listed instead.
func (x *resolution) latestSnapshot(ctx context.Context, latest int64) (*Snapshot, error) {
	s, err := x.snapshot(ctx, latest)
	if err == nil || !errors.Is(err, ErrSnapshotNotFound) {
		return s, err
	}
	_, hi, ok, lerr := x.t.listIDs(ctx, x.t.snapshotDir(), "snapshot-")
	if lerr != nil {
		return nil, lerr
	}
	if !ok || hi == latest {
		return nil, err
	}
	x.reason("snapshot-%d, named by the LATEST hint, does not exist: listed %s, the latest is snapshot-%d", latest, x.t.snapshotDir(), hi)
	return x.snapshot(ctx, hi)
}

func (x *resolution) bounds(ctx context.Context) (earliest, latest int64, err error) {
	latest, notes, err := x.t.latestID(ctx)
	if err != nil {
		return 0, 0, err
	}
	earliest, notes2, err := x.t.earliestID(ctx)
	if err != nil {
		return 0, 0, err
	}
	for _, n := range append(notes, notes2...) {
		x.reason("%s", n)
	}
	return earliest, latest, nil
}

// writtenGrade is what the consumer file promises, by the mode the old job
// wrote it in (ConsumerProgressCalculator for at-least-once; MonitorSource
// for exactly-once) and by what the table held past it.
//
// In exactly-once mode nextSnapshot n is the MonitorSource's scan position
// at a completed checkpoint: every snapshot below n was planned before that
// checkpoint's barrier, so its records were emitted before it. Snapshots at
// and above n were planned after the barrier, and the old job went on
// reading them: a non-transactional sink shows their records at once, and
// a transactional sink commits them with the next checkpoint, which may
// complete before a crash stops the consumer write (the file is written in
// the source's own notifyCheckpointComplete, not with the sink's commit).
// Without the old job's Flink state the new one reads them again: Replay,
// bounded by snapshots n..latest (WarnConsumerLagsOutput). Only a consumer
// that has read every snapshot (n = latest+1) leaves nothing the old job
// could have emitted past it: ExactInput. At-least-once mode is Replay
// whatever the table holds: n is the snapshot the slowest reader was still
// reading.
//
// The reasons go on at once; the warnings are returned, for the caller to
// add when the candidate keeps this grade (a data-loss or rollback path
// replaces it).
func (x *resolution) writtenGrade(cfg tableConfig, n, latest int64) (resume.Guarantee, []resume.Warning) {
	var ws []resume.Warning
	g := resume.Replay
	switch {
	case cfg.writtenMode == ModeAtLeastOnce:
		x.reason("the old job's consumer.mode is at-least-once (from %s): nextSnapshot %d is the snapshot its slowest reader was still reading, which is read again", cfg.writtenFrom, n)
	case n > latest && cfg.writtenFrom == "":
		ws = append(ws, resume.Warnf(WarnWrittenModeAssumed, "assumed: the old job wrote the consumer file in exactly-once mode (Paimon's default; neither the table's options nor the caller name its consumer.mode, which is usually a SQL hint). A file written in 'consumer.mode'='at-least-once' may name a snapshot a reader was still reading, and is graded replay; say so with Options.WrittenMode (resumectl --paimon-written-mode)"))
		g = resume.ExactInput
	case n > latest:
		x.reason("the old job's consumer.mode is exactly-once (from %s): every snapshot below %d was fully read", cfg.writtenFrom, n)
		g = resume.ExactInput
	case cfg.writtenFrom == "":
		x.reason("the old job's consumer.mode is not known (neither the table's options nor the caller name it; Paimon's default is exactly-once): in either mode a start at snapshot-%d may read again what the old job emitted", n)
	default:
		x.reason("the old job's consumer.mode is exactly-once (from %s): every snapshot below %d was fully read", cfg.writtenFrom, n)
	}
	if g == resume.ExactInput {
		x.reason("no snapshot at or above %d exists: the old job emitted nothing past its consumer file, so the input resumes exactly", n)
		return g, ws
	}
	if n <= latest {
		x.reason("replay: %s may be read again, the part the old job emitted before it stopped; nothing below snapshot-%d is lost", snapshotRange(n, latest), n)
		ws = append(ws, resume.Warnf(WarnConsumerLagsOutput, "duplicates possible: %s may be read again, as far as the old job had emitted them (nothing below snapshot-%d is lost): Paimon writes the consumer file in the source's notifyCheckpointComplete, apart from the sink's commit, so what the old job read after that checkpoint reached a non-transactional sink at once, and a transactional sink may have committed a later checkpoint before the job died; only the old job's checkpoint, restored, avoids the re-read",
			snapshotRange(n, latest), n))
	}
	return g, ws
}

// snapshotRange names snapshots from..to: "snapshot-7" or "snapshots 7..9".
func snapshotRange(from, to int64) string {
	if from == to {
		return fmt.Sprintf("snapshot-%d", from)
	}
	return fmt.Sprintf("snapshots %d..%d", from, to)
}

func (x *resolution) fromConsumer(ctx context.Context, c *Consumer) (resume.Candidate, error) {
	t, n := x.t, c.NextSnapshot
	x.reason("consumer file %s: nextSnapshot %d, last written %s", c.Key, n, fmtTime(c.ModTime))
	earliest, latest, err := x.bounds(ctx)
	if err != nil {
		if errors.Is(err, ErrSnapshotNotFound) {
			return resume.Candidate{}, wrapf(err, "paimon: consumer %s says nextSnapshot %d but %s has no snapshot: was the table recreated?", c.Key, n, t)
		}
		return resume.Candidate{}, err
	}
	latestSnap, err := x.latestSnapshot(ctx, latest)
	if err != nil {
		return resume.Candidate{}, err
	}
	latest = latestSnap.ID
	if n > latest+1 {
		return resume.Candidate{}, fmt.Errorf("paimon: consumer %s says nextSnapshot %d but the latest snapshot is %d: the table was probably recreated, or rolled back further than it has committed since (Paimon fails with \"The next expected snapshot is too big!\")", c.Key, n, latest)
	}
	x.reason("snapshots %d..%d", earliest, latest)
	cfg, err := x.config(ctx, latestSnap)
	if err != nil {
		return resume.Candidate{}, err
	}
	pos := x.position(n, earliest, latest, cfg)
	pos.ConsumerFile, pos.ConsumerNextSnapshot, pos.WrittenMode = true, n, cfg.writtenMode
	g, gradeWarnings := x.writtenGrade(cfg, n, latest)
	floor := earliest
	if n < earliest {
		rd, err := x.readableFrom(ctx, cfg, earliest)
		if err != nil {
			return resume.Candidate{}, err
		}
		if rd.changelog {
			pos.EarliestChangelog = rd.id
		}
		if n < rd.id {
			return x.consumerLost(ctx, c, pos, rd, cfg)
		}
		floor = rd.id
		x.reason("snapshot-%d expired but the long-lived changelog from changelog-%d is kept (decoupled changelog): the read continues there", n, rd.id)
	}
	if n == latest+1 {
		x.reason("the consumer has read every snapshot: the job waits for the next commit")
	}
	var last *Snapshot
	if n > 1 {
		last, err = x.readAny(ctx, n-1, earliest, cfg.readsChangelog)
		if err != nil && !errors.Is(err, ErrSnapshotNotFound) {
			return resume.Candidate{}, err
		}
	}
	at := c.ModTime
	switch {
	case last != nil && last.Time.After(c.ModTime):
		return x.rolledBack(ctx, c, pos, last, min(floor, last.ID), earliest, cfg)
	case last != nil:
		at = last.Time
		x.reason("last consumed snapshot-%d committed at %s", n-1, fmtTime(last.Time))
	default:
		x.reason("the last consumed snapshot-%d has expired: its commit time is taken as the consumer file's modification time %s (an upper bound)", n-1, fmtTime(c.ModTime))
	}
	x.warnings = append(x.warnings, gradeWarnings...)
	x.consumerWarnings(c, cfg, pos)
	return x.candidate(pos, g, at), nil
}

func (x *resolution) consumerLost(ctx context.Context, c *Consumer, pos Position, rd readable, cfg tableConfig) (resume.Candidate, error) {
	kind, read := "snapshot", x.snapshot
	if rd.changelog {
		kind, read = "changelog", x.t.Changelog
	}
	first, err := read(ctx, rd.id)
	if err != nil {
		return resume.Candidate{}, err
	}
	pos.NextSnapshot = rd.id
	pos.ResetConsumerSQL = ResetConsumerSQL(x.t.SQLName(), x.r.id, rd.id)
	x.reason("nextSnapshot %d is below the earliest readable id %d (%s-%d, committed at %s): Paimon silently moves the start up to it",
		c.NextSnapshot, rd.id, kind, rd.id, fmtTime(first.Time))
	x.warn(WarnExpiredBeforeRead, "data loss: snapshots %d..%d expired before the job read them (committed after the consumer's last progress at %s and before %s-%d at %s); their records are never read",
		c.NextSnapshot, rd.id-1, fmtTime(c.ModTime), kind, rd.id, fmtTime(first.Time))
	x.consumerWarnings(c, cfg, pos)
	return x.candidate(pos, resume.DataLoss, first.Time), nil
}

// consumerWarnings says how long the consumer is safe, and what pins what.
// "Never expired" only means that the table's options (and overrides) set
// no consumer.expiration-time: expiry runs in the writer's commit with the
// writer's options (TableCommitImpl, ConsumerManager.expire), so a writer's
// dynamic option can still expire the consumer.
func (x *resolution) consumerWarnings(c *Consumer, cfg tableConfig, pos Position) {
	now := x.r.o.Now()
	idle := now.Sub(c.ModTime)
	pins := fmt.Sprintf("snapshot-%d and later", c.NextSnapshot)
	if cfg.changelogOnly {
		pins = fmt.Sprintf("long-lived changelog-%d and later, not snapshots (%s=true, Paimon 1.4+: snapshots expire regardless of consumers and the read continues from changelogs)", c.NextSnapshot, OptConsumerChangelogOnly)
	}
	if v := cfg.expiration; v != "" {
		exp, err := ParseDuration(v)
		switch {
		case err != nil:
			x.warn(WarnExpirationUnreadable, "%s %q cannot be read (%v): idle time not checked", OptConsumerExpiration, v, err)
		case idle > exp:
			x.warn(WarnConsumerExpired, "consumer idle for %s, longer than %s %s: the next commit's expiry deletes it, and what it pins (%s) may then expire too; start the job promptly or bind it again with %s",
				roundDur(idle), OptConsumerExpiration, v, pins, pos.ResetConsumerSQL)
		case exp > 0 && idle >= exp-exp/5: // idle >= 4/5 of exp, without multiplying (exp may be near the int64 limit)
			x.warn(WarnConsumerExpiring, "consumer idle for %s, close to %s %s: once exceeded, the next commit's expiry deletes it", roundDur(idle), OptConsumerExpiration, v)
		default:
			x.reason("consumer idle for %s, within %s %s; it pins %s", roundDur(idle), OptConsumerExpiration, v, pins)
		}
		if err == nil && exp > 0 && exp < math.MaxInt64/2 {
			x.until = c.ModTime.Add(exp).UTC()
			x.reason("valid until %s: paimon %s: consumer %s pins %s until %s %s after its last progress (%s); then the next commit's expiry deletes it and what only it kept",
				x.until.Format(time.RFC3339), x.t.SQLName(), c.ID, pins, OptConsumerExpiration, v, fmtTime(c.ModTime))
		}
	} else {
		x.reason("%s is not set in the table's options: commits that use only those never expire the consumer (a writer's dynamic option can still set it); it pins %s", OptConsumerExpiration, pins)
	}
	if pos.IgnoreProgress {
		x.warn(WarnIgnoreProgress, "%s=true: Paimon does not start from the consumer file, so the launch pins scan.snapshot-id=%d", OptConsumerIgnoreProgress, pos.scanSnapshotID())
	}
	x.warn(WarnNoStateRestore, "start the job without -s / execution.state-recovery.path: state restored from a checkpoint or savepoint wins over the consumer file")
}

func (x *resolution) fromTime(ctx context.Context) (resume.Candidate, error) {
	t, at := x.t, x.r.o.StartTime
	x.reason("consumer %q has no file (%s): start by time %s, as a streaming scan.timestamp-millis read would", x.r.id, t.consumerKey(x.r.id), fmtTime(at))
	if now := x.r.o.Now(); at.After(now) {
		x.warn(WarnStartInFuture, "the start time %s is after now (%s): the job skips every snapshot committed until then; a time without its zone read in the wrong one?", fmtTime(at), fmtTime(now))
	}
	res, err := t.search(ctx, at.UnixMilli(), false)
	if err != nil {
		if errors.Is(err, ErrSnapshotNotFound) {
			return resume.Candidate{}, wrapf(errors.Join(err, resume.ErrNoPosition), "paimon: %s: no consumer %q and no snapshot to start from by time", t, x.r.id)
		}
		return resume.Candidate{}, err
	}
	maps.Copy(x.snaps, res.cache)
	earliest, latest := res.earliest.ID, res.latest
	x.reason("snapshots %d..%d (snapshot-%d committed at %s)", earliest, latest, earliest, fmtTime(res.earliest.Time))
	latestSnap, err := x.latestSnapshot(ctx, latest)
	if err != nil {
		return resume.Candidate{}, err
	}
	cfg, err := x.config(ctx, latestSnap)
	if err != nil {
		return resume.Candidate{}, err
	}
	n := res.lastID + 1
	pos := x.position(n, earliest, latest, cfg)
	g, when := resume.Replay, at
	if res.last != nil {
		when = res.last.Time
		x.reason("snapshot-%d is the last committed before %s (at %s): start at snapshot-%d", res.last.ID, fmtTime(at), fmtTime(res.last.Time), n)
	} else {
		x.reason("every retained snapshot is at or after %s (the earliest is snapshot-%d)", fmtTime(at), earliest)
		if earliest > 1 {
			rd, err := x.readableFrom(ctx, cfg, earliest)
			if err != nil {
				return resume.Candidate{}, err
			}
			if rd.changelog {
				first, last, err := t.changelogStart(ctx, at.UnixMilli(), rd.id, earliest-1)
				if err != nil {
					return resume.Candidate{}, err
				}
				if last != nil {
					n, when = last.ID+1, last.Time
					x.reason("long-lived changelogs from changelog-%d are kept (decoupled changelog): changelog-%d is the last committed before %s (at %s): start at %d",
						rd.id, last.ID, fmtTime(at), fmtTime(last.Time), n)
				} else {
					n = rd.id
					x.reason("long-lived changelogs from changelog-%d (committed at %s) are kept: start there", rd.id, fmtTime(first.Time))
					if rd.id > 1 {
						if g, err = x.belowFirst(ctx, at, "changelog", first); err != nil {
							return resume.Candidate{}, err
						}
					}
				}
				pos = x.position(n, earliest, latest, cfg)
				pos.EarliestChangelog = rd.id
			} else if g, err = x.belowFirst(ctx, at, "snapshot", res.earliest); err != nil {
				return resume.Candidate{}, err
			}
		}
	}
	if n > latest {
		x.warn(WarnStartAtNextCommit, "every snapshot is older than %s: the job starts at the next commit, snapshot-%d", fmtTime(at), n)
	}
	x.warn(WarnTimeStartLag, "starting by time skips records if the old job lagged more than the gap between its last read and %s; an earlier time replays more instead", fmtTime(at))
	x.warn(WarnConsumerIDChangesOperator, "adding consumer-id %q changes the Flink source operator: a savepoint taken without it cannot restore that source (restore fails or needs --allowNonRestoredState)", x.r.id)
	switch {
	case pos.NextSnapshot < earliest:
		x.warn(WarnChangelogOnlyStart, "id %d exists only as a long-lived changelog: reset_consumer refuses it (it checks snapshot-%d), so start the job promptly with scan.snapshot-id before changelog expiry removes it", pos.NextSnapshot, pos.NextSnapshot)
	case pos.NextSnapshot <= latest && cfg.changelogOnly:
		x.warn(WarnBindConsumerFirst, "bind the consumer before starting the job — ResetConsumer or %s — so that changelog expiry keeps id %d: with %s=true (Paimon 1.4+) consumers do not stop snapshot expiry, and the read then continues from the long-lived changelog-%d", pos.ResetConsumerSQL, pos.NextSnapshot, OptConsumerChangelogOnly, pos.NextSnapshot)
	case pos.NextSnapshot <= latest:
		x.warn(WarnBindConsumerFirst, "bind the consumer before starting the job — ResetConsumer or %s — so that expiry cannot delete snapshot-%d first", pos.ResetConsumerSQL, pos.NextSnapshot)
	}
	if cfg.expiration == "" {
		what := "snapshots"
		if cfg.changelogOnly {
			what = "long-lived changelogs (consumer.changelog-only)"
		}
		x.warn(WarnNoConsumerExpiration, "%s is not set in the table's options: a consumer created for this job pins %s forever once abandoned, unless a writer sets it as a dynamic option", OptConsumerExpiration, what)
	}
	return x.candidate(pos, g, when), nil
}

func (x *resolution) position(n, earliest, latest int64, cfg tableConfig) Position {
	p := Position{
		Table: x.t.String(), TableName: x.t.Name(), Branch: x.t.branch, ConsumerID: x.r.id,
		NextSnapshot: n, Earliest: earliest, Latest: latest, Mode: cfg.launchMode,
		IgnoreProgress:     cfg.ignoreProgress,
		ChangelogDecoupled: cfg.readsChangelog,
	}
	if cfg.scanMode != "" {
		p.ScanMode = ScanModeFromSnapshot
	}
	p.ResetConsumerSQL = ResetConsumerSQL(x.t.SQLName(), x.r.id, n)
	return p
}

func (x *resolution) candidate(pos Position, g resume.Guarantee, at time.Time) resume.Candidate {
	pos.SQLHint = hintText(pos.options())
	return resume.Candidate{
		Resolver: x.r.o.Name, Position: pos, Guarantee: g, At: at.UTC(),
		Reasons: x.reasons, Warnings: x.warnings, ValidUntil: x.until,
	}
}

func roundDur(d time.Duration) time.Duration {
	if d > time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}

// belowFirst grades a start by time at first, the lowest readable id above
// 1 (kind "snapshot", or "changelog" for a long-lived changelog), when first
// was committed at or after the start time at. Ids below first are gone. If
// the one just below was committed before at, Paimon starts at first anyway
// and nothing is lost; otherwise its records are skipped. The tags decide
// when they can (tagsBelow): a tag below first committed at or after at
// makes the loss certain, a tag at first-1 committed before at rules it out,
// and on a branch the tag it was created from at first shows it never had
// lower ids. Without such evidence the loss cannot be ruled out: DataLoss,
// worded as a possible loss.
func (x *resolution) belowFirst(ctx context.Context, at time.Time, kind string, first *Snapshot) (resume.Guarantee, error) {
	t, lo := x.t, first.ID
	what := func(from int64) string {
		if kind == "changelog" {
			return fmt.Sprintf("ids %d..%d (snapshots and long-lived changelogs)", from, lo-1)
		}
		return fmt.Sprintf("snapshots %d..%d", from, lo-1)
	}
	ev, err := t.tagsBelow(ctx, first, at)
	if err != nil {
		return resume.GuaranteeUnknown, err
	}
	looked := fmt.Sprintf("%d tags read in %stag/", ev.read, t.base)
	if ev.more {
		looked = fmt.Sprintf("only the first %d tags read in %stag/", ev.read, t.base)
	}
	switch {
	case ev.lossTag != "":
		x.warn(WarnLossByTag, "data loss: tag %s shows that id %d was committed at %s, at or after %s, and %s expired: their records are never read by a start at %s-%d (committed at %s); ids below %d may hold more",
			ev.lossTag, ev.lossID, fmtTime(ev.lossTime), fmtTime(at), what(ev.lossID), kind, lo, fmtTime(first.Time), ev.lossID)
		return resume.DataLoss, nil
	case ev.beforeTag != "":
		x.reason("tag %s shows that id %d, the last below %s-%d, was committed at %s, before %s: a read of the full history would start at %d too, so nothing is lost",
			ev.beforeTag, lo-1, kind, lo, fmtTime(ev.beforeTime), fmtTime(at), lo)
		return resume.Replay, nil
	case ev.fromTag != "":
		x.reason("branch %s was created from tag %s at id %d: tag-%s in the branch and in the main table both name id %d committed at %s, so the branch never had lower ids and starting at %s-%d skips nothing of it",
			t.branch, ev.fromTag, lo, ev.fromTag, lo, fmtTime(first.Time), kind, lo)
		return resume.Replay, nil
	}
	settle := fmt.Sprintf("nothing is lost if id %d was committed before %s (a tag naming it, or a copy of its snapshot file, would show it; %s, none does)", lo-1, fmtTime(at), looked)
	switch {
	case t.branch == "main":
		x.warn(WarnPossibleLoss, "possible loss: %s expired and their commit times are unknown, so records committed at or after %s may have been in them, and a start at %s-%d (committed at %s) never reads them; %s",
			what(1), fmtTime(at), kind, lo, fmtTime(first.Time), settle)
	case ev.expiredTag != "":
		x.reason("branch %s: tag %s names id %d, below %s-%d: the branch had lower ids and they expired", t.branch, ev.expiredTag, ev.expiredID, kind, lo)
		x.warn(WarnPossibleLoss, "possible loss: %s of branch %s expired (tag %s names id %d) and their commit times are unknown, so records committed at or after %s may have been in them, and a start at %s-%d (committed at %s) never reads them; %s",
			what(ev.expiredID), t.branch, ev.expiredTag, ev.expiredID, fmtTime(at), kind, lo, fmtTime(first.Time), settle)
	default:
		x.warn(WarnPossibleLoss, "possible loss, cannot be ruled out: branch %s has no ids below %d and nothing shows whether they expired or the branch was created from a tag at id %d (no tag names id %d in both the branch and the main table); if they expired, records committed at or after %s may have been in them and a start at %s-%d (committed at %s) never reads them. Nothing is lost if the branch was created at id %d; and %s",
			t.branch, lo, lo, lo, fmtTime(at), kind, lo, fmtTime(first.Time), lo, settle)
	}
	return resume.DataLoss, nil
}
