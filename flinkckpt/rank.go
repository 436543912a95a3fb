package flinkckpt

import (
	"fmt"
	"strings"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume"
)

// rank sets each head's effective time: the newest _metadata modification
// time of the head and of the heads it descends from, transitively. A
// checkpoint referencing another job dir's shared files descends from that
// job (it was restored from it) and is at least as new as it; a job dir's
// head descends from the savepoints its job took at lower ids (see
// supersedes), however recently a copy touched them.
func rank(heads []*snap) {
	type jobRef struct {
		loc *loc
		key string
	}
	byJob := map[jobRef]*snap{}
	for _, h := range heads {
		if h.jobKey != "" {
			byJob[jobRef{h.loc, h.jobKey}] = h
		}
	}
	for _, h := range heads {
		h.supersedes = h.supersedes[:0]
		for _, s := range heads {
			if s != h && supersedes(h, s) {
				h.supersedes = append(h.supersedes, s)
			}
		}
	}
	for _, h := range heads {
		h.eff, h.via = h.mod, nil
		h.descends = map[*snap]bool{}
		stack := []*snap{h}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			var next []*snap
			for j := range x.ancestors {
				if a := byJob[jobRef{x.loc, j}]; a != nil {
					next = append(next, a)
				}
			}
			next = append(next, x.supersedes...)
			for _, a := range next {
				if a == h || h.descends[a] {
					continue
				}
				h.descends[a] = true
				stack = append(stack, a)
				if a.mod.After(h.eff) || (h.via != nil && a.mod.Equal(h.eff) && a.key < h.via.key) {
					h.eff, h.via = a.mod, a
				}
			}
		}
	}
}

// rankKey is what the order compares.
type rankKey struct {
	savepoint bool
	eff       time.Time
	id        int64
	key       string
}

func (s *snap) rankKey() rankKey { return rankKey{s.savepoint, s.eff, s.id, s.key} }

// ranksAbove is the order of snapshots, a total one: with IntentUpgrade
// savepoints first; then the later effective time (see rank), then the
// higher checkpoint id, then the smaller key.
func ranksAbove(a, b rankKey, intent Intent) bool {
	if intent == IntentUpgrade && a.savepoint != b.savepoint {
		return a.savepoint
	}
	if !a.eff.Equal(b.eff) {
		return a.eff.After(b.eff)
	}
	if a.id != b.id {
		return a.id > b.id
	}
	return a.key < b.key
}

func pick(heads []*snap, intent Intent) *snap {
	var best *snap
	for _, h := range heads {
		if best == nil || ranksAbove(h.rankKey(), best.rankKey(), intent) {
			best = h
		}
	}
	return best
}

// outranking returns the passed-over snapshots that rank above best: those
// of its own job dir (read newest first) and those of other sources that
// are newer than best by the same order, or descend from best's job dir.
// Passed-over snapshots older than best are no reason for the duplicates
// warning.
func outranking(best *snap, src *source, sources []*source, intent Intent) []passed {
	var out []passed
	for _, s := range sources {
		for _, p := range s.passed {
			switch {
			case s == src:
			case best.jobKey != "" && p.loc == best.loc && p.ancestors[best.jobKey]:
			case p.jobKey != "" && (best.referencesJob(p.loc, p.jobKey) || descendsFromJob(best, p.loc, p.jobKey)):
				continue
			case !ranksAbove(rankKey{p.savepoint, p.mod, p.id, p.key}, best.rankKey(), intent):
				continue
			}
			out = append(out, p)
		}
	}
	return out
}

func descendsFromJob(s *snap, l *loc, jobKey string) bool {
	for a := range s.descends {
		if a.loc == l && a.jobKey == jobKey {
			return true
		}
	}
	return false
}

// nearTie is the difference of modification times under which their order
// is not known: object stores keep Last-Modified to the second, and a copy
// writes a tree's files within moments of each other in any order.
const nearTie = 2 * time.Second

func tsMilli(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// nearTies returns the heads best outranks only by a near-tie of
// modification times: not in its lineage (see rank), not a descendant,
// their effective times less than nearTie apart.
func nearTies(best *snap, heads []*snap, intent Intent) []*snap {
	var out []*snap
	for _, h := range heads {
		if h == best || best.descends[h] || h.descends[best] || supersedes(h, best) {
			continue
		}
		if intent == IntentUpgrade && best.savepoint != h.savepoint {
			continue
		}
		if d := best.eff.Sub(h.eff); d > 0 && d < nearTie {
			out = append(out, h)
		}
	}
	return out
}

// nearTieWarnings says which snapshots best outranks only by a near-tie of
// modification times (see nearTies).
func nearTieWarnings(best *snap, heads []*snap, intent Intent) []resume.Warning {
	var out []resume.Warning
	for _, h := range nearTies(best, heads, intent) {
		out = append(out, resume.Warnf(WarnNearTie, "%s was chosen over %s by _metadata modification times only %s apart (%s vs %s): under the %s an object store's second resolution or a copy can blur, that order is not known; nothing else (a lineage of ids, shared files) orders them — check which is the job's latest before launching",
			best.name(), h.name(), best.eff.Sub(h.eff), tsMilli(best.eff), tsMilli(h.eff), nearTie))
	}
	return out
}

// rankReason says truthfully why best ranks above h (see ranksAbove).
func rankReason(best, h *snap, intent Intent) string {
	ts := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	switch {
	case intent == IntentUpgrade && best.savepoint && !h.savepoint:
		return fmt.Sprintf("ranks above %s: for an upgrade savepoints come before checkpoints", h.name())
	case h.jobKey != "" && best.referencesJob(h.loc, h.jobKey):
		return fmt.Sprintf("%s references shared files of job dir %s: it descends from %s and is newer whatever the modification times say",
			best.name(), h.jobKey, h.name())
	case supersedes(best, h):
		return fmt.Sprintf("ranks above %s: that is a savepoint of the same job at a lower checkpoint id (%d vs %d), and within one job the id order decides, whatever the modification times say",
			h.name(), h.id, best.id)
	case best.eff.After(h.eff) && best.eff.Sub(h.eff) < nearTie:
		return fmt.Sprintf("ranks above %s by a near-tie of _metadata modification times (%s vs %s, %s apart, under the %s a store or a copy can blur): nothing else orders them, so the order between them is not known",
			h.name(), tsMilli(best.eff), tsMilli(h.eff), best.eff.Sub(h.eff), nearTie)
	case best.eff.After(h.eff):
		hTime := ts(h.eff)
		if h.via != nil {
			hTime += " (of " + h.via.name() + ", which it descends from)"
		}
		if best.via == nil {
			return fmt.Sprintf("newer than %s by _metadata modification time (%s vs %s; copies reset modification times)",
				h.name(), ts(best.mod), hTime)
		}
		return fmt.Sprintf("ranks above %s: it descends from %s, whose _metadata modification time is newer (%s vs %s; copies reset modification times)",
			h.name(), best.via.name(), ts(best.eff), hTime)
	case best.descends[h]:
		return fmt.Sprintf("%s descends from %s through the job dirs whose shared files it references or the savepoints its job took: it is newer whatever the modification times say",
			best.name(), h.name())
	case best.id != h.id:
		return fmt.Sprintf("ranks above %s: same effective modification time (%s), higher checkpoint id (%d vs %d)",
			h.name(), ts(best.eff), best.id, h.id)
	default:
		return fmt.Sprintf("ranks above %s: same effective modification time (%s) and checkpoint id %d; first by key", h.name(), ts(best.eff), best.id)
	}
}

// referencesJob reports whether s references shared files of the job dir
// at key of location l (ancestors are keys of s's own location).
func (s *snap) referencesJob(l *loc, key string) bool {
	return s.loc == l && s.ancestors[key]
}

// supersedes reports whether head j is later in the lineage of savepoint
// head s, so that the id order decides between them whatever a copy did to
// the modification times. Two cases:
//
//   - j is a job dir's head and s was taken by j's job (its savepoint-<6
//     hex> prefix is the job id's) at a lower checkpoint id (savepoints
//     share the id counter);
//   - j is a savepoint too, of the same job (the same prefix) at a higher
//     id, and its operators are a continuation of s's: the same operator
//     ids with the same max parallelism (one job graph, as a stop-with-
//     savepoint after an earlier savepoint of the same run leaves it).
//
// Fixed application-mode ids are left out: every run of an application
// shares the id and its prefix, and a new run restarts ids, so the prefix
// tells no lineage there.
func supersedes(j, s *snap) bool {
	if !s.savepoint || j.id <= s.id {
		return false
	}
	p := savepointPrefix(s.key)
	if p == "" {
		return false
	}
	if j.savepoint {
		return savepointPrefix(j.key) == p && !fixedPrefix(p) && continues(j.md, s.md)
	}
	return j.job != "" && !isFixedJobID(j.job) && strings.HasPrefix(j.job, p)
}

// fixedPrefix reports whether a savepoint's job id prefix may be one of
// application mode's fixed ids (see fixedJobIDRE): their first 8 hex
// digits are the sign extension of a hash, 00000000 or ffffffff.
func fixedPrefix(p string) bool { return p == "000000" || p == "ffffff" }

// continues reports whether the operators of a later snapshot are those of
// an earlier one: the same operator ids, each with the same max parallelism.
func continues(later, earlier *metadata.Checkpoint) bool {
	if later == nil || earlier == nil || len(later.Operators) != len(earlier.Operators) || len(later.Operators) == 0 {
		return false
	}
	mp := make(map[string]int, len(earlier.Operators))
	for _, o := range earlier.Operators {
		mp[o.ID] = o.MaxParallelism
	}
	for _, o := range later.Operators {
		m, ok := mp[o.ID]
		if !ok || m != o.MaxParallelism {
			return false
		}
	}
	return true
}
