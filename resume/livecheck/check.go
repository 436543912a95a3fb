package livecheck

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Systems, as [Result.System] names them.
const (
	SystemKafka     = "kafka"
	SystemPaimon    = "paimon"
	SystemMySQL     = "mysql"
	SystemPostgres  = "postgres"
	SystemKafkaSink = "kafka-sink"
)

// Result is what one check of a position against the live system that
// serves it found: one type for every system, for sources and sinks. The
// check says what the system holds and what is gone; the caller (a
// restore, a salvaged start, a committed-offsets start) decides what that
// means for its launch.
type Result struct {
	// System is one of the System constants.
	System string
	// Checked: the system was asked and answered.
	Checked bool
	// ValidUntil is the earliest moment the position may stop being
	// readable (retention, binlog expiry, a transaction's timeout); the
	// zero time when unknown or unlimited. ValidWhy says why (also when
	// ValidUntil is zero: then why it is unknown); ValidAssumed says it
	// rests on an assumed setting, not on the system's answer.
	ValidUntil   time.Time
	ValidWhy     string
	ValidAssumed bool

	// Exactly one of these holds the system's facts.
	Kafka    []KafkaPartition
	Paimon   *PaimonRange
	MySQL    *MySQLBinlog
	Postgres *PostgresSlotCheck
	Sink     *KafkaSinkCheck
}

// valid keeps the earliest moment; a zero one only when nothing else is
// known.
func (r *Result) valid(until time.Time, why string) {
	switch {
	case why == "":
	case until.IsZero():
		if r.ValidUntil.IsZero() && r.ValidWhy == "" {
			r.ValidWhy = why
		}
	case r.ValidUntil.IsZero() || until.Before(r.ValidUntil):
		r.ValidUntil, r.ValidWhy = until, why
	}
}

// KafkaPosition is one Kafka partition's next offset to read, or a marker
// (MarkerEarliest, MarkerLatest, MarkerCommitted).
type KafkaPosition struct {
	Topic     string
	Partition int32
	Offset    int64
}

// KafkaPartition is one partition as [CheckKafka] found it.
type KafkaPartition struct {
	KafkaPosition
	// LogStart and LogEnd are the partition's log start and end offsets.
	LogStart, LogEnd int64
	// Commit is the group's committed offset substituted for
	// MarkerCommitted (nil when none was asked or found).
	Commit *int64
	// NoCommit: MarkerCommitted, the group was asked and has no commit of
	// the partition: nothing is known to have been read of it (Start then
	// counts, unresolved, what the earliest marker would have lost).
	NoCommit bool
	// Start is the Kafka start rule's verdict ([KafkaStart]) on the offset
	// (or the commit): where the partition starts today and what is lost.
	Start Kafka
}

// Concrete reports whether the partition has an offset to start from
// today: an offset, or a marker resolved against the log.
func (p KafkaPartition) Concrete() bool {
	return p.Offset >= 0 || p.Start.Resolved
}

// CheckKafka checks Kafka positions against the live log by the Kafka start
// rule ([KafkaStart]): per topic one LogOffsets call, the group's commits
// for committed markers when group is set and log implements KafkaCommits,
// and the retention of every concrete start when log implements
// KafkaRetention. An offset above the end offset is an error wrapping
// ErrAboveEnd. Errors name the topic or partition; the caller adds what
// the position is.
func CheckKafka(ctx context.Context, log KafkaLog, group string, ps []KafkaPosition) (Result, error) {
	return CheckKafkaAt(ctx, log, group, ps, time.Time{})
}

// CheckKafkaAt is [CheckKafka] for the positions of a snapshot taken at
// snapshotAt: when log implements KafkaTimes, a partition at the latest
// marker is resolved against that time ([KafkaLatestAt]: the records
// written since, which the restored reader skips, are lost). A zero
// snapshotAt, or a log without KafkaTimes, grades it by [KafkaStart].
func CheckKafkaAt(ctx context.Context, log KafkaLog, group string, ps []KafkaPosition, snapshotAt time.Time) (Result, error) {
	res := Result{System: SystemKafka}
	var topics []string
	for _, p := range ps {
		if !slices.Contains(topics, p.Topic) {
			topics = append(topics, p.Topic)
		}
	}
	commits, _ := log.(KafkaCommits)
	ret, _ := log.(KafkaRetention)
	times, _ := log.(KafkaTimes)
	if snapshotAt.IsZero() {
		times = nil
	}
	for _, topic := range topics {
		var parts, committed, latest []int32
		for _, p := range ps {
			if p.Topic == topic {
				parts = append(parts, p.Partition)
				switch p.Offset {
				case MarkerCommitted:
					committed = append(committed, p.Partition)
				case MarkerLatest:
					latest = append(latest, p.Partition)
				}
			}
		}
		start, end, err := log.LogOffsets(ctx, topic, parts)
		if err != nil {
			return res, fmt.Errorf("check topic %s: %w", topic, err)
		}
		var groupOffsets map[int32]int64
		asked := len(committed) > 0 && commits != nil && group != ""
		if asked {
			groupOffsets, err = commits.CommittedOffsets(ctx, group, topic, committed)
			if err != nil {
				return res, fmt.Errorf("committed offsets of group %s on topic %s: %w", group, topic, err)
			}
		}
		var atSnapshot map[int32]int64
		if times != nil && len(latest) > 0 {
			atSnapshot, err = times.OffsetsAt(ctx, topic, latest, snapshotAt)
			if err != nil {
				return res, fmt.Errorf("offsets of topic %s at the snapshot's time %s: %w", topic, snapshotAt.UTC().Format(time.RFC3339), err)
			}
		}
		starts, ends := map[int32]int64{}, map[int32]int64{}
		for _, p := range ps {
			if p.Topic != topic {
				continue
			}
			ls, ok1 := start[p.Partition]
			le, ok2 := end[p.Partition]
			if !ok1 || !ok2 {
				return res, fmt.Errorf("%s/%d: no log offsets listed", topic, p.Partition)
			}
			kp := KafkaPartition{KafkaPosition: p, LogStart: ls, LogEnd: le}
			next := p.Offset
			if p.Offset == MarkerCommitted && asked {
				if o, ok := groupOffsets[p.Partition]; ok {
					kp.Commit, next = &o, o
				} else {
					// No commit (an async commit never sent): a partition
					// nothing is known to have been read of, graded by the
					// earliest marker, left unresolved.
					kp.NoCommit = true
					v, _ := KafkaStart(MarkerEarliest, ls, le)
					kp.Start = Kafka{Offset: MarkerCommitted, Lost: v.Lost, UpTo: v.UpTo}
					res.Kafka = append(res.Kafka, kp)
					continue
				}
			}
			v, err := KafkaStart(next, ls, le)
			if o, ok := atSnapshot[p.Partition]; ok && next == MarkerLatest {
				v = KafkaLatestAt(o, ls, le)
			}
			if err != nil {
				return res, fmt.Errorf("%s/%d: the snapshot's next offset %d is above today's end offset %d: was the topic recreated or truncated? %w", topic, p.Partition, next, le, err)
			}
			if kp.Commit != nil {
				v.Resolved = true
			}
			kp.Start = v
			if kp.Concrete() {
				starts[p.Partition], ends[p.Partition] = v.Offset, le
			}
			res.Kafka = append(res.Kafka, kp)
		}
		if ret != nil && len(starts) > 0 {
			until, why, err := ret.ValidUntil(ctx, topic, starts, ends)
			if err != nil {
				return res, fmt.Errorf("retention of topic %s: %w", topic, err)
			}
			res.valid(until, why)
		}
	}
	res.Checked = true
	return res, nil
}

// PaimonRange is a Paimon position checked against its table.
type PaimonRange struct {
	Table string
	// Next is the position's next snapshot; Earliest and Latest the
	// table's readable range.
	Next, Earliest, Latest int64
	// Expired: snapshots Next..Earliest-1 expired before they were read.
	Expired bool
}

// CheckPaimon checks a Paimon next snapshot against the table's readable
// range: above latest+1 is an error (the table was recreated), below the
// earliest is Expired. The retention (PaimonRetention) is asked for the
// snapshot the read starts at (max(next, earliest)).
func CheckPaimon(ctx context.Context, t PaimonTable, next int64) (Result, error) {
	res := Result{System: SystemPaimon}
	earliest, latest, err := t.SnapshotRange(ctx)
	if err != nil {
		return res, fmt.Errorf("check table %s: %w", t.SQLName(), err)
	}
	if next > latest+1 {
		return res, fmt.Errorf("the snapshot's next snapshot %d is above the latest snapshot %d of %s + 1: was the table recreated?", next, latest, t.SQLName())
	}
	pr := &PaimonRange{Table: t.SQLName(), Next: next, Earliest: earliest, Latest: latest, Expired: next < earliest}
	res.Paimon, res.Checked = pr, true
	if ret, ok := t.(PaimonRetention); ok {
		until, why, err := ret.ValidUntil(ctx, max(next, earliest))
		if err != nil {
			return res, fmt.Errorf("retention of table %s: %w", t.SQLName(), err)
		}
		res.valid(until, why)
	}
	return res, nil
}

// MySQLPosition is a Flink CDC MySQL binlog position.
type MySQLPosition struct {
	File  string
	Pos   int64
	GTIDs string
	// TsSec is the event time of the position (0 when not recorded).
	TsSec int64
}

// MySQLBinlog is a MySQL binlog position checked against the server.
type MySQLBinlog struct {
	Server MySQLServer
	// Available: the server still holds the file and, on MySQL with
	// GTIDs, gtid_purged is within the position's GTID set
	// (StatefulTaskContext.isBinlogAvailable). GTIDChecked says the latter
	// was asked; GTIDUnchecked that the position has GTIDs the server
	// cannot check (MariaDB).
	Available, GTIDChecked, GTIDUnchecked bool
}

// CheckMySQL checks a binlog position against the server's binary logs
// and gtid_purged (MySQL; MariaDB has none: only the file is checked), and
// gives the position's expiry (event time + binlog_expire_logs_seconds).
func CheckMySQL(ctx context.Context, srv MySQLBinlogs, p MySQLPosition) (Result, error) {
	res := Result{System: SystemMySQL}
	b, err := srv.Binlogs(ctx)
	if err != nil {
		return res, fmt.Errorf("check the server's binary logs: %w", err)
	}
	mb := &MySQLBinlog{Server: b}
	res.MySQL, res.Checked = mb, true
	mb.Available = p.File == "" || slices.Contains(b.Files, p.File)
	if mb.Available && p.GTIDs != "" && !b.MariaDB && b.GTIDPurged != "" {
		ok, err := srv.GTIDSubset(ctx, b.GTIDPurged, p.GTIDs)
		if err != nil {
			return res, err
		}
		mb.Available, mb.GTIDChecked = ok, true
	}
	mb.GTIDUnchecked = b.MariaDB && p.GTIDs != ""
	switch {
	case b.ExpireSeconds > 0 && p.TsSec > 0:
		until := time.Unix(p.TsSec, 0).Add(time.Duration(b.ExpireSeconds) * time.Second).UTC()
		res.valid(until, fmt.Sprintf("valid until %s: mysql %s: the binlog event at the position has ts_sec %d (%s), and the server purges binary logs older than %s %d (%s)",
			until.Format(time.RFC3339), p.File, p.TsSec, time.Unix(p.TsSec, 0).UTC().Format(time.RFC3339), b.ExpireFrom, b.ExpireSeconds, time.Duration(b.ExpireSeconds)*time.Second))
	case b.ExpireSeconds > 0:
		res.valid(time.Time{}, fmt.Sprintf("valid until unknown: mysql %s: the position records no event time (ts_sec), and %s is %d", p.File, b.ExpireFrom, b.ExpireSeconds))
	}
	return res, nil
}

// PostgresSlotCheck is a WAL position checked against a replication slot.
type PostgresSlotCheck struct {
	Slot string
	// LSN is the position's.
	LSN int64
	// Exists: the server has the slot; State is its row.
	Exists bool
	State  PostgresSlot
	// WALLost: wal_status lost, streaming from the slot fails.
	WALLost bool
	// Ahead: the slot confirmed past LSN (PostgreSQL streams from
	// max(requested, confirmed_flush_lsn): the WAL in between is skipped);
	// Behind: it confirmed less (a start at the slot re-reads).
	Ahead, Behind bool
}

// CheckPostgres checks a WAL position against the replication slot named
// slot.
func CheckPostgres(ctx context.Context, srv PostgresSlots, slot string, lsn int64) (Result, error) {
	res := Result{System: SystemPostgres}
	st, ok, err := srv.Slot(ctx, slot)
	if err != nil {
		return res, fmt.Errorf("check slot %s: %w", slot, err)
	}
	pc := &PostgresSlotCheck{Slot: slot, LSN: lsn, Exists: ok, State: st}
	res.Postgres, res.Checked = pc, true
	if ok {
		pc.WALLost = st.WALStatus == "lost"
		pc.Ahead = st.ConfirmedFlushLSN > lsn
		pc.Behind = st.ConfirmedFlushLSN < lsn
	}
	return res, nil
}
