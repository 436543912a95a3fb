package flinkckpt

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

// notObservedAge is how young the newest _metadata may be before the
// candidate warns that the old job may still run: a running job completes
// a checkpoint every execution.checkpointing.interval, commonly a minute or
// less.
const notObservedAge = time.Minute

// observe waits Options.Observe, lists every location again and fails
// with a *StillRunningError when anything appeared that the first listings
// (first, one per location) did not have: a chk-<n> above a job dir's
// highest id, a job dir, a savepoint dir. A running job with
// execution.checkpointing.num-retained 1 deletes the checkpoint chosen now
// when it completes its next one. A location that is one chk-<n> dir shows
// nothing new while its job runs on: its job dir (the parent) is watched
// instead, listed before and after the window. A location of savepoints
// only says nothing about the job's checkpoints, and the reason says so.
func (r *Resolver) observe(ctx context.Context, first []*layout) (string, error) {
	type watch struct {
		lc     *loc
		prefix string
		where  string
		first  *layout
	}
	watches := make([]watch, len(r.locs))
	for i, lc := range r.locs {
		w := watch{lc: lc, prefix: lc.prefix, where: redact.QuoteKey(lc.prefix), first: first[i]}
		if _, ok := chkID(lastSegment(lc.prefix) + "/"); ok && w.first.direct && len(w.first.jobs) == 0 {
			w.prefix, w.where = parentDir(lc.prefix), "job dir "+redact.QuoteKey(parentDir(lc.prefix))
			var err error
			if w.first, err = discover(ctx, lc.bucket, w.prefix, r.opts.JobID, r.opts.Concurrency); err != nil {
				return "", err
			}
		}
		watches[i] = w
	}
	if err := r.opts.Wait(ctx, r.opts.Observe); err != nil {
		return "", fmt.Errorf("flinkckpt: observe %s: %w", r.where(), err)
	}
	var reasons []string
	for _, w := range watches {
		again, err := discover(ctx, w.lc.bucket, w.prefix, r.opts.JobID, r.opts.Concurrency)
		if err != nil {
			return "", err
		}
		if appeared := diffLayouts(w.first, again); len(appeared) > 0 {
			return "", &StillRunningError{Location: w.prefix, Window: r.opts.Observe, Appeared: appeared}
		}
		switch {
		case len(w.first.jobs) == 0 && len(w.first.savepoints) > 0:
			reasons = append(reasons, fmt.Sprintf("observed %s for %s: no new savepoint appeared; it holds no checkpoints, so this says nothing about whether the old job still runs", w.where, r.opts.Observe))
		case len(w.first.savepoints) > 0:
			reasons = append(reasons, fmt.Sprintf("observed %s for %s: no new checkpoint or savepoint appeared (the old job is not checkpointing)", w.where, r.opts.Observe))
		default:
			reasons = append(reasons, fmt.Sprintf("observed %s for %s: no new checkpoint appeared (the old job is not checkpointing)", w.where, r.opts.Observe))
		}
	}
	return strings.Join(reasons, "; "), nil
}

// Observe watches the resolver's locations for Options.Observe without
// choosing a snapshot: it lists them, waits (Options.Wait), lists them
// again and fails with a *StillRunningError when a checkpoint above a job
// dir's highest id, a job dir or a savepoint dir appeared — the old job
// still runs. It returns the reason that says what was watched, "" when
// Options.Observe is 0. Resolve observes on its own once it has chosen;
// Observe is for a snapshot chosen elsewhere (package salvage calls it for
// the one it is given).
func (r *Resolver) Observe(ctx context.Context) (string, error) {
	if r.opts.Observe <= 0 {
		return "", nil
	}
	layouts := make([]*layout, len(r.locs))
	for i, lc := range r.locs {
		l, err := discover(ctx, lc.bucket, lc.prefix, r.opts.JobID, r.opts.Concurrency)
		if err != nil {
			return "", wrapf(err, "flinkckpt: observe %s", r.where())
		}
		layouts[i] = l
	}
	reason, err := r.observe(ctx, layouts)
	if err != nil {
		var sr *StillRunningError
		if !errors.As(err, &sr) {
			err = wrapf(err, "flinkckpt: observe %s", r.where())
		}
	}
	return reason, err
}

// diffLayouts lists the keys of dirs in b that a did not have, counting
// only chk-<n> above a job dir's highest id in a.
func diffLayouts(a, b *layout) []string {
	high := map[string]int64{}
	for _, j := range a.jobs {
		high[j.key] = -1
		for _, id := range j.ids {
			high[j.key] = max(high[j.key], id)
		}
	}
	var out []string
	for _, j := range b.jobs {
		h, seen := high[j.key]
		for _, id := range j.ids {
			if !seen || id > h {
				out = append(out, fmt.Sprintf("%schk-%d/", j.key, id))
			}
		}
	}
	had := map[string]bool{}
	for _, s := range a.savepoints {
		had[s] = true
	}
	for _, s := range b.savepoints {
		if !had[s] {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// notObservedWarning warns when the newest _metadata under the location is
// younger than a minute and no observation window ran.
func (r *Resolver) notObservedWarning(newest *snap) (resume.Warning, bool) {
	if r.opts.Observe > 0 || newest == nil {
		return resume.Warning{}, false
	}
	age := r.opts.Now().Sub(newest.mod)
	if age >= notObservedAge {
		return resume.Warning{}, false
	}
	return resume.Warnf(WarnNotObserved, "the newest _metadata (%s, written %s) is younger than a minute: the old job may still be running, and with execution.checkpointing.num-retained 1 it deletes the chosen checkpoint at its next one; stop it first, or observe the location (Options.Observe, --flink-observe)",
		newest.name(), newest.mod.UTC().Format(time.RFC3339)), true
}

// fixedJobWarning warns about resubmitting under a fixed application-mode
// job id.
func fixedJobWarning(best *snap) (resume.Warning, bool) {
	if best.savepoint || !isFixedJobID(best.job) {
		return resume.Warning{}, false
	}
	// A job that reached a globally terminal state leaves its result in the
	// JobResultStore (FLIP-194) at job-result-store.storage-path (by
	// default <high-availability.storageDir>/job-result-store/<cluster id>):
	// until it is cleaned up (a dirty entry), or for good with
	// job-result-store.delete-on-commit: false, a submission under the same
	// job id is taken as already finished and not run
	// (DuplicateJobSubmissionException.isGloballyTerminated, tolerated by
	// ApplicationDispatcherBootstrap in application mode). The Kubernetes
	// operator sets delete-on-commit false but gives every deployment a
	// storage path of its own (FLINK-27569), so its redeployments are not
	// affected.
	return resume.Warnf(WarnFixedJobID, "%s is in job dir %s, application mode's fixed job id (HA on): a new deployment with the same high-availability.cluster-id gets the same job id, and if the old job reached a terminal state whose result is still in the JobResultStore at the same job-result-store.storage-path (a dirty entry whose cleanup did not finish, or a clean one kept by job-result-store.delete-on-commit: false) Flink takes the job as finished and does not run it — remove the entry or use a new cluster id",
		best.name(), best.job), true
}
