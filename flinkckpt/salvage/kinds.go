package salvage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/internal/quotecap"
	"github.com/resumekit/resumekit/internal/specificoffsets"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// kafka builds a Kafka source's start: the readers' next offsets, markers
// resolved against the live log (earliest: the log start, latest: the end
// offset, committed: the group's commit when Options.KafkaGroup names it
// and the checker can list commits), offsets below today's log start moved
// up to it and counted as lost, all by the Kafka start rule
// (livecheck.KafkaStart): an earliest marker on a log whose start is above
// 0 counts the offsets below it as lost (the old job read none of them).
func (x *resolution) kafka(ctx context.Context, label string, s *sourcestate.Source, out *Source) error {
	ps, notes := s.Kafka.Positions()
	if len(ps) == 0 {
		return fmt.Errorf("salvage: KafkaSource %s holds no partition: %w", label, resume.ErrNoPosition)
	}
	if len(notes) > 0 {
		x.warn(WarnSourceNotes, "KafkaSource %s: %s", label, quotecap.Join(notes, "; "))
	}
	var topics []string
	seen := map[string]bool{} // topics in first-seen order, one lookup per split
	for i, p := range ps {
		if i%4096 == 4095 && ctx.Err() != nil {
			return ctx.Err()
		}
		out.Kafka = append(out.Kafka, KafkaStart{Topic: p.Topic, Partition: p.Partition, Offset: p.Offset, Marker: p.Marker})
		if !seen[p.Topic] {
			seen[p.Topic] = true
			topics = append(topics, p.Topic)
		}
	}
	var lost, resolved, unresolved []string
	if log := x.r.o.live().Kafka; log != nil {
		in := make([]livecheck.KafkaPosition, len(out.Kafka))
		for i, k := range out.Kafka {
			in[i] = livecheck.KafkaPosition{Topic: k.Topic, Partition: k.Partition, Offset: k.Offset}
		}
		res, err := livecheck.CheckKafkaAt(ctx, log, x.r.o.KafkaGroup, in, x.c.At)
		if err != nil {
			return fmt.Errorf("salvage: KafkaSource %s: %w", label, err)
		}
		group := x.r.o.KafkaGroup
		for i := range out.Kafka {
			k, c := &out.Kafka[i], res.Kafka[i]
			ls, le := c.LogStart, c.LogEnd
			k.LogStart, k.LogEnd = &ls, &le
			v := c.Start
			switch {
			case c.NoCommit:
				// No commit (an async commit never sent): a partition
				// nothing is known to have been read of, graded by the
				// Kafka start rule's earliest marker as kafkaoffset grades
				// a partition without a commit: records deleted may never
				// have been read.
				if v.Lost > 0 {
					lost = append(lost, fmt.Sprintf("%s/%d: no commit of group %s, up to %s deleted, possibly never read", k.Topic, k.Partition, group, offsetsText(v.Lost)))
				}
				continue
			case k.Marker == sourcestate.MarkerCommitted && c.Commit == nil:
				continue
			case c.Commit != nil:
				resolved = append(resolved, fmt.Sprintf("%s/%d committed → group %s's commit %d", k.Topic, k.Partition, group, *c.Commit))
				if v.Lost > 0 {
					lost = append(lost, fmt.Sprintf("%s/%d: %d records (offsets %d..%d)", k.Topic, k.Partition, v.Lost, *c.Commit, ls-1))
				}
			case k.Marker == sourcestate.MarkerEarliest:
				// The old job had read nothing of the partition (a split
				// not started, or one the enumerator had not assigned):
				// records deleted below today's log start may never have
				// been read (livecheck.KafkaStart).
				resolved = append(resolved, fmt.Sprintf("%s/%d earliest → log start %d", k.Topic, k.Partition, ls))
				if v.Lost > 0 {
					lost = append(lost, fmt.Sprintf("%s/%d: earliest (the old job had read nothing of it), up to %s deleted, possibly never read", k.Topic, k.Partition, offsetsText(v.Lost)))
				}
			case k.Marker == sourcestate.MarkerLatest && v.Skipped:
				// A split still at the latest marker (KafkaSource before
				// FLINK-28303): the old job had read nothing of it, and
				// its reader seeks today's end; the records written since
				// the snapshot's time (its _metadata's modification time,
				// so at least these) are skipped (livecheck.KafkaLatestAt).
				resolved = append(resolved, fmt.Sprintf("%s/%d latest → end offset %d", k.Topic, k.Partition, le))
				lost = append(lost, fmt.Sprintf("%s/%d: latest (the old job had read nothing of it): %d records written since the snapshot (offsets %d..%d) skipped", k.Topic, k.Partition, v.Lost, v.LostFrom, le-1))
			case k.Marker == sourcestate.MarkerLatest:
				resolved = append(resolved, fmt.Sprintf("%s/%d latest → end offset %d", k.Topic, k.Partition, le))
			case v.Lost > 0:
				lost = append(lost, fmt.Sprintf("%s/%d: %d records (offsets %d..%d)", k.Topic, k.Partition, v.Lost, k.Offset, ls-1))
			}
			k.Offset, k.Lost = v.Offset, v.Lost
			k.Resolved = k.Marker != sourcestate.MarkerNone
		}
		for _, topic := range topics[:min(len(topics), quotecap.Max)] {
			x.reason("KafkaSource %s: topic %s checked against the live log: every partition's log start and end offset listed", label, topic)
		}
		if len(topics) > quotecap.Max {
			x.reason("KafkaSource %s: %d more topics checked against the live log likewise", label, len(topics)-quotecap.Max)
		}
		x.valid(res.ValidUntil, res.ValidWhy)
		out.Checked = true
	} else {
		x.warn(WarnNotChecked, "KafkaSource %s: offsets not checked against the live log (no Kafka brokers given): records below today's log start would be lost unnoticed", label)
	}
	for _, k := range out.Kafka {
		if k.Marker != sourcestate.MarkerNone && !k.Resolved {
			unresolved = append(unresolved, fmt.Sprintf("%s/%d (%s)", k.Topic, k.Partition, k.Marker))
		}
	}
	if len(lost) > 0 {
		x.grade(resume.DataLoss)
		x.warn(WarnDataLoss, "data loss: KafkaSource %s: records the old job had not read were deleted: %s; those partitions start at today's log start", label, quotecap.Join(lost, ", "))
	}
	if len(resolved) > 0 {
		x.warn(WarnResolvedMarker, "KafkaSource %s: partitions the old job had not started reading start where a restore would start them, resolved today: %s", label, quotecap.Join(resolved, ", "))
	}
	if len(unresolved) > 0 {
		x.grade(resume.Replay)
		why := "no live log check"
		if log := x.r.o.live().Kafka; log != nil {
			_, canList := log.(KafkaCommits)
			switch {
			case x.r.o.KafkaGroup == "":
				why = "committed markers: the old job's group is not known here (salvage.Options.KafkaGroup, --kafka-group)"
			case !canList:
				why = "committed markers: the Kafka checker cannot list the group's commits"
			default:
				why = "committed markers: group " + x.r.o.KafkaGroup + " has no commit for them"
			}
		}
		x.warn(WarnUnresolvedMarker, "KafkaSource %s: partitions the old job had not started reading have no offset to start from (%s): %s; they are left out of the specific offsets, so the connector starts them at the group's committed offset or by properties.auto.offset.reset — set it to earliest",
			label, why, quotecap.Join(unresolved, ", "))
	}
	var concrete []KafkaStart
	for _, k := range out.Kafka {
		if k.Marker == sourcestate.MarkerNone || k.Resolved {
			concrete = append(concrete, k)
		}
	}
	switch {
	case len(topics) == 1 && len(concrete) > 0:
		out.Options = map[string]string{
			"scan.startup.mode":             "specific-offsets",
			"scan.startup.specific-offsets": specificOffsets(concrete),
		}
	case len(topics) > 1:
		x.severalTopics(label, topics, concrete)
	}
	x.reason("KafkaSource %s: %s", label, dataStreamForm(concrete))
	return nil
}

// severalTopics grades a KafkaSource that read several topics by what its
// launch can deliver. Flink SQL's Kafka table takes
// scan.startup.specific-offsets only when it reads one topic (its
// partition:N,offset:M entries name no topic; the factory refuses the
// option otherwise), so the source gets no option: a job started with the
// launch starts where its table's scan.startup.mode says (group-offsets by
// default: the group's commits, which can be past the snapshot, or a
// failure without them). That start is unknown, and possible loss counts
// as loss. The warning gives the exact starts that remain: the DataStream
// form, or one table per topic with its own specific offsets.
func (x *resolution) severalTopics(label string, topics []string, concrete []KafkaStart) {
	x.grade(resume.DataLoss)
	// The starts grouped by topic in one pass (a map, not a scan of every
	// start per topic); the warning quotes the first quotecap.Max topics.
	byTopic := map[string][]KafkaStart{}
	for _, k := range concrete {
		byTopic[k.Topic] = append(byTopic[k.Topic], k)
	}
	var per []string
	for _, t := range topics {
		if len(per) == quotecap.Max {
			break
		}
		if ks := byTopic[t]; len(ks) > 0 {
			per = append(per, fmt.Sprintf("topic %s: scan.startup.specific-offsets=%s", t, specificOffsets(ks)))
		}
	}
	if n := len(byTopic) - len(per); n > 0 {
		per = append(per, quotecap.More(n)+" topics (the candidate's position lists every start)")
	}
	form := dataStreamForm(concrete[:min(len(concrete), quotecap.Max)])
	if n := len(concrete) - quotecap.Max; n > 0 {
		form += " (" + quotecap.More(n) + " partitions: the candidate's position lists every start)"
	}
	x.warn(WarnSeveralTopics, "KafkaSource %s read %d topics (%s): Flink SQL's Kafka table refuses scan.startup.specific-offsets unless it reads one topic (the option's entries name no topic), so the launch has no start for this source, and a job started with it starts where its table's scan.startup.mode says (group-offsets by default: the group's commits, which can be past the snapshot): possible loss, graded as loss. The offsets themselves are exact: start a DataStream KafkaSource with %s, or read each topic with its own table and scan.startup.mode=specific-offsets (%s)",
		label, len(topics), quotecap.Join(topics, ", "), strings.TrimPrefix(form, "DataStream: "), strings.Join(per, "; "))
}

// specificOffsets renders the scan.startup.specific-offsets value.
func specificOffsets(ks []KafkaStart) string {
	return specificoffsets.Format(ks, func(k KafkaStart) (int32, int64) { return k.Partition, k.Offset })
}

// dataStreamForm is the start for a DataStream KafkaSource.
func dataStreamForm(ks []KafkaStart) string {
	var b strings.Builder
	b.WriteString("DataStream: KafkaSource.builder().setStartingOffsets(OffsetsInitializer.offsets(Map.of(")
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "new TopicPartition(%s, %d), %dL", strconv.Quote(k.Topic), k.Partition, k.Offset)
	}
	b.WriteString(")))")
	if len(ks) > 10 {
		b.WriteString(" (Map.ofEntries for more than 10 partitions)")
	}
	return b.String()
}

// paimon builds a Paimon source's start: the smallest snapshot still to
// read, checked against the table's readable range.
func (x *resolution) paimon(ctx context.Context, label string, s *sourcestate.Source, out *Source) error {
	pp, ok, why := s.Paimon.Position()
	if !ok {
		return fmt.Errorf("salvage: Paimon source %s: %s: %w", label, why, resume.ErrNoPosition)
	}
	st := &PaimonStart{NextSnapshot: pp.NextSnapshot, Table: pp.Table, TableName: livecheck.PaimonTableName(pp.Table), Full: pp.Full, Exact: pp.Exact}
	out.Paimon = st
	if !pp.Exact {
		x.grade(resume.Replay)
		x.warn(WarnPartlyReadSnapshot, "Paimon source %s: snapshot %d was partly read (an unfinished split): the records of it already emitted are read again", label, pp.NextSnapshot)
	}
	sqlName := tableSQLName(pp.Table)
	if t := x.r.o.live().Paimon; t != nil && livecheck.PaimonMatches(t.SQLName(), pp.Table) {
		sqlName = t.SQLName()
		st.TableName = sqlName
		res, err := livecheck.CheckPaimon(ctx, t, pp.NextSnapshot)
		if err != nil {
			return fmt.Errorf("salvage: Paimon source %s: %w", label, err)
		}
		r := res.Paimon
		st.Earliest, st.Latest = &r.Earliest, &r.Latest
		if r.Expired {
			x.grade(resume.DataLoss)
			x.warn(WarnDataLoss, "data loss: Paimon source %s: snapshots %d..%d of %s expired before the job read them; the read starts at the earliest readable id %d",
				label, pp.NextSnapshot, r.Earliest-1, r.Table, r.Earliest)
			st.NextSnapshot, st.Expired = r.Earliest, pp.NextSnapshot
		}
		x.reason("Paimon source %s: table %s holds snapshots %d..%d", label, r.Table, r.Earliest, r.Latest)
		x.valid(res.ValidUntil, res.ValidWhy)
		out.Checked = true
	} else {
		x.warn(WarnNotChecked, "Paimon source %s: snapshot %d not checked against the table (no table given): expired snapshots would be lost unnoticed", label, pp.NextSnapshot)
	}
	mode := "from-snapshot"
	if pp.Full {
		mode = "from-snapshot-full"
		x.reason("Paimon source %s: snapshot %d is a split of the initial full read: scan.mode=from-snapshot-full", label, st.NextSnapshot)
	}
	out.Options = map[string]string{"scan.mode": mode, "scan.snapshot-id": strconv.FormatInt(st.NextSnapshot, 10)}
	if x.r.o.PaimonConsumer == "" && (len(s.Paimon.Monitor) > 0 || len(s.Paimon.LegacyNextSnapshots) > 0) {
		// A MonitorSource (consumer-id with consumer.mode exactly-once)
		// reads with a consumer: a new job that keeps its consumer-id
		// starts where the consumer file says, whatever scan.snapshot-id.
		// The consumer file follows every checkpoint the old job
		// completed (the source writes it in notifyCheckpointComplete):
		// past the salvaged snapshot, the snapshots between are skipped.
		// Unbound, nothing proves they are not: graded data-loss.
		x.grade(resume.DataLoss)
		x.warn(WarnConsumerOverrides, "Paimon source %s is a MonitorSource, which reads with a consumer-id: a new job that keeps that consumer-id starts where the table's consumer file says, not at scan.snapshot-id=%d, and the file follows every checkpoint the old job completed: where it stands past snapshot %d the snapshots between are skipped (data-loss, graded so until the consumer is bound); bind the consumer there first with CALL sys.reset_consumer('%s', '<consumer-id>', %d) (salvage.Options.PaimonConsumer, --paimon-consumer), or start without consumer-id",
			label, st.NextSnapshot, st.NextSnapshot, strings.ReplaceAll(sqlName, "'", "''"), st.NextSnapshot)
	}
	if id := x.r.o.PaimonConsumer; id != "" {
		st.ConsumerID = id
		st.ResetConsumerSQL = fmt.Sprintf("CALL sys.reset_consumer('%s', '%s', %d)", strings.ReplaceAll(sqlName, "'", "''"), strings.ReplaceAll(id, "'", "''"), st.NextSnapshot)
		out.Options["consumer-id"] = id
		x.reason("Paimon source %s: bind consumer %s before the job starts: %s", label, id, st.ResetConsumerSQL)
	}
	return nil
}

// tableSQLName derives db.table from a table dir …/<db>.db/<table>.
func tableSQLName(dir string) string {
	parts := strings.Split(strings.TrimSuffix(dir, "/"), "/")
	if n := len(parts); n >= 2 && strings.HasSuffix(parts[n-2], ".db") {
		return strings.TrimSuffix(parts[n-2], ".db") + "." + parts[n-1]
	}
	return "<db>.<table>"
}

// mysql builds a MySQL CDC source's start: the binlog split's position, or
// a new snapshot when the source was still in its snapshot phase.
func (x *resolution) mysql(ctx context.Context, label string, s *sourcestate.Source, out *Source) error {
	mp, notes, err := s.MySQL.Position()
	switch {
	case errors.Is(err, sourcestate.ErrSnapshotPhase):
		out.MySQL = &MySQLStart{SnapshotPhase: true}
		out.Options = map[string]string{"scan.startup.mode": "initial"}
		x.grade(resume.Replay)
		x.warn(WarnSnapshotPhase, "MySQL CDC source %s was still reading its tables' initial snapshot: there is no binlog position to continue from; it reads every table again (scan.startup.mode=initial)", label)
		return nil
	case err != nil:
		return fmt.Errorf("salvage: MySQL CDC source %s: %v: %w", label, err, resume.ErrNoPosition)
	}
	if len(notes) > 0 {
		x.warn(WarnSourceNotes, "MySQL CDC source %s: %s", label, strings.Join(notes, "; "))
	}
	out.MySQL = &MySQLStart{MySQLPosition: mp}
	o := map[string]string{}
	switch mp.Kind {
	case "", sourcestate.BinlogSpecific:
		o["scan.startup.mode"] = "specific-offset"
		if mp.File != "" {
			o["scan.startup.specific-offset.file"] = mp.File
			o["scan.startup.specific-offset.pos"] = strconv.FormatInt(mp.Pos, 10)
		}
		if mp.GTIDs != "" {
			o["scan.startup.specific-offset.gtid-set"] = mp.GTIDs
		}
		if mp.SkipEvents != 0 {
			o["scan.startup.specific-offset.skip-events"] = strconv.FormatInt(mp.SkipEvents, 10)
		}
		if mp.SkipRows != 0 {
			o["scan.startup.specific-offset.skip-rows"] = strconv.FormatInt(mp.SkipRows, 10)
		}
	case sourcestate.BinlogEarliest:
		o["scan.startup.mode"] = "earliest-offset"
	case sourcestate.BinlogLatest:
		o["scan.startup.mode"] = "latest-offset"
	case sourcestate.BinlogTimestamp:
		o["scan.startup.mode"] = "timestamp"
		o["scan.startup.timestamp-millis"] = strconv.FormatInt(mp.TsSec*1000, 10)
	default:
		return fmt.Errorf("salvage: MySQL CDC source %s: binlog offset of kind %s has no start: %w", label, mp.Kind, resume.ErrNoPosition)
	}
	out.Options = o
	srv := x.r.o.live().MySQL
	if srv == nil || mp.File == "" {
		x.warn(WarnNotChecked, "MySQL CDC source %s: binlog %s:%d not checked against the server: check it still holds that file (SHOW BINARY LOGS) or that gtid_purged is within the GTID set", label, mp.File, mp.Pos)
		return nil
	}
	res, err := livecheck.CheckMySQL(ctx, srv, livecheck.MySQLPosition{File: mp.File, Pos: mp.Pos, GTIDs: mp.GTIDs, TsSec: mp.TsSec})
	if err != nil {
		return fmt.Errorf("salvage: MySQL CDC source %s: %w", label, err)
	}
	b := res.MySQL.Server
	if !res.MySQL.Available {
		why := fmt.Sprintf("binlog file %s was purged (the server's oldest is %s)", mp.File, strings.Join(b.Files[:min(1, len(b.Files))], ""))
		if slices.Contains(b.Files, mp.File) {
			why = fmt.Sprintf("the server purged GTIDs the position's set %s lacks (gtid_purged %s)", mp.GTIDs, b.GTIDPurged)
		}
		return fmt.Errorf("salvage: MySQL CDC source %s: %s: a start there fails (\"The connector is trying to read binlog starting at …, but this is no longer available on the server\"); only a new snapshot (scan.startup.mode=initial) can start it: %w",
			label, why, resume.ErrNoPosition)
	}
	out.Checked = true
	x.reason("MySQL CDC source %s: the server (%s) still holds binlog %s", label, b.Version, mp.File)
	if res.MySQL.GTIDChecked {
		x.reason("MySQL CDC source %s: gtid_purged is within the position's GTID set", label)
	}
	if res.MySQL.GTIDUnchecked {
		x.warn(WarnNotChecked, "MySQL CDC source %s on MariaDB: only the binlog file was checked, not the GTID set %s", label, mp.GTIDs)
	}
	x.valid(res.ValidUntil, res.ValidWhy)
	return nil
}

// postgres builds a Flink CDC Postgres source's start: the stream split's
// WAL position, or a new snapshot while it was still in its snapshot
// phase. The connector has no specific-offset start (SOURCE-STATE.md
// §8.6): committed-offset (CDC 3.4+) starts at the slot's
// confirmed_flush_lsn, so the slot is advanced to the position first.
func (x *resolution) postgres(ctx context.Context, label string, s *sourcestate.Source, out *Source) error {
	pp, notes, err := s.Postgres.Position()
	switch {
	case errors.Is(err, sourcestate.ErrPostgresSnapshotPhase):
		out.Postgres = &PostgresStart{SnapshotPhase: true}
		out.Options = map[string]string{"scan.startup.mode": "initial", "scan.incremental.snapshot.enabled": "true"}
		x.grade(resume.Replay)
		x.warn(WarnSnapshotPhase, "Postgres CDC source %s was still reading its tables' initial snapshot: there is no WAL position to continue from; it reads every table again (scan.startup.mode=initial)", label)
		return nil
	case err != nil:
		return fmt.Errorf("salvage: Postgres CDC source %s: %v: %w", label, err, resume.ErrNoPosition)
	}
	if len(notes) > 0 {
		x.warn(WarnSourceNotes, "Postgres CDC source %s: %s", label, strings.Join(notes, "; "))
	}
	live := x.r.o.live()
	slot := live.PostgresSlot
	pp.Slot = slot
	if slot == "" {
		slot = "<slot>"
	}
	st := &PostgresStart{PostgresPosition: pp,
		AdvanceSlotSQL: fmt.Sprintf("SELECT pg_replication_slot_advance('%s', '%s')", strings.ReplaceAll(slot, "'", "''"), pp.LSN)}
	out.Postgres = st
	out.Options = map[string]string{"scan.startup.mode": "committed-offset", "scan.incremental.snapshot.enabled": "true", "slot.name": slot}
	// No option starts the connector at an LSN: the start is the slot's,
	// exact only when the slot is at the position (checked below, when a
	// server is given); otherwise a replay at best.
	if live.Postgres == nil || live.PostgresSlot == "" {
		x.grade(resume.Replay)
	}
	x.warn(WarnPostgresNoSpecificOffset, "Postgres CDC source %s continues at lsn %s, but the Postgres CDC connector has no scan.startup.specific-offset option (DataStream StartupOptions.specificOffset(Map) only from CDC 3.6): the launch starts at the slot's confirmed_flush_lsn (scan.startup.mode=committed-offset, CDC 3.4+); before starting, run %s: a slot behind the position re-reads (duplicates, graded replay), a slot already past it has lost the WAL in between for this slot (PostgreSQL streams from max(requested, confirmed_flush_lsn))",
		label, pp.LSN, st.AdvanceSlotSQL)
	if live.Postgres == nil || live.PostgresSlot == "" {
		x.warn(WarnNotChecked, "Postgres CDC source %s: lsn %s not checked against the server's replication slot (pg_replication_slots: confirmed_flush_lsn, wal_status)", label, pp.LSN)
		return nil
	}
	res, err := livecheck.CheckPostgres(ctx, live.Postgres, slot, pp.LSNValue())
	if err != nil {
		return fmt.Errorf("salvage: Postgres CDC source %s: %w", label, err)
	}
	out.Checked = true
	r := res.Postgres
	switch {
	case !r.Exists:
		x.grade(resume.DataLoss)
		x.warn(WarnDataLoss, "data loss: Postgres CDC source %s: the server has no replication slot %s: committed-offset starts at the current WAL position, skipping everything since lsn %s", label, slot, pp.LSN)
	case r.WALLost:
		return fmt.Errorf("salvage: Postgres CDC source %s: slot %s has wal_status lost: streaming from it fails: %w", label, slot, resume.ErrNoPosition)
	case r.Ahead:
		x.grade(resume.DataLoss)
		x.warn(WarnDataLoss, "data loss: Postgres CDC source %s: slot %s already confirmed %s, past lsn %s: the WAL in between is gone for this slot", label, slot, sourcestate.FormatLSN(r.State.ConfirmedFlushLSN), pp.LSN)
	case !r.Behind:
		x.reason("Postgres CDC source %s: slot %s confirmed exactly lsn %s: committed-offset starts there, no advance needed", label, slot, pp.LSN)
	default:
		x.grade(resume.Replay)
		x.reason("Postgres CDC source %s: slot %s confirmed %s, behind lsn %s: advance it first (%s) or the start re-reads the changes in between", label, slot, sourcestate.FormatLSN(r.State.ConfirmedFlushLSN), pp.LSN, st.AdvanceSlotSQL)
	}
	return nil
}

// offsetsText names the offsets 0..start-1 of a partition: offsets, not
// records, since control records of transactions take offsets too.
func offsetsText(start int64) string {
	if start == 1 {
		return "1 offset (0)"
	}
	return fmt.Sprintf("%d offsets (0..%d)", start, start-1)
}
