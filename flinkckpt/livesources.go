package flinkckpt

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/internal/quotecap"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// SourceCheck is what the live check (Options.Live) found for one source
// operator of the snapshot to restore. Its JSON is part of the position's.
type SourceCheck struct {
	OperatorID string           `json:"operator_id"`
	UID        string           `json:"uid,omitempty"`
	Kind       sourcestate.Kind `json:"kind"`
	// Checked says the source's positions were checked against the live
	// system; false with a flink.not-checked warning otherwise.
	Checked bool `json:"checked"`
	// Kafka holds a KafkaSource's partitions as checked.
	Kafka []KafkaCheck `json:"kafka,omitempty"`
	// Paimon holds a Paimon source's next snapshot as checked.
	Paimon *PaimonCheck `json:"paimon,omitempty"`
	// MySQL holds a MySQL CDC source's binlog position as checked.
	MySQL *MySQLCheck `json:"mysql,omitempty"`
	// Postgres holds a Postgres CDC source's LSN and its slot as checked.
	Postgres *PostgresCheck `json:"postgres,omitempty"`
	// Options are the table options the launch sets for the restored
	// source (scan.startup.mode=earliest-offset for a KafkaSource below
	// the log start).
	Options map[string]string `json:"options,omitempty"`
}

// KafkaCheck is one KafkaSource partition checked against the live log.
type KafkaCheck struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// Offset is the snapshot's next offset to read (or a marker: -2
	// earliest, -1 latest, -3 committed, which the restored reader
	// resolves itself).
	Offset   int64 `json:"offset"`
	LogStart int64 `json:"log_start"`
	LogEnd   int64 `json:"log_end"`
	// Lost counts the records below the log start the snapshot had not
	// read; at the earliest marker, the offsets below the log start
	// (0..LogStart-1), which it may never have read.
	Lost int64 `json:"lost,omitempty"`
}

// PaimonCheck is a Paimon source's next snapshot checked against the
// table.
type PaimonCheck struct {
	Table        string `json:"table"`
	NextSnapshot int64  `json:"next_snapshot"`
	Earliest     int64  `json:"earliest"`
	Latest       int64  `json:"latest"`
}

// MySQLCheck is a Flink CDC MySQL source's binlog position checked
// against the server's binary logs.
type MySQLCheck struct {
	File string `json:"file"`
	Pos  int64  `json:"pos"`
	// GTIDs is the position's executed GTID set ("" without).
	GTIDs string `json:"gtids,omitempty"`
	// Available: the server still holds the file (and, on MySQL with
	// GTIDs, gtid_purged is within the set).
	Available bool `json:"available"`
	// Files are the server's binary logs, oldest first.
	Files   []string `json:"files"`
	MariaDB bool     `json:"mariadb,omitempty"`
}

// PostgresCheck is a Flink CDC Postgres source's WAL position checked
// against its replication slot.
type PostgresCheck struct {
	Slot string `json:"slot"`
	// LSN is the snapshot's position (X/Y); SlotExists false when the
	// server has no such slot.
	LSN        string `json:"lsn"`
	SlotExists bool   `json:"slot_exists"`
	// ConfirmedFlushLSN, WALStatus and SafeWALSize as the slot reports
	// them (when it exists).
	ConfirmedFlushLSN string `json:"confirmed_flush_lsn,omitempty"`
	WALStatus         string `json:"wal_status,omitempty"`
	SafeWALSize       *int64 `json:"safe_wal_size,omitempty"`
}

// liveResult is what checking one snapshot's sources came to.
type liveResult struct {
	sources  []SourceCheck
	reasons  []string
	warnings []resume.Warning
	grade    resume.Guarantee // the best the sources allow
	// refuse, when set, says why restoring the snapshot fails: it is not
	// offered.
	refuse string
	// until is the earliest ValidUntil of the sources (zero: unknown),
	// untilWhy its reason.
	until    time.Time
	untilWhy string
}

// valid records a source's time to loss; the earliest wins.
func (l *liveResult) valid(until time.Time, why string) {
	switch {
	case why == "":
	case until.IsZero():
		l.reasons = append(l.reasons, why)
	case l.until.IsZero() || until.Before(l.until):
		if l.untilWhy != "" {
			l.reasons = append(l.reasons, l.untilWhy)
		}
		l.until, l.untilWhy = until, why
	default:
		l.reasons = append(l.reasons, why)
	}
}

func (l *liveResult) lower(g resume.Guarantee) {
	if g < l.grade {
		l.grade = g
	}
}

// apply puts the check's findings on the candidate.
func (l *liveResult) apply(c *resume.Candidate, s *snap) {
	if l == nil {
		c.Warnings = append(c.Warnings, uncheckedWarnings(s)...)
		return
	}
	if l.grade < c.Guarantee {
		c.Guarantee = l.grade
	}
	c.Reasons = append(c.Reasons, l.reasons...)
	if !l.until.IsZero() {
		c.ValidUntil = l.until
		c.Reasons = append(c.Reasons, l.untilWhy)
	}
	c.Warnings = append(c.Warnings, l.warnings...)
	if p, ok := c.Position.(Position); ok {
		p.Live = &LiveCheck{Sources: l.sources}
		c.Position = p
	}
}

// checkSources decodes the source state of s (at Flink path path) and
// checks every source with the checker of its kind. Storage that fails to
// return a state file and a checker that fails are errors: a failure to
// look, never a better grade.
func (r *Resolver) checkSources(ctx context.Context, s *snap, path string) (*liveResult, error) {
	rd := &stateReader{ctx: ctx, b: s.loc.bucket, snap: &Snapshot{Key: s.key, Path: path}, limit: sourcestate.DefaultMaxStreamSize}
	st, err := sourcestate.Decode(s.md, &sourcestate.Options{ReadStream: rd.read})
	if err != nil && (errors.Is(err, ErrStateUnreadable) || ctx.Err() != nil) {
		return nil, fmt.Errorf("flinkckpt: %s: source state: %w", s.name(), err)
	}
	return r.checkDecodedSources(ctx, s, st)
}

// checkDecodedSources checks the decoded sources st of s, one by one.
func (r *Resolver) checkDecodedSources(ctx context.Context, s *snap, st *sourcestate.State) (*liveResult, error) {
	live := r.opts.Live
	out := &liveResult{grade: resume.ExactlyOnce}
	name := s.name()
	for i := range st.Sources {
		// One source per operator state, as many as the input holds: a
		// cancelled context stops here, not after every source.
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("flinkckpt: %s: source state: %w", s.name(), err)
		}
		src := &st.Sources[i]
		sc := SourceCheck{OperatorID: src.OperatorID, UID: src.UID, Kind: src.Kind}
		label := src.OperatorID
		if src.UID != "" {
			label += " (uid " + src.UID + ")"
		}
		var err error
		switch {
		case src.Err != nil:
			out.warnings = append(out.warnings, resume.Warnf(WarnSourceNotChecked, "%s: source %s not checked against its live system: its state could not be decoded (%v)", name, label, src.Err))
		case src.Kind == sourcestate.KindKafka && live.Kafka != nil:
			err = out.kafka(ctx, live.Kafka, s.mod, name, label, src, &sc)
		case src.Kind == sourcestate.KindPaimon && live.Paimon != nil && r.paimonApplies(src):
			err = out.paimon(ctx, live.Paimon, name, label, src, &sc)
		case src.Kind == sourcestate.KindMySQLCDC && live.MySQL != nil:
			err = out.mysql(ctx, live.MySQL, name, label, src, &sc)
		case src.Kind == sourcestate.KindPostgresCDC && live.Postgres != nil && live.PostgresSlot != "":
			err = out.postgres(ctx, live.Postgres, live.PostgresSlot, name, label, src, &sc)
		default:
			out.warnings = append(out.warnings, resume.Warnf(WarnSourceNotChecked, "%s: %s source %s not checked against its live system (%s): input it had not read may be gone, and a restore from it then loses it or fails",
				name, src.Kind, label, noCheckerWhy(src.Kind, live)))
		}
		if err != nil {
			return nil, err
		}
		out.sources = append(out.sources, sc)
		if out.refuse != "" {
			return out, nil
		}
	}
	return out, nil
}

// paimonApplies reports whether the Paimon checker is the table src reads.
func (r *Resolver) paimonApplies(src *sourcestate.Source) bool {
	pp, ok, _ := src.Paimon.Position()
	return !ok || livecheck.PaimonMatches(r.opts.Live.Paimon.SQLName(), pp.Table)
}

// noCheckerWhy says why a source of kind k was not checked.
func noCheckerWhy(k sourcestate.Kind, live *livecheck.Checkers) string {
	switch k {
	case sourcestate.KindKafka:
		return "no Kafka checker given (Options.Live.Kafka, --kafka-brokers)"
	case sourcestate.KindPaimon:
		if live.Paimon != nil {
			return "the Paimon table given (" + live.Paimon.SQLName() + ") is not the one it reads"
		}
		return "no Paimon table given (Options.Live.Paimon, --paimon-table)"
	case sourcestate.KindUnknown:
		return "a source kind resumekit does not know"
	case sourcestate.KindMySQLCDC:
		return "no MySQL server given (Options.Live.MySQL, --mysql-dsn)"
	case sourcestate.KindPostgresCDC:
		if live.Postgres != nil {
			return "no replication slot named (Options.Live.PostgresSlot, --postgres-slot): the state does not record slot.name"
		}
		return "no PostgreSQL server given (Options.Live.Postgres, --postgres-dsn)"
	}
	return "no checker for " + string(k) + " sources"
}

// kafka checks a KafkaSource's reader positions against the live log
// with the Kafka start rule (livecheck.KafkaStart). Below the log start a
// restored reader seeks an offset that is gone, and Kafka resets it by
// the new job's starting offsets initializer: the launch sets
// earliest-offset, which resets to the log start, losing exactly the
// records counted. A partition at the earliest marker on a log whose start
// is above 0 is data loss too (up to the offsets below it, which the
// snapshot had not read), with no reset.
//
// A split still at the latest marker (KafkaSource before FLINK-28303) is
// resolved against the snapshot's time at: the restored reader seeks
// today's end offset, and the records written since the snapshot are
// skipped, lost (livecheck.KafkaLatestAt).
func (l *liveResult) kafka(ctx context.Context, log livecheck.KafkaLog, at time.Time, name, label string, src *sourcestate.Source, sc *SourceCheck) error {
	ps, _ := src.Kafka.Positions()
	var topics []string
	seen := map[string]bool{} // topics in first-seen order, one lookup per split
	in := make([]livecheck.KafkaPosition, 0, len(ps))
	for i, p := range ps {
		if i%4096 == 4095 && ctx.Err() != nil {
			return fmt.Errorf("flinkckpt: %s: KafkaSource %s: %w", name, label, ctx.Err())
		}
		in = append(in, livecheck.KafkaPosition{Topic: p.Topic, Partition: p.Partition, Offset: p.Offset})
		if !seen[p.Topic] {
			seen[p.Topic] = true
			topics = append(topics, p.Topic)
		}
	}
	// The restored reader resolves a committed marker itself: no group.
	res, err := livecheck.CheckKafkaAt(ctx, log, "", in, at)
	if err != nil {
		return fmt.Errorf("flinkckpt: %s: KafkaSource %s: %w", name, label, err)
	}
	var lost, unread, skipped []string
	for i, k := range res.Kafka {
		if i%4096 == 4095 && ctx.Err() != nil {
			return fmt.Errorf("flinkckpt: %s: KafkaSource %s: %w", name, label, ctx.Err())
		}
		kc := KafkaCheck{Topic: k.Topic, Partition: k.Partition, Offset: k.Offset, LogStart: k.LogStart, LogEnd: k.LogEnd}
		switch {
		case k.Start.Lost == 0:
		case k.Start.Skipped:
			kc.Lost = k.Start.Lost
			skipped = append(skipped, fmt.Sprintf("%s/%d: %d records (offsets %d..%d)", k.Topic, k.Partition, k.Start.Lost, k.Start.LostFrom, k.LogEnd-1))
		case k.Offset >= 0:
			kc.Lost = k.Start.Lost
			lost = append(lost, fmt.Sprintf("%s/%d: %d records (offsets %d..%d)", k.Topic, k.Partition, k.Start.Lost, k.Offset, k.LogStart-1))
		case k.Offset == livecheck.MarkerEarliest:
			// The snapshot had read nothing of the partition (a split not
			// started, or not assigned yet): the restored reader seeks
			// today's log start itself, and what was deleted below it may
			// never have been read (the Kafka start rule's earliest
			// marker, as salvage and kafkaoffset grade it).
			kc.Lost = k.Start.Lost
			unread = append(unread, fmt.Sprintf("%s/%d: earliest (the snapshot had read nothing of it), up to %d offsets (0..%d) deleted, possibly never read", k.Topic, k.Partition, k.Start.Lost, k.LogStart-1))
		}
		sc.Kafka = append(sc.Kafka, kc)
	}
	l.valid(res.ValidUntil, res.ValidWhy)
	sc.Checked = true
	l.reasons = append(l.reasons, fmt.Sprintf("%s: KafkaSource %s: %d partition(s) of %s checked against the live log (log start and end offsets)", name, label, len(ps), quotecap.Join(topics, ", ")))
	if len(skipped) > 0 {
		l.lower(resume.DataLoss)
		l.warnings = append(l.warnings,
			resume.Warnf(WarnSourceDataLoss, "data loss: %s: KafkaSource %s: splits still at the latest marker (a KafkaSource before FLINK-28303 checkpoints a split so until it reads a record): the restored reader seeks today's end offset and skips every record written since the snapshot (its _metadata written %s, looked up by time; records written between the checkpoint's barrier and then are lost too, uncounted): %s",
				name, label, at.UTC().Format(time.RFC3339), quotecap.Join(skipped, ", ")))
	}
	if len(lost)+len(unread) == 0 {
		return nil
	}
	l.lower(resume.DataLoss)
	l.warnings = append(l.warnings,
		resume.Warnf(WarnSourceDataLoss, "data loss: %s: KafkaSource %s: records the snapshot had not read were deleted (retention or DeleteRecords): %s", name, label, quotecap.Join(append(lost, unread...), ", ")))
	if len(lost) == 0 {
		return nil // the earliest markers seek the log start: no reset
	}
	sc.Options = map[string]string{"scan.startup.mode": "earliest-offset"}
	l.warnings = append(l.warnings,
		resume.Warnf(WarnKafkaOutOfRange, "%s: KafkaSource %s restores below today's log start on %d partition(s): the restored reader seeks offsets that are gone, and Kafka resets them by the new job's starting offsets initializer (KafkaSourceBuilder overrides auto.offset.reset with its strategy): the launch sets scan.startup.mode=earliest-offset (DataStream: OffsetsInitializer.earliest()), which resets to the log start and loses exactly the records counted; latest-offset or timestamp would jump to the end offset and skip records still in the log, and group-offsets without properties.auto.offset.reset fails with OffsetOutOfRangeException in a restart loop",
			name, label, len(lost)))
	return nil
}

// paimon checks a Paimon source's next snapshot against the table's
// readable range. A next snapshot that expired fails the restore: Paimon's
// streaming scan throws OutOfRangeException on restore (0.8 – 1.2) and the
// job restarts in a loop (from 1.3 with decoupled changelogs it stalls
// silently): the snapshot is refused, so an older one or salvage is
// considered.
func (l *liveResult) paimon(ctx context.Context, t livecheck.PaimonTable, name, label string, src *sourcestate.Source, sc *SourceCheck) error {
	pp, ok, why := src.Paimon.Position()
	if !ok {
		l.warnings = append(l.warnings, resume.Warnf(WarnSourceNotChecked, "%s: Paimon source %s not checked against table %s: %s", name, label, t.SQLName(), why))
		return nil
	}
	res, err := livecheck.CheckPaimon(ctx, t, pp.NextSnapshot)
	if err != nil {
		return fmt.Errorf("flinkckpt: %s: Paimon source %s: %w", name, label, err)
	}
	r := res.Paimon
	sc.Paimon = &PaimonCheck{Table: r.Table, NextSnapshot: r.Next, Earliest: r.Earliest, Latest: r.Latest}
	sc.Checked = true
	if r.Expired {
		l.refuse = fmt.Sprintf("a restore fails: Paimon source %s continues at snapshot %d, and snapshots %d..%d of %s expired (earliest readable %d): Paimon's streaming scan throws org.apache.paimon.table.source.OutOfRangeException on restore (0.8 – 1.2) and the job restarts in a loop (from 1.3 with decoupled changelogs it stalls silently)",
			label, r.Next, r.Next, r.Earliest-1, r.Table, r.Earliest)
		return nil
	}
	l.reasons = append(l.reasons, fmt.Sprintf("%s: Paimon source %s continues at snapshot %d: table %s holds snapshots %d..%d", name, label, r.Next, r.Table, r.Earliest, r.Latest))
	l.valid(res.ValidUntil, res.ValidWhy)
	return nil
}

// uncheckedWarnings says, per source of s whose state is inline in
// _metadata (no storage call), that nothing checked it: no Options.Live.
// A restore graded exactly-once from _metadata alone may still lose input
// that left its system's retention.
func uncheckedWarnings(s *snap) []resume.Warning {
	st, _ := sourcestate.Decode(s.md, nil)
	var out []resume.Warning
	for i := range st.Sources {
		src := &st.Sources[i]
		label := src.OperatorID
		if src.UID != "" {
			label += " (uid " + src.UID + ")"
		}
		kind := string(src.Kind) + " source"
		if src.Err != nil {
			kind = "source"
		}
		out = append(out, resume.Warnf(WarnSourceNotChecked, "%s: %s %s not checked against its live system (no checker given: Options.Live; resumectl --kafka-brokers, --paimon-table, --mysql-dsn, --postgres-dsn): input it had not read may be gone, and a restore from it then loses it or fails",
			s.name(), kind, label))
	}
	return out
}

// liveOptions merges the table options of the checked sources.
func liveOptions(l *LiveCheck) map[string]string {
	out := map[string]string{}
	if l == nil {
		return out
	}
	for _, s := range l.Sources {
		maps.Copy(out, s.Options)
	}
	return out
}

// postgres checks a Flink CDC Postgres source's WAL position against its
// replication slot. PostgreSQL streams a logical slot from
// max(requested, confirmed_flush_lsn): a restore behind the slot is
// silently forwarded ("… has been already streamed, forwarding to …"),
// and so is any restore once the slot was dropped and recreated: data
// loss. A slot whose wal_status is lost fails the restore: refused.
func (l *liveResult) postgres(ctx context.Context, srv livecheck.PostgresSlots, slot, name, label string, src *sourcestate.Source, sc *SourceCheck) error {
	pp, _, err := src.Postgres.Position()
	if err != nil {
		l.warnings = append(l.warnings, resume.Warnf(WarnSourceNotChecked, "%s: Postgres CDC source %s not checked against slot %s: %v", name, label, slot, err))
		return nil
	}
	lsn := pp.LSNValue()
	res, err := livecheck.CheckPostgres(ctx, srv, slot, lsn)
	if err != nil {
		return fmt.Errorf("flinkckpt: %s: Postgres CDC source %s: %w", name, label, err)
	}
	r, st := res.Postgres, res.Postgres.State
	pc := &PostgresCheck{Slot: slot, LSN: pp.LSN, SlotExists: r.Exists}
	sc.Postgres, sc.Checked = pc, true
	if !r.Exists {
		l.lower(resume.DataLoss)
		l.warnings = append(l.warnings, resume.Warnf(WarnSourceDataLoss, "data loss: %s: Postgres CDC source %s continues at lsn %s, and the server has no replication slot %s: the connector creates it at the current WAL position, so the restore silently skips everything since the checkpoint",
			name, label, pp.LSN, slot))
		return nil
	}
	pc.ConfirmedFlushLSN, pc.WALStatus, pc.SafeWALSize = sourcestate.FormatLSN(st.ConfirmedFlushLSN), st.WALStatus, st.SafeWALSize
	switch {
	case r.WALLost:
		l.refuse = fmt.Sprintf("a restore fails: replication slot %s of Postgres CDC source %s has wal_status lost (the WAL it needs was removed, max_slot_wal_keep_size): streaming from it fails", slot, label)
		return nil
	case r.Ahead:
		l.lower(resume.DataLoss)
		l.warnings = append(l.warnings, resume.Warnf(WarnSourceDataLoss, "data loss: %s: Postgres CDC source %s continues at lsn %s, but slot %s already confirmed %s: PostgreSQL forwards the restored stream to confirmed_flush_lsn (\"has been already streamed, forwarding to …\"), skipping the changes in between",
			name, label, pp.LSN, slot, pc.ConfirmedFlushLSN))
	}
	why := fmt.Sprintf("%s: Postgres CDC source %s continues at lsn %s: slot %s confirmed %s (wal_status %s, active %v)", name, label, pp.LSN, slot, pc.ConfirmedFlushLSN, orNone(st.WALStatus), st.Active)
	if st.SafeWALSize != nil {
		why += fmt.Sprintf("; safe_wal_size %d bytes: the slot loses its WAL once that much more WAL is written before it advances (a size, not a time)", *st.SafeWALSize)
	} else {
		why += "; safe_wal_size unlimited (max_slot_wal_keep_size -1): the slot keeps its WAL"
	}
	l.reasons = append(l.reasons, why)
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "not reported"
	}
	return s
}

// mysql checks a Flink CDC MySQL source's binlog position against the
// server: the file must still be listed by SHOW BINARY LOGS and, on MySQL
// with GTIDs, gtid_purged must be within the position's GTID set
// (StatefulTaskContext.isBinlogAvailable); otherwise the restore fails and
// the snapshot is refused. On MariaDB (no gtid_purged, domain-server-seq
// GTIDs) only the file is checked, with a warning. The position stays
// available until its event time plus binlog_expire_logs_seconds.
func (l *liveResult) mysql(ctx context.Context, srv livecheck.MySQLBinlogs, name, label string, src *sourcestate.Source, sc *SourceCheck) error {
	mp, _, err := src.MySQL.Position()
	if err != nil || mp.File == "" && mp.GTIDs == "" {
		why := "its position names no binlog file or GTID set"
		if err != nil {
			why = err.Error()
		}
		l.warnings = append(l.warnings, resume.Warnf(WarnSourceNotChecked, "%s: MySQL CDC source %s not checked against the server: %s", name, label, why))
		return nil
	}
	res, err := livecheck.CheckMySQL(ctx, srv, livecheck.MySQLPosition{File: mp.File, Pos: mp.Pos, GTIDs: mp.GTIDs, TsSec: mp.TsSec})
	if err != nil {
		return fmt.Errorf("flinkckpt: %s: MySQL CDC source %s: %w", name, label, err)
	}
	b := res.MySQL.Server
	mc := &MySQLCheck{File: mp.File, Pos: mp.Pos, GTIDs: mp.GTIDs, Files: b.Files, MariaDB: b.MariaDB, Available: res.MySQL.Available}
	sc.MySQL, sc.Checked = mc, true
	gtidChecked := res.MySQL.GTIDChecked
	at := fmt.Sprintf("{file=%s, pos=%d", mp.File, mp.Pos)
	if mp.GTIDs != "" {
		at += ", gtids=" + mp.GTIDs
	}
	at += "}"
	if !mc.Available {
		first := "none"
		if len(b.Files) > 0 {
			first = b.Files[0]
		}
		l.refuse = fmt.Sprintf("a restore fails: MySQL CDC source %s continues at binlog %s, which the server purged (oldest binary log %s): Flink CDC fails with \"The connector is trying to read binlog starting at %s, but this is no longer available on the server. Reconfigure the connector to use a snapshot when needed.\"",
			label, at, first, at)
		return nil
	}
	if res.MySQL.GTIDUnchecked {
		l.warnings = append(l.warnings, resume.Warnf(WarnMariaDBGTIDs, "%s: MySQL CDC source %s on MariaDB: only the binlog file %s was checked, not the GTID set %s (MariaDB has no gtid_purged, and its domain-server-seq GTIDs are not MySQL's)", name, label, mp.File, mp.GTIDs))
	}
	why := fmt.Sprintf("%s: MySQL CDC source %s continues at binlog %s: the server (%s) still holds %s", name, label, at, b.Version, mp.File)
	if gtidChecked {
		why += " and gtid_purged is within the position's GTID set"
	}
	l.reasons = append(l.reasons, why)
	l.valid(res.ValidUntil, res.ValidWhy)
	return nil
}
