package paimon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/resumekit/resumekit/resume"
)

// A rollback (the rollback_to, rollback_to_timestamp and
// rollback_to_watermark procedures; RollbackHelper.cleanLargerThan) deletes
// the snapshots after the retained one and moves LATEST back; consumer
// files are left alone. The next commits reuse the ids. A consumer that had
// passed them keeps its nextSnapshot n, and Paimon starts there
// (ContinuousFromSnapshotStartingScanner): the re-committed ids below n hold
// data the job never read, and never will.
//
// The sign is a snapshot below n committed after the consumer file was last
// written (the Flink source rewrites it on every completed checkpoint,
// DataTableStreamScan.notifyCheckpointComplete, so its modification time is
// the job's last progress). It is blind when the old job kept running after
// the rollback: it went on rewriting the file while waiting for snapshot n.

// rollbackStart finds k, the lowest id in [floor, last.ID] committed after
// t, given that last was. Commit times are taken to grow with ids (as
// SnapshotManager's time searches take them to): the ids a rollback
// re-committed sit above those it kept. It gallops down from last.ID (ids
// last-1, last-2, last-4, …) until an id committed at or before t, the
// floor, or an id that is gone (expired meanwhile, which counts as the
// floor), then bisects the gap. With d = last.ID-k+1 re-committed ids it
// reads at most 2*ceil(log2(d+1)) files, whatever the table's size.
// atFloor is true when no id committed at or before t was found below k.
func (x *resolution) rollbackStart(ctx context.Context, t time.Time, last *Snapshot, floor, earliest int64, changelogs bool) (k int64, first *Snapshot, atFloor bool, err error) {
	k, first = last.ID, last
	lo := floor - 1 // the highest id known not to be after t, or gone
	atFloor = true
	probe := func(id int64) (after bool, gone bool, err error) {
		s, err := x.readAny(ctx, id, earliest, changelogs)
		if err != nil {
			if errors.Is(err, ErrSnapshotNotFound) {
				return false, true, nil
			}
			return false, false, err
		}
		if s.Time.After(t) {
			k, first = id, s
			return true, false, nil
		}
		return false, false, nil
	}
	visit := func(id int64) (bool, error) {
		after, gone, err := probe(id)
		if err != nil || after {
			return after, err
		}
		lo = id
		if !gone {
			atFloor = false
		}
		return false, nil
	}
	for step := int64(1); k-lo > 1; {
		if step >= k-lo {
			break // the gallop reached the floor: bisect what is left
		}
		after, err := visit(k - step)
		if err != nil {
			return 0, nil, false, err
		}
		if !after {
			break
		}
		if step <= (k-lo)/2 {
			step *= 2
		}
	}
	for k-lo > 1 {
		if _, err := visit(lo + (k-lo)/2); err != nil {
			return 0, nil, false, err
		}
	}
	return k, first, atFloor, nil
}

// rolledBack grades a consumer whose last consumed id, last (n-1), was
// committed after the consumer file was last written: possible loss of the
// re-committed ids k..n-1, with k offered as the replay start.
func (x *resolution) rolledBack(ctx context.Context, c *Consumer, pos Position, last *Snapshot, floor, earliest int64, cfg tableConfig) (resume.Candidate, error) {
	n := c.NextSnapshot
	k, first, atFloor, err := x.rollbackStart(ctx, c.ModTime, last, floor, earliest, cfg.readsChangelog)
	if err != nil {
		return resume.Candidate{}, err
	}
	kind := "snapshot"
	if k < earliest {
		kind = "changelog"
	}
	pos.ReplayFrom = k
	x.reason("snapshot-%d was committed at %s, after the consumer file was last written (%s): ids the consumer had passed were committed again", n-1, fmtTime(last.Time), fmtTime(c.ModTime))
	x.reason("%s-%d (committed at %s) is the lowest id committed after the consumer's last progress", kind, k, fmtTime(first.Time))
	if atFloor && k > 1 {
		x.reason("ids below %d were not examined (expired, or kept only as long-lived changelogs): they may have been committed again after the consumer's last progress too", k)
	}
	x.reason("At is the consumer file's modification time, its last progress: the commit time of what it last read is gone with the rollback")
	ids := fmt.Sprintf("snapshots %d..%d were", k, n-1)
	if k == n-1 {
		ids = fmt.Sprintf("snapshot %d was", k)
	}
	if cfg.ignoreProgress {
		// Paimon does not start from the consumer file: the launch's
		// scan.snapshot-id does, and it names k.
		pos.NextSnapshot = k
		if k >= earliest {
			pos.ResetConsumerSQL = ResetConsumerSQL(x.t.SQLName(), x.r.id, k)
		}
		x.warn(WarnRollbackSuspected, "%s committed after the consumer's last progress (its file was last written at %s; %s-%d at %s): a rollback most likely committed again ids the job had already passed; with %s=true the launch starts at scan.snapshot-id=%d, so they are read: replay",
			ids, fmtTime(c.ModTime), kind, k, fmtTime(first.Time), OptConsumerIgnoreProgress, k)
		x.consumerWarnings(c, cfg, pos)
		return x.candidate(pos, resume.Replay, c.ModTime), nil
	}
	var advice string
	if k >= earliest {
		pos.ResetConsumerSQL = ResetConsumerSQL(x.t.SQLName(), x.r.id, k)
		advice = fmt.Sprintf("reset the consumer to %d before starting the job (ResetConsumer, or %s) and it reads them again", k, pos.ResetConsumerSQL)
	} else {
		pos.ResetConsumerSQL = deleteConsumerSQL(x.t.SQLName(), x.r.id)
		advice = fmt.Sprintf("id %d exists only as a long-lived changelog, which reset_consumer refuses: delete the consumer (%s) and start the job promptly with the launch's scan.snapshot-id=%d to read them", k, pos.ResetConsumerSQL, k)
	}
	x.warn(WarnRollbackSuspected, "possible loss: %s committed after the consumer's last progress (its file was last written at %s; %s-%d at %s): a rollback (rollback_to, rollback_to_timestamp, rollback_to_watermark) most likely committed again ids the job had already passed, and Paimon starts at nextSnapshot %d and never reads them; %s. (A writer clock running ahead of the store's clock would look the same.)",
		ids, fmtTime(c.ModTime), kind, k, fmtTime(first.Time), n, advice)
	x.consumerWarnings(c, cfg, pos)
	return x.candidate(pos, resume.DataLoss, c.ModTime), nil
}

// deleteConsumerSQL is the reset_consumer call without an id, which deletes
// the consumer.
func deleteConsumerSQL(table, id string) string {
	return fmt.Sprintf("CALL sys.reset_consumer(%s, %s)", sqlString(table), sqlString(id))
}
