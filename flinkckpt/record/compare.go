package record

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/resume"
)

// Codes of the warnings a record's disagreement with storage adds (to its
// record source and to the chosen candidate).
const (
	// WarnBroken: the snapshot the record will restore is broken in
	// storage (or its HA pointer file is): Flink's recovery from it fails.
	WarnBroken = "record.broken"
	// WarnGone: the snapshot the record will restore is not in storage.
	WarnGone = "record.gone"
	// WarnOlder: the record will restore a snapshot older than the newest
	// restorable one: input and output after it are repeated.
	WarnOlder = "record.older"
	// WarnDiffers: the record will restore a complete snapshot other than
	// the chosen one (newer, or of another job).
	WarnDiffers = "record.differs"
	// WarnMissing: the record holds nothing to restore for the job.
	WarnMissing = "record.missing"
	// WarnJobRunning: a JobManager still runs the job.
	WarnJobRunning = "record.job-running"
	// WarnFinishedCleanly: the JobResultStore says the job finished
	// (SUCCEEDED): it cannot run on, and a stop-with-savepoint completed.
	WarnFinishedCleanly = "record.finished-cleanly"
	// WarnJobTerminal: the JobResultStore says the job failed or was
	// cancelled: HA recovery will not restart it.
	WarnJobTerminal = "record.job-terminal"
	// WarnSnapshotCleanup: the chosen snapshot is a FlinkStateSnapshot the
	// operator's history cleanup deletes.
	WarnSnapshotCleanup = "record.snapshot-cleanup"
	// WarnUnreadable: a record could not be read or is malformed; it was
	// not used.
	WarnUnreadable = "record.unreadable"
)

// Input is one record read for a decision. Exactly one of HA, JobResults
// (with JobResultsRead), REST or Operator is set, or Err says why the
// record could not be read.
type Input struct {
	Kind resume.RecordKind
	// Source names where it was read (redacted).
	Source string
	// Err is why the record could not be read.
	Err error

	HA             *HA
	JobResults     []JobResult
	JobResultsRead bool
	REST           *REST
	Operator       *Operator
}

// CompareOptions configure Compare.
type CompareOptions struct {
	// JobID is the job the decision is about; "" means the chosen
	// checkpoint's job, else the record's only job.
	JobID string
	// Storage looks up the snapshots records name; nil means no lookup
	// (what storage says is then "not looked up").
	Storage Storage
	// Cleanup is the operator's history cleanup configuration.
	Cleanup CleanupPolicy
	// Now is the time cleanup ages are measured at; zero means d.DecidedAt,
	// else the wall clock.
	Now time.Time
}

// Compare adds the decision's record section: what each record says will be
// restored, what storage says about that snapshot, and every disagreement as
// a coded warning, on the record source and on the chosen candidate (so a
// gate fails on it). It never changes the choice: a record is a second
// opinion, never trusted over storage. It makes one storage lookup per
// record that names a snapshot; it returns only the context's error.
func Compare(ctx context.Context, d *resume.Decision, inputs []Input, opts *CompareOptions) error {
	var o CompareOptions
	if opts != nil {
		o = *opts
	}
	if o.Now.IsZero() {
		o.Now = d.DecidedAt
		if o.Now.IsZero() {
			o.Now = time.Now()
		}
	}
	c := &comparer{d: d, o: o, chosen: chosenFlink(d)}
	if d.Record == nil {
		d.Record = &resume.Record{}
	}
	for _, in := range inputs {
		if err := ctx.Err(); err != nil {
			return err
		}
		s := resume.RecordSource{Kind: in.Kind, Source: in.Source}
		switch {
		case in.Err != nil:
			s.Err = in.Err
			s.Warnings = append(s.Warnings, resume.Warnf(WarnUnreadable, "%s %s could not be read, the decision stands on storage alone: %v", in.Kind, in.Source, in.Err))
		case in.HA != nil:
			c.ha(ctx, &s, in.HA)
		case in.JobResultsRead:
			c.jobResults(&s, in.JobResults)
		case in.REST != nil:
			c.rest(ctx, &s, in.REST)
		case in.Operator != nil:
			c.operator(ctx, &s, in.Operator)
		default:
			continue
		}
		if d.Chosen != nil {
			d.Chosen.Warnings = append(d.Chosen.Warnings, s.Warnings...)
		}
		d.Record.Sources = append(d.Record.Sources, s)
	}
	return ctx.Err()
}

type comparer struct {
	d      *resume.Decision
	o      CompareOptions
	chosen *flinkckpt.Position
}

// chosenFlink returns the chosen Flink snapshot, nil when the choice is
// none (or not a Flink snapshot).
func chosenFlink(d *resume.Decision) *flinkckpt.Position {
	if d.Chosen == nil {
		return nil
	}
	if p, err := flinkckpt.PositionOf(d.Chosen.Position); err == nil {
		return p
	}
	if all, err := resume.PositionAs[resume.Positions](d.Chosen.Position, resume.KindAll); err == nil {
		for _, part := range all.Parts {
			if p, err := flinkckpt.PositionOf(part.Position); err == nil {
				return p
			}
		}
	}
	return nil
}

func (c *comparer) jobID(only string) string {
	switch {
	case c.o.JobID != "":
		return c.o.JobID
	case c.chosen != nil && c.chosen.JobID != "":
		return c.chosen.JobID
	}
	return only
}

func (c *comparer) chosenText() string {
	if c.chosen == nil {
		return "nothing restorable was chosen"
	}
	if c.chosen.Path != "" {
		return fmt.Sprintf("the chosen %s (%s)", c.chosen, c.chosen.Path)
	}
	return "the chosen " + c.chosen.String()
}

// instead says what to do instead of letting a record restore a snapshot
// that fails.
func (c *comparer) instead(kind resume.RecordKind) string {
	what := "restore " + c.chosenText()
	if c.chosen == nil {
		what = "restore the newest restorable snapshot storage holds (resumectl resolve names it)"
	}
	switch kind {
	case resume.RecordFlinkHA:
		return "instead remove the job's HA entries (its ConfigMap or ZooKeeper node) and " + what + " with flink run -s"
	case resume.RecordK8sOperator:
		return "instead set the deployment's initialSavepointPath and " + what
	}
	return "instead " + what
}

// judge looks the record's snapshot up in storage and grades it against
// the choice: the storage line and the warnings of s.
func (c *comparer) judge(ctx context.Context, s *resume.RecordSource, ref Ref, who string) {
	chosenSame := c.chosen != nil && sameSnapshot(c.chosen, ref)
	if c.o.Storage == nil {
		s.Storage = "not looked up (no storage location given)"
		if c.chosen != nil && !chosenSame {
			s.Warnings = append(s.Warnings, resume.Warnf(WarnDiffers, "%s restores %s, not %s", who, refString(ref), c.chosenText()))
		}
		return
	}
	snap, found, err := c.o.Storage.Lookup(ctx, ref)
	switch {
	case err != nil && snap == nil:
		s.Storage = "could not be looked up: " + err.Error()
		if c.chosen != nil && !chosenSame {
			s.Warnings = append(s.Warnings, resume.Warnf(WarnDiffers, "%s restores %s, not %s", who, refString(ref), c.chosenText()))
		}
	case !found:
		s.Storage = "not in storage (deleted)"
		s.Warnings = append(s.Warnings, resume.Warnf(WarnGone, "%s restores %s, which is not in storage: its recovery fails; %s", who, refString(ref), c.instead(s.Kind)))
	case s.Kind == resume.RecordFlinkHA && snap.Metadata == nil && (snap.State == flinkckpt.StateBroken || snap.State == flinkckpt.StateIncomplete):
		// HA recovery reads the checkpoint's state handles from the HA
		// store's CompletedCheckpoint, not from _metadata (real Flink
		// restored a checkpoint with a truncated _metadata: conformance
		// F11): what storage cannot read is the restart path, not HA's.
		s.Storage = fmt.Sprintf("%s: %s", snap.State, snap.Reason)
		s.Warnings = append(s.Warnings, resume.Warnf(WarnDiffers, "%s restores %s from the HA store's own copy of its state handles (its files are not checked here); its _metadata is %s (%s), so once the HA entries are gone no restart with -s can use it; resumekit chose %s", who, refString(ref), snap.State, snap.Reason, c.chosenText()))
	case snap.State == flinkckpt.StateBroken || snap.State == flinkckpt.StateIncomplete:
		s.Storage = fmt.Sprintf("%s: %s", snap.State, snap.Reason)
		s.Warnings = append(s.Warnings, resume.Warnf(WarnBroken, "%s restores %s, which storage finds %s (%s): its recovery fails; %s", who, refString(ref), snap.State, snap.Reason, c.instead(s.Kind)))
	case chosenSame:
		s.Storage = fmt.Sprintf("%s (the chosen snapshot)", snap.State)
	case c.chosen != nil && olderThanChosen(c.chosen, snap, ref):
		s.Storage = string(snap.State)
		s.Warnings = append(s.Warnings, resume.Warnf(WarnOlder, "%s restores %s, older than %s: what the job did after it is read and written again", who, refString(ref), c.chosenText()))
	default:
		s.Storage = string(snap.State)
		if snap.Reason != "" {
			s.Storage += ": " + snap.Reason
		}
		if c.chosen != nil {
			s.Warnings = append(s.Warnings, resume.Warnf(WarnDiffers, "%s restores %s, not %s (see why it was not chosen under OTHERS)", who, refString(ref), c.chosenText()))
		}
	}
}

func sameSnapshot(p *flinkckpt.Position, ref Ref) bool {
	if ref.Path != "" && p.Path != "" && samePath(ref.Path, p.Path) {
		return true
	}
	if ref.Path != "" && ref.Savepoint {
		return p.Savepoint && lastName(ref.Path) == lastName(p.Key)
	}
	return !p.Savepoint && !ref.Savepoint && ref.JobID != "" && ref.JobID == p.JobID && ref.CheckpointID == p.CheckpointID
}

// olderThanChosen: the same job's lower checkpoint id, else an earlier time.
func olderThanChosen(p *flinkckpt.Position, snap *flinkckpt.Snapshot, ref Ref) bool {
	job := ref.JobID
	if job == "" {
		job = snap.JobID
	}
	id := ref.CheckpointID
	if id == 0 {
		id = snap.CheckpointID
	}
	if job != "" && job == p.JobID && id != 0 {
		return id < p.CheckpointID
	}
	if snap.Metadata != nil && snap.Metadata.CheckpointID != 0 && snap.Metadata.CheckpointID < p.CheckpointID && job == p.JobID {
		return true
	}
	return false
}

func lastName(p string) string {
	p = strings.TrimSuffix(p, "/")
	return p[strings.LastIndexByte(p, '/')+1:]
}

// samePath compares two Flink URIs: file:/x and file:///x are one; s3a and
// s3 name the same bucket; a trailing slash does not matter.
func samePath(a, b string) bool {
	norm := func(s string) string {
		u, err := url.Parse(strings.TrimSuffix(s, "/"))
		if err != nil {
			return s
		}
		return scheme(u.Scheme) + "://" + u.Host + "/" + strings.TrimPrefix(u.Path, "/")
	}
	return norm(a) == norm(b)
}

func (c *comparer) ha(ctx context.Context, s *resume.RecordSource, h *HA) {
	only := ""
	if len(h.Jobs) == 1 {
		only = h.Jobs[0].JobID
	}
	job := c.jobID(only)
	s.JobID = job
	j := h.Job(job)
	var latest *HACheckpoint
	if j != nil {
		latest = j.Latest()
	}
	if latest == nil {
		s.Says = fmt.Sprintf("the HA store holds no checkpoint of job %s: HA recovery starts it without state (or from its configured savepoint)", job)
		if job == "" {
			s.Says = "the HA store holds no job's checkpoints"
		}
		if c.chosen != nil {
			s.Warnings = append(s.Warnings, resume.Warnf(WarnMissing, "%s; restore %s explicitly", s.Says, c.chosenText()))
		}
		return
	}
	s.CheckpointID = latest.ID
	var pointerNote string
	if latest.Err != nil {
		if !flinkFailsOn(latest.Err) {
			// resumekit did not read the pointer file (outside the storage
			// dir given, storage unreachable): Flink may; judge by the id.
			pointerNote = "pointer file not read: " + latest.Err.Error()
			s.Warnings = append(s.Warnings, resume.Warnf(WarnUnreadable, "HA store of job %s: checkpoint %d's %s; judged by its id", job, latest.ID, pointerNote))
		} else {
			s.Says = fmt.Sprintf("HA recovery restores checkpoint %d (%s), whose entry or pointer file is missing or malformed: the recovery fails", latest.ID, latest.Name)
			s.Storage = "HA pointer: " + latest.Err.Error()
			s.Warnings = append(s.Warnings, resume.Warnf(WarnBroken, "HA recovery of job %s reads checkpoint %d's pointer and fails (%v); %s", job, latest.ID, latest.Err, c.instead(s.Kind)))
			return
		}
	}
	ref := Ref{JobID: job, CheckpointID: latest.ID}
	if cc := latest.Completed; cc != nil {
		s.Path, s.At, ref.Path, ref.Savepoint = cc.ExternalPointer, cc.TriggeredAt, cc.ExternalPointer, cc.Savepoint
		if cc.JobID != job {
			s.Warnings = append(s.Warnings, resume.Warnf(WarnDiffers, "the HA store's checkpoint %d of job %s holds job %s's checkpoint", latest.ID, job, cc.JobID))
		}
	}
	s.Says = fmt.Sprintf("HA recovery restores checkpoint %d", latest.ID)
	if s.Path != "" {
		s.Says += " at " + s.Path
	} else if pointerNote == "" {
		s.Says += " (pointer file not read: give the HA storage dir)"
	}
	if j.JobGraph {
		s.Says += "; the job graph is stored: a recovering JobManager resubmits the job"
	}
	c.judge(ctx, s, ref, "HA recovery")
}

// flinkFailsOn reports whether Flink's own recovery fails on the entry's
// error too: the handle or the pointer file is malformed, or the file is
// gone. A path outside the storage dir resumekit was given, or storage
// resumekit could not reach, says nothing about Flink.
func flinkFailsOn(err error) bool {
	if errors.Is(err, ErrOutsideStore) {
		return false
	}
	return errors.Is(err, ErrMalformed) || gcerrors.Code(err) == gcerrors.NotFound
}

func (c *comparer) jobResults(s *resume.RecordSource, rs []JobResult) {
	only := ""
	if len(rs) == 1 {
		only = rs[0].JobID
	}
	job := c.jobID(only)
	s.JobID = job
	var r *JobResult
	for i := range rs {
		if rs[i].JobID == job {
			r = &rs[i]
		}
	}
	if r == nil {
		s.Says = fmt.Sprintf("no entry for job %s: it has not reached a globally terminal state (or its entry was deleted on commit)", job)
		return
	}
	entry := "dirty (cleanup not finished)"
	if r.Clean {
		entry = "clean"
	}
	s.Status = r.ApplicationStatus
	s.Says = fmt.Sprintf("job %s ended %s (%s entry %s): HA recovery will not run it again", job, r.ApplicationStatus, entry, r.Key)
	if r.FinishedCleanly() {
		s.FinishedCleanly = true
		what := "the newest snapshot in storage"
		if c.chosen != nil && c.chosen.Savepoint {
			what = "the chosen " + c.chosen.String()
		}
		s.Warnings = append(s.Warnings, resume.Warnf(WarnFinishedCleanly, "job %s finished (%s): it cannot run on, no observation window is needed, and a stop-with-savepoint that ended it completed (%s holds its final state)", job, r.ApplicationStatus, what))
		return
	}
	s.Warnings = append(s.Warnings, resume.Warnf(WarnJobTerminal, "job %s ended %s: HA recovery will not restart it, and a resubmission under the same job id is taken as done; submit the new job with a new id", job, r.ApplicationStatus))
}

func (c *comparer) rest(ctx context.Context, s *resume.RecordSource, r *REST) {
	s.JobID, s.Status = r.JobID, r.State
	if r.State == "" {
		s.Says = fmt.Sprintf("the JobManager does not know job %s", r.JobID)
		return
	}
	s.Says = fmt.Sprintf("job %s is %s", r.JobID, r.State)
	latest := r.Completed
	if r.Savepoint != nil && (latest == nil || r.Savepoint.ID > latest.ID) {
		latest = r.Savepoint
	}
	if r.Restored != nil {
		s.Says += fmt.Sprintf("; it restored %d (%s)", r.Restored.ID, r.Restored.ExternalPath)
	}
	if r.Failed != nil {
		s.Says += fmt.Sprintf("; checkpoint %d failed: %s", r.Failed.ID, r.Failed.Failure)
	}
	if !r.Terminal() {
		s.Warnings = append(s.Warnings, resume.Warnf(WarnJobRunning, "job %s is %s on %s: it still checkpoints and writes; stop it (stop-with-savepoint) before a new job starts, or both write", r.JobID, r.State, r.URL))
	}
	if latest == nil {
		s.Says += "; no checkpoint completed"
		return
	}
	s.CheckpointID, s.Path, s.At = latest.ID, latest.ExternalPath, latest.At
	s.Says += fmt.Sprintf("; its latest completed snapshot is %d at %s", latest.ID, latest.ExternalPath)
	c.judge(ctx, s, Ref{JobID: r.JobID, CheckpointID: latest.ID, Savepoint: latest.Savepoint, Path: latest.ExternalPath}, "the JobManager's latest")
}

func (c *comparer) operator(ctx context.Context, s *resume.RecordSource, op *Operator) {
	var d *Deployment
	for i := range op.Deployments {
		dd := &op.Deployments[i]
		if c.o.JobID == "" || dd.JobID == c.o.JobID || (c.chosen != nil && dd.JobID == c.chosen.JobID) {
			d = dd
			break
		}
	}
	due := op.DueForCleanup(c.o.Cleanup, c.o.Now)
	if c.chosen != nil {
		for _, sn := range due {
			if sn.Path != "" && (samePath(sn.Path, c.chosen.Path) || c.chosen.Savepoint && lastName(sn.Path) == lastName(c.chosen.Key)) {
				files := "the resource"
				if sn.DisposeOnDelete {
					files = "the resource and (disposeOnDelete) the savepoint's files"
				}
				s.Warnings = append(s.Warnings, resume.Warnf(WarnSnapshotCleanup, "the chosen %s is FlinkStateSnapshot %s/%s (%s), due for the operator's history cleanup: it deletes %s; copy it or label it MANUAL before the deploy that needs it", c.chosen, sn.Namespace, sn.Name, sn.TriggerType, files))
			}
		}
	}
	if d == nil {
		s.Says = fmt.Sprintf("no FlinkDeployment or FlinkSessionJob of the job; %d FlinkStateSnapshot resources, %d due for history cleanup", len(op.Snapshots), len(due))
		return
	}
	s.JobID, s.Status = d.JobID, d.JobState
	p := d.Restores()
	mode := d.UpgradeMode
	if mode == "" {
		mode = "stateless"
	}
	if p == "" {
		s.Says = fmt.Sprintf("%s %s/%s (upgradeMode %s) names no snapshot: its next upgrade starts without state", d.Kind, d.Namespace, d.Name, mode)
		if mode == "last-state" {
			s.Says = fmt.Sprintf("%s %s/%s (upgradeMode last-state) names no snapshot: its next upgrade relies on Flink's HA metadata", d.Kind, d.Namespace, d.Name)
		}
		if c.chosen != nil {
			s.Warnings = append(s.Warnings, resume.Warnf(WarnMissing, "%s; set initialSavepointPath to %s", s.Says, c.chosenText()))
		}
		return
	}
	s.Path, s.At = p, d.LastSavepointAt
	s.Says = fmt.Sprintf("%s %s/%s (upgradeMode %s) restores %s on its next upgrade", d.Kind, d.Namespace, d.Name, mode, p)
	ref := Ref{Path: p, Savepoint: strings.Contains(lastName(p), "savepoint-"), JobID: d.JobID}
	if m := chkPathRE.FindStringSubmatch(p); m != nil {
		ref.JobID = m[1]
		fmt.Sscan(m[2], &ref.CheckpointID)
		s.CheckpointID = ref.CheckpointID
	}
	c.judge(ctx, s, ref, "the operator")
}
