package flinkckpt

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/resume/redact"
)

// Application is one application found under a location: the job dirs and
// savepoints whose newest readable snapshots share operators (directly or
// through one another). Snapshots whose operator-id sets do not overlap
// belong to different applications: operator ids are hashes of uids or of
// the job graph, so two applications share one only by sharing a uid.
type Application struct {
	// JobIDs are the job dirs ("" for chk-<n> dirs directly under the
	// location).
	JobIDs []string
	// Savepoints are the savepoint dirs (and "" for a _metadata directly
	// under the location).
	Savepoints []string
	// Operators is the number of distinct operator ids of its snapshots.
	Operators int
	// Newest is the newest _metadata modification time among them.
	Newest time.Time
	// Matched is the number of the new job's (Options.Job) or the anchor's
	// operators it has, when one was given.
	Matched int
}

// ApplicationsError is returned when a location holds snapshots of more
// than one application and nothing says which one is the job's: Resolve
// does not rank one application's snapshot against another's (a checkpoint
// root or savepoint dir is often shared by a cluster, and before Flink
// 1.16 every application-mode job with HA had job id 000…0). Identify the
// job with Options.JobID, Options.Anchor or Options.Job.
type ApplicationsError struct {
	// Location is the prefix.
	Location string
	// Locations are every prefix looked at: Location, then those of
	// Options.Locations.
	Locations []string
	// Applications lists what was found, newest first.
	Applications []Application
	// Why says why none was chosen.
	Why string
}

// Error lists the applications.
func (e *ApplicationsError) Error() string {
	var b strings.Builder
	where := redact.QuoteKey(e.Location) + " holds"
	if len(e.Locations) > 1 {
		q := make([]string, len(e.Locations))
		for i, l := range e.Locations {
			q[i] = redact.QuoteKey(l)
		}
		where = strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1] + " hold"
	}
	fmt.Fprintf(&b, "flinkckpt: %s snapshots of %d applications and %s:", where, len(e.Applications), e.Why)
	for i, a := range e.Applications {
		var parts []string
		if len(a.JobIDs) > 0 {
			parts = append(parts, "job dirs "+strings.Join(orRoot(a.JobIDs), ", "))
		}
		if len(a.Savepoints) > 0 {
			parts = append(parts, "savepoints "+strings.Join(orRoot(a.Savepoints), ", "))
		}
		parts = append(parts, fmt.Sprintf("%d operators", a.Operators))
		if !a.Newest.IsZero() {
			parts = append(parts, "newest "+a.Newest.UTC().Format(time.RFC3339))
		}
		fmt.Fprintf(&b, " %d) %s;", i+1, strings.Join(parts, ", "))
	}
	return strings.TrimSuffix(b.String(), ";")
}

func orRoot(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if n == "" {
			out[i] = "(the location itself)"
		}
	}
	return out
}

// Is reports ErrSeveralApplications.
func (e *ApplicationsError) Is(target error) bool { return target == ErrSeveralApplications }

// appGroup is an application with its sources.
type appGroup struct {
	app     Application
	sources []*source
	ops     map[string]bool
}

// groupApplications groups the sources that have a head by overlapping
// operator ids (union-find over the ids); sources without a head are
// returned apart. Groups come newest first, then by first key.
func groupApplications(sources []*source) (groups []*appGroup, headless []*source) {
	parent := map[*source]*source{}
	var find func(s *source) *source
	find = func(s *source) *source {
		for parent[s] != s {
			parent[s] = parent[parent[s]]
			s = parent[s]
		}
		return s
	}
	byOp := map[string]*source{}
	var withHead []*source
	for _, s := range sources {
		if s.head == nil {
			headless = append(headless, s)
			continue
		}
		withHead = append(withHead, s)
		parent[s] = s
		for _, op := range s.head.md.Operators {
			if o, ok := byOp[op.ID]; ok {
				parent[find(s)] = find(o)
			} else {
				byOp[op.ID] = s
			}
		}
	}
	byRoot := map[*source]*appGroup{}
	for _, s := range withHead {
		r := find(s)
		g := byRoot[r]
		if g == nil {
			g = &appGroup{ops: map[string]bool{}}
			byRoot[r] = g
			groups = append(groups, g)
		}
		g.sources = append(g.sources, s)
		for _, op := range s.head.md.Operators {
			g.ops[op.ID] = true
		}
		if s.job != nil {
			g.app.JobIDs = append(g.app.JobIDs, s.job.job)
		} else {
			g.app.Savepoints = append(g.app.Savepoints, lastSegment(s.dir))
		}
		if s.head.mod.After(g.app.Newest) {
			g.app.Newest = s.head.mod
		}
	}
	for _, g := range groups {
		g.app.Operators = len(g.ops)
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].app.Newest.After(groups[j].app.Newest) })
	return groups, headless
}

// selectApplication keeps the sources of one application when the location
// holds several: the one of Options.JobID's job dir, else the one sharing
// most operators with Options.Anchor, else with Options.Job. It returns the
// sources to consider and a reason for each source left out, or an
// *ApplicationsError when it cannot tell.
func (r *Resolver) selectApplication(sources []*source) ([]*source, []string, error) {
	groups, headless := groupApplications(sources)
	if len(groups) <= 1 {
		return sources, nil, nil
	}
	var chosen *appGroup
	var by string
	if r.opts.JobID != "" {
		for _, g := range groups {
			for _, s := range g.sources {
				if s.job != nil && s.job.job == r.opts.JobID {
					chosen, by = g, "job "+r.opts.JobID+"'s"
				}
			}
		}
	}
	var errApps []Application
	if chosen == nil {
		var id *jobgraph.Job
		switch {
		case r.opts.Anchor != nil:
			id, by = r.opts.Anchor, "the anchor snapshot's"
		case r.opts.Job != nil && !r.opts.Job.ParallelismOnly():
			id, by = r.opts.Job, "the new job's"
		}
		why := "the job is not identified (pass Options.JobID, Options.Anchor or Options.Job; --flink-job-id, --flink-anchor)"
		if r.opts.JobID != "" {
			why = fmt.Sprintf("job %s has no readable checkpoint to tell its savepoints by (pass Options.Anchor or Options.Job; --flink-anchor)", r.opts.JobID)
		}
		if id != nil {
			best, tie := -1, false
			for _, g := range groups {
				g.app.Matched = 0
				for _, op := range id.Operators {
					if g.ops[op.ID] {
						g.app.Matched++
					}
				}
				switch {
				case g.app.Matched > best:
					best, chosen, tie = g.app.Matched, g, false
				case g.app.Matched == best:
					tie = true
				}
			}
			switch {
			case best == 0:
				chosen, why = nil, fmt.Sprintf("none of them has any of %s %d operators", by, len(id.Operators))
			case tie:
				chosen, why = nil, fmt.Sprintf("%s operators match %d of several equally", by, best)
			}
		}
		if chosen == nil {
			for _, g := range groups {
				errApps = append(errApps, g.app)
			}
			var prefixes []string
			for _, l := range r.locs {
				prefixes = append(prefixes, l.prefix)
			}
			return nil, nil, &ApplicationsError{Location: r.locs[0].prefix, Locations: prefixes, Applications: errApps, Why: why}
		}
	}
	keep := append([]*source(nil), headless...)
	keep = append(keep, chosen.sources...)
	var reasons []string
	for _, g := range groups {
		if g == chosen {
			continue
		}
		for _, s := range g.sources {
			reasons = append(reasons, fmt.Sprintf("%s: another application (no operator in common with %s): not considered", s.head.name(), by+" application"))
		}
	}
	return keep, reasons, nil
}
