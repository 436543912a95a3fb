package paimon

import (
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

// Paimon's defaults for the retention options (CoreOptions
// SNAPSHOT_NUM_RETAINED_MIN/MAX, SNAPSHOT_TIME_RETAINED; the same from 0.8 to
// 1.4). The changelog.* options have no default: CoreOptions.changelogNumRetainMin,
// changelogNumRetainMax and changelogTimeRetain fall back to the snapshot
// values.
const (
	defaultSnapshotNumRetainMin = 10
	defaultSnapshotNumRetainMax = math.MaxInt32
	defaultSnapshotTimeRetained = time.Hour
)

// tableConfig is what the table's options say about a restart: the newest
// schema's options with Options.TableOptions on top, read as the declared
// Paimon version (Options.PaimonVersion) reads them.
type tableConfig struct {
	opts      map[string]string
	schemaKey string
	// launchMode is the new job's consumer.mode: Options.Mode, else the
	// table's, else exactly-once (never empty).
	launchMode string
	// writtenMode is the consumer.mode the old job wrote the consumer file
	// with; writtenFrom says who said so, "" when it is assumed.
	writtenMode, writtenFrom string
	ignoreProgress           bool
	// lifecycleDecoupled is CoreOptions.changelogLifecycleDecoupled(): the
	// changelog retention is longer than the snapshot retention, so expiry
	// turns expired snapshots into long-lived changelog-<id> files.
	lifecycleDecoupled bool
	// readsChangelog says whether a streaming read of the declared version
	// continues below the earliest snapshot from long-lived changelogs
	// (ContinuousFromSnapshotStartingScanner, NextSnapshotFetcher): when
	// decoupled; in 0.8 only when changelog-producer is not none too; never
	// before 0.8. decoupledWhy says which comparison decided.
	readsChangelog bool
	decoupledWhy   string
	// versionDependent is true when readsChangelog holds only because no
	// Paimon version was declared: changelog-producer is none, which Paimon
	// 0.8 would not read from.
	versionDependent bool
	// changelogOnly is CoreOptions.consumerChangelogOnly() (1.4+):
	// consumers protect long-lived changelogs only, not snapshots.
	changelogOnly bool
	expiration    string
	// scanMode is the table's scan.mode when it forbids scan.snapshot-id
	// (SchemaValidation.validateStartupMode): the launch then sets
	// scan.mode=from-snapshot.
	scanMode string
	// scanConflicts are the options set (sorted) that Paimon refuses beside
	// the launch's scan.snapshot-id; no hint can unset them.
	scanConflicts []string
	warnings      []resume.Warning
}

// readConfig reads the options of schema with the resolver's overrides. An
// option that does not parse becomes a coded warning and counts as its
// default, except that unreadable retention options count as "not
// decoupled" (the reading that never grades better than Paimon would
// behave: Paimon itself cannot open such a table). A bad consumer.mode in
// the schema is an error.
func readConfig(schema *Schema, o *Options, v paimonVersion) (tableConfig, error) {
	opts := maps.Clone(schema.Options)
	maps.Copy(opts, o.TableOptions)
	c := tableConfig{opts: opts, schemaKey: schema.Key, expiration: opts[OptConsumerExpiration]}

	tableMode := normMode(opts[OptConsumerMode])
	if err := checkMode(tableMode, schema.Key+": "+OptConsumerMode); err != nil {
		return c, err
	}
	c.launchMode = o.Mode
	if c.launchMode == "" {
		c.launchMode = tableMode
	}
	if c.launchMode == "" {
		c.launchMode = ModeExactlyOnce
	}
	switch {
	case o.WrittenMode != "":
		c.writtenMode, c.writtenFrom = o.WrittenMode, "Options.WrittenMode"
	case o.TableOptions[OptConsumerMode] != "":
		c.writtenMode, c.writtenFrom = tableMode, "TableOptions"
	case tableMode != "":
		c.writtenMode, c.writtenFrom = tableMode, schema.Key
	default:
		c.writtenMode = ModeExactlyOnce
	}

	c.ignoreProgress = c.boolOption(OptConsumerIgnoreProgress)
	c.decide(v)
	c.readChangelogOnly(v)
	switch m := strings.ToLower(opts[OptScanMode]); m {
	case "", "default", "from-snapshot":
	default:
		c.scanMode = opts[OptScanMode]
	}
	for _, k := range scanConflicts {
		if _, ok := opts[k]; ok {
			c.scanConflicts = append(c.scanConflicts, k)
		}
	}
	return c, nil
}

// scanConflicts are the start options that SchemaValidation.validateStartupMode
// refuses beside scan.snapshot-id, sorted: a start from a snapshot allows
// exactly one of scan.snapshot-id, scan.tag-name and scan.watermark, and
// none of the time, file creation time and incremental options (and under
// the default scan.mode, scan.timestamp-millis or scan.timestamp make the
// start a start by time, which refuses scan.snapshot-id). Paimon checks it
// on the table copied with the job's dynamic options (AbstractFileStoreTable.copy).
var scanConflicts = []string{
	"incremental-between", "incremental-between-timestamp", "incremental-to-auto-tag",
	"scan.file-creation-time-millis", "scan.tag-name", "scan.timestamp", "scan.timestamp-millis", "scan.watermark",
}

// decide sets lifecycleDecoupled, readsChangelog and decoupledWhy.
func (c *tableConfig) decide(v paimonVersion) {
	if v.declared() && !v.atLeast(0, 8) {
		c.decoupledWhy = fmt.Sprintf("Paimon %s keeps no long-lived changelogs (they came with 0.8)", v)
		return
	}
	dec, why, ok := c.lifecycle()
	c.lifecycleDecoupled, c.decoupledWhy = dec, why
	if !ok || !dec {
		return
	}
	c.readsChangelog = true
	if v.declared() && v.atLeast(0, 9) {
		return
	}
	// Paimon 0.8 reads long-lived changelogs only when changelog-producer
	// is not none (0.8 ContinuousFromSnapshotStartingScanner and
	// NextSnapshotFetcher take changelogAsFollowup && changelogDecoupled);
	// 0.9 dropped that condition ("Changelog decouple supports delta
	// files").
	producer := strings.ToLower(c.opts[OptChangelogProducer])
	switch producer {
	case "", "none":
		producer = "none"
	case "input", "full-compaction", "lookup":
	default:
		c.warnOption(OptChangelogProducer, "want none, input, full-compaction or lookup")
		producer = "none"
	}
	if producer != "none" {
		return
	}
	if v.declared() {
		c.readsChangelog = false
		c.decoupledWhy += fmt.Sprintf(", but Paimon %s reads long-lived changelogs only when %s is not none", v, OptChangelogProducer)
		return
	}
	c.versionDependent = true
}

// readChangelogOnly sets changelogOnly: CoreOptions.consumerChangelogOnly()
// (consumer.changelog-only, from Paimon 1.4, and only with decoupled
// changelogs). Call it after decide.
func (c *tableConfig) readChangelogOnly(v paimonVersion) {
	c.changelogOnly = v.atLeast(1, 4) && c.boolOption(OptConsumerChangelogOnly) && c.lifecycleDecoupled
}

// schemaChangelogOnly reads consumer.changelog-only from a schema's own
// options as the newest Paimon does (for ResetConsumer's warnings, which
// have no overrides and no declared version).
func schemaChangelogOnly(opts map[string]string) bool {
	c := tableConfig{opts: opts}
	c.decide(paimonVersion{})
	c.readChangelogOnly(paimonVersion{})
	return c.changelogOnly
}

// lifecycle is CoreOptions.changelogLifecycleDecoupled(): changelog
// num-retained.max, time-retained or num-retained.min larger than the
// snapshot one, each changelog option defaulting to the snapshot option.
// ok is false when a retention option does not parse (then not decoupled).
func (c *tableConfig) lifecycle() (dec bool, why string, ok bool) {
	snapMin, ok1 := c.intOption(OptSnapshotNumRetainMin, defaultSnapshotNumRetainMin)
	snapMax, ok2 := c.intOption(OptSnapshotNumRetainMax, defaultSnapshotNumRetainMax)
	snapTime, ok3 := c.durationOption(OptSnapshotTimeRetained, defaultSnapshotTimeRetained)
	clMin, ok4 := c.intOption(OptChangelogNumRetainMin, snapMin)
	clMax, ok5 := c.intOption(OptChangelogNumRetainMax, snapMax)
	clTime, ok6 := c.durationOption(OptChangelogTimeRetained, snapTime)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return false, "a retention option does not parse (Paimon cannot open the table with it): counted as not decoupled", false
	}
	switch {
	case clMax > snapMax:
		return true, fmt.Sprintf("%s %d > %s %d", OptChangelogNumRetainMax, clMax, OptSnapshotNumRetainMax, snapMax), true
	case clTime > snapTime:
		return true, fmt.Sprintf("%s %s > %s %s", OptChangelogTimeRetained, fmtRetention(clTime), OptSnapshotTimeRetained, fmtRetention(snapTime)), true
	case clMin > snapMin:
		return true, fmt.Sprintf("%s %d > %s %d", OptChangelogNumRetainMin, clMin, OptSnapshotNumRetainMin, snapMin), true
	}
	return false, fmt.Sprintf("the changelog retention (num-retained min %d, max %d, time %s) is not longer than the snapshot retention (min %d, max %d, time %s)",
		clMin, clMax, fmtRetention(clTime), snapMin, snapMax, fmtRetention(snapTime)), true
}

func fmtRetention(d time.Duration) string {
	if d == math.MaxInt64 {
		return "beyond 292 years"
	}
	return d.String()
}

// intOption reads an Integer option as Paimon does (Integer.parseInt: an
// optional sign, decimal digits, 32 bits).
func (c *tableConfig) intOption(key string, def int64) (int64, bool) {
	s, ok := c.opts[key]
	if !ok {
		return def, true
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		c.warnOption(key, "not a 32-bit integer")
		return def, false
	}
	return n, true
}

// durationOption reads a Duration option (TimeUtils.parseDuration). Values
// beyond time.Duration's range (292 years) count as the largest duration:
// only comparisons are made.
func (c *tableConfig) durationOption(key string, def time.Duration) (time.Duration, bool) {
	s, ok := c.opts[key]
	if !ok {
		return def, true
	}
	n, mult, err := parseDurationParts(s)
	if err != nil {
		c.warnOption(key, err.Error())
		return def, false
	}
	if n > int64(math.MaxInt64/mult) {
		return math.MaxInt64, true
	}
	return time.Duration(n) * mult, true
}

// boolOption reads a Boolean option as Paimon does (OptionsUtils.convertToBoolean:
// "true" or "false" in any case); anything else counts as false.
func (c *tableConfig) boolOption(key string) bool {
	s, ok := c.opts[key]
	if !ok {
		return false
	}
	switch {
	case strings.EqualFold(s, "true"):
		return true
	case strings.EqualFold(s, "false"):
		return false
	}
	c.warnOption(key, "want true or false")
	return false
}

func (c *tableConfig) warnOption(key, why string) {
	c.warnings = append(c.warnings, resume.Warnf(WarnOptionUnreadable,
		"table option %s %q cannot be read (%s): Paimon refuses to open the table with it; read as its default here",
		key, truncate(c.opts[key], 40), why))
}

// checkTableOptions checks the overrides a caller gives in
// Options.TableOptions, before any I/O.
func checkTableOptions(o map[string]string) error {
	c := tableConfig{opts: o}
	for _, k := range []string{OptSnapshotNumRetainMin, OptSnapshotNumRetainMax, OptChangelogNumRetainMin, OptChangelogNumRetainMax} {
		if _, ok := c.intOption(k, 0); !ok {
			return fmt.Errorf("paimon: NewResolver: TableOptions[%s] %s: not a 32-bit integer", k, redact.Quote(o[k]))
		}
	}
	for _, k := range []string{OptSnapshotTimeRetained, OptChangelogTimeRetained, OptConsumerExpiration} {
		if v, ok := o[k]; ok && (v != "" || k != OptConsumerExpiration) { // "" unsets the expiration
			if _, _, err := parseDurationParts(v); err != nil {
				return wrapf(err, "paimon: NewResolver: TableOptions[%s]", k)
			}
		}
	}
	for _, k := range []string{OptConsumerIgnoreProgress, OptConsumerChangelogOnly} {
		if v, ok := o[k]; ok && !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
			return fmt.Errorf("paimon: NewResolver: TableOptions[%s] %s: want true or false", k, redact.Quote(v))
		}
	}
	if v, ok := o[OptChangelogProducer]; ok {
		switch strings.ToLower(v) {
		case "none", "input", "full-compaction", "lookup":
		default:
			return fmt.Errorf("paimon: NewResolver: TableOptions[%s] %s: want none, input, full-compaction or lookup", OptChangelogProducer, redact.Quote(v))
		}
	}
	return nil
}
