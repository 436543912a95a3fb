package flinkckpt

import (
	"fmt"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// The resolver's working types: the snapshots it considers (snap), the
// ones it passed over (passed) and the per-job-dir streams they come from
// (source).

// snap is one snapshot under consideration.
type snap struct {
	loc       *loc   // the location it is in
	key       string // dir key (in loc's bucket)
	job       string
	jobKey    string // the job dir key ("" for savepoints)
	id        int64
	dirID     int64 // the id its chk-<n> dir name says (-1: not a chk dir)
	savepoint bool
	// kindUnknown: a v2/v3 _metadata in a dir named neither chk-<n> nor
	// savepoint-….
	kindUnknown bool
	md          *metadata.Checkpoint
	mod         time.Time
	m           *mapping
	inf         *inference // inferred mapping, until settled
	settled     bool       // m is final
	probes      int        // attribute calls spent settling m
	// fromFallback: m is Options.FallbackFlinkRoot's (nothing to infer).
	fromFallback bool
	// contradiction says how Options.FlinkRoot and the snapshot's own
	// references disagree ("" when they do not).
	contradiction string
	// rootRefused says why the root inferred from its references was
	// refused (another bucket, a hostile authority); "" otherwise.
	rootRefused string
	ancestors   map[string]bool // other job dir keys whose files it references
	facts       restoreFacts
	// changelogLineage names the checkpoint of the savepoint's job (or
	// application) in the locations that shows the changelog state
	// backend which the savepoint's own handles do not ("" when none; set
	// for the chosen snapshot by changelogLineage).
	changelogLineage string
	// forStUnread says why the keyed state meta info that would tell a
	// ForSt snapshot could not be read (forStState), for the chosen one.
	forStUnread string
	// Set by rank for the current heads: eff is the newest _metadata time
	// of the snapshot and the heads it descends from (transitively), via
	// the head that time comes from (nil: its own); descends the heads it
	// descends from; supersedes the savepoint heads of its job at lower ids.
	eff        time.Time
	via        *snap
	descends   map[*snap]bool
	supersedes []*snap
}

func (s *snap) name() string {
	switch {
	case s.savepoint || s.kindUnknown:
		return lastSegment(s.key)
	case s.job != "":
		return fmt.Sprintf("chk-%d of job %s", s.id, s.job)
	}
	return fmt.Sprintf("chk-%d", s.id)
}

// passKind is why a completed snapshot was passed over.
type passKind int

const (
	passBroken     passKind = iota // files missing, wrong size, refused, unparseable
	passUnverified                 // references not checked, or not mappable
	passRefused                    // cannot serve the intent
	// passIncompatible: the new job (Options.Job) cannot restore it
	// (gradeForJob); applyJob warns about those, not passedWarnings.
	passIncompatible
	// passFailingRestore: a live check says its restore fails (a Paimon
	// source whose next snapshot expired).
	passFailingRestore
	// passUnreadable: the new job's Flink cannot read its _metadata
	// version (Options.FlinkVersion).
	passUnreadable
)

// passed is a completed snapshot that was passed over, kept to tell
// whether it ranks above the one chosen.
type passed struct {
	loc       *loc
	name      string
	key       string
	jobKey    string
	id        int64
	savepoint bool
	mod       time.Time
	ancestors map[string]bool
	kind      passKind
}

// source yields the snapshots of one job dir newest first, or the single
// snapshot of a savepoint dir or of the prefix itself.
type source struct {
	loc     *loc
	job     *jobDir
	dir     string
	next    int
	head    *snap
	reasons []string
	passed  []passed // completed but unusable snapshots, for the warning
	// considered records what it passed over (Position.Considered).
	considered []ConsideredSnapshot
}
