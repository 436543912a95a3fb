package flinkckpt

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

// maxRunProbes bounds the attribute calls spent ordering one job dir's
// runs; runs beyond it keep id order, after the timed ones.
const maxRunProbes = 16

// run is a stretch of a job dir's checkpoint ids without gaps.
type run struct {
	ids []int64   // newest first
	mod time.Time // _metadata time of its newest readable checkpoint (zero: none found)
	at  int64     // the id that time is of
	// empty: every id was probed and none has a _metadata (checkpoints in
	// progress, failed or being deleted): nothing in it to restore.
	empty bool
}

// runOrder records how a job dir's ids were reordered, for the warning.
type runOrder struct {
	newest, highest run // the run now first, and the one with the highest ids
}

// orderRuns orders the ids of every job dir with a gap in its ids by run:
// the ids split into runs at gaps, and when there is more than one, the
// _metadata modification time of each run's newest checkpoint (one
// attribute call, trying up to three ids of the run when one has no
// _metadata) orders the runs, newest first; ids within a run stay newest
// first. Within a job dir a higher id is usually newer, but a run restored
// from a savepoint continues from the savepoint's id (so its checkpoints
// sit below the old run's), and a run that lost its HA store restarts at 1:
// ids alone are not time order. The runs of all job dirs are probed
// concurrently, at most conc at once; it returns the attribute calls made.
func orderRuns(ctx context.Context, b *blob.Bucket, jobs []*jobDir, conc int) (int, error) {
	type probe struct {
		job  *jobDir
		runs []run
		i    int // the run probed
	}
	var probes []*probe
	runsOf := map[*jobDir][]run{}
	for _, j := range jobs {
		var runs []run
		for i, id := range j.ids { // newest first
			if i == 0 || id < j.ids[i-1]-1 {
				runs = append(runs, run{})
			}
			runs[len(runs)-1].ids = append(runs[len(runs)-1].ids, id)
		}
		if len(runs) < 2 {
			continue
		}
		runsOf[j] = runs
		for i := range runs[:min(len(runs), maxRunProbes)] {
			probes = append(probes, &probe{job: j, runs: runs, i: i})
		}
	}
	calls := make([]int, len(probes))
	err := parallel(ctx, len(probes), conc, func(k int) error {
		p := probes[k]
		r := &p.runs[p.i]
		for _, id := range r.ids[:min(3, len(r.ids))] {
			calls[k]++
			key := fmt.Sprintf("%schk-%d/_metadata", p.job.key, id)
			a, err := b.Attributes(ctx, key)
			if gcerrors.Code(err) == gcerrors.NotFound {
				continue
			}
			if err != nil {
				return fmt.Errorf("flinkckpt: attributes of %s: %w", redact.QuoteKey(key), err)
			}
			r.mod, r.at = a.ModTime, id
			return nil
		}
		r.empty = len(r.ids) <= 3
		return nil
	})
	total := 0
	for _, n := range calls {
		total += n
	}
	if err != nil {
		return total, err
	}
	for j, runs := range runsOf {
		sortRuns(j, runs)
	}
	return total, nil
}

// sortRuns puts a job dir's runs in time order and its ids in that order.
// Runs without any _metadata (a checkpoint in progress or failed above a
// gap a failed checkpoint left) come first, as an incomplete newest
// checkpoint does without a gap: they are only listed as skipped. Runs
// whose time is unknown for another reason (not probed, or no _metadata
// among the ids probed) come last. Only the timed runs tell whether ids
// are out of time order.
func sortRuns(j *jobDir, runs []run) {
	class := func(r run) int {
		switch {
		case r.empty:
			return 0
		case !r.mod.IsZero():
			return 1
		}
		return 2
	}
	var highest *run // the timed run with the highest ids
	for i := range runs {
		if class(runs[i]) == 1 {
			h := runs[i]
			highest = &h
			break
		}
	}
	sort.SliceStable(runs, func(a, b int) bool {
		ra, rb := runs[a], runs[b]
		switch ca, cb := class(ra), class(rb); {
		case ca != cb:
			return ca < cb
		case ca == 1 && !ra.mod.Equal(rb.mod):
			return ra.mod.After(rb.mod)
		}
		return ra.ids[0] > rb.ids[0]
	})
	for _, r := range runs {
		if class(r) == 1 {
			if r.ids[0] != highest.ids[0] {
				j.runs = &runOrder{newest: r, highest: *highest}
			}
			break
		}
	}
	j.ids = j.ids[:0]
	for _, r := range runs {
		j.ids = append(j.ids, r.ids...)
	}
}

// restartedRunWarning says that the chosen checkpoint's job dir had its
// ids reordered by run.
func restartedRunWarning(best *snap, j *jobDir) (resume.Warning, bool) {
	if j == nil || j.runs == nil || best.savepoint {
		return resume.Warning{}, false
	}
	o := j.runs
	return resume.Warnf(WarnRestartedRun, "in job dir %s a lower checkpoint id is newer than a higher one (chk-%d written %s, chk-%d written %s): a restarted run continued from its savepoint's id, or started again at 1 after losing its HA store, so ids are not time order here; %s is of the newest run",
		j.key, o.newest.at, o.newest.mod.UTC().Format(time.RFC3339), o.highest.at, o.highest.mod.UTC().Format(time.RFC3339), best.name()), true
}

// lineageWarnings are the warnings about the chosen snapshot's place in its
// job's lineage: savepoints it outranks by id though they look newer, a
// savepoint taken while its job kept running when that job checkpointed on,
// and a _metadata whose id is not its dir's.
func lineageWarnings(best *snap, heads []*snap, jobs []*jobDir) []resume.Warning {
	var out []resume.Warning
	for _, h := range heads {
		if h != best && supersedes(best, h) && h.mod.After(best.mod) {
			out = append(out, resume.Warnf(WarnLineageOverTime, "%s (checkpoint %d) has a newer _metadata modification time (%s) than %s (%s), but it is a savepoint of the same job with a lower checkpoint id: within one job the id order decides (copies reset modification times)",
				h.name(), h.id, tsMilli(h.mod), best.name(), tsMilli(best.mod)))
		}
	}
	if best.savepoint && best.md.Action == metadata.ActionNone {
		if p := savepointPrefix(best.key); p != "" {
			for _, j := range jobs {
				if !strings.HasPrefix(j.job, p) || len(j.ids) == 0 || maxID(j.ids) <= best.id {
					continue
				}
				out = append(out, resume.Warnf(WarnSavepointWhileRunning, "%s was taken while its job kept running (post-checkpoint action NONE), and job dir %s holds later checkpoints (up to chk-%d): restoring the savepoint rolls back past them, and a transactional sink restores the transactions pending at the savepoint, which the running job may have aborted and replaced — output that never happened in the later run may be committed",
					best.name(), j.key, maxID(j.ids)))
				break
			}
		}
	}
	if best.dirID >= 0 && best.dirID != best.md.CheckpointID {
		out = append(out, resume.Warnf(WarnCheckpointIDMismatch, "%s's _metadata records checkpoint id %d, not %d as its dir name says: copied by hand from another chk dir? Flink restores the id the _metadata records",
			lastSegment(best.key), best.md.CheckpointID, best.dirID))
	}
	return out
}

func maxID(ids []int64) int64 {
	m := ids[0]
	for _, id := range ids {
		m = max(m, id)
	}
	return m
}
