package resume

import (
	"maps"
	"slices"
	"strings"
	"time"
)

// Position is one concrete start point. Each resolver package defines its own
// type, with value receivers (a T and a *T are both Positions) and a
// PositionOf that returns it from any of its forms; after a [Decision] is
// read back from JSON, each position is a [*RawPosition], which that
// PositionOf decodes. resumetest.CheckPosition checks a position type
// against these rules.
type Position interface {
	// Kind names the type of position, one word: "flink-checkpoint",
	// "flink-savepoint", "flink-salvage", "paimon-snapshot",
	// "kafka-offsets", or "all" ([KindAll]) for combined positions.
	Kind() string
	// String describes the position in one line for people.
	String() string
	// Launch says how to start the job there.
	Launch() Launch
}

// Launch is what a deploy tool applies when it starts the job.
type Launch struct {
	// Args are flink run arguments, e.g. ["-s", "s3a://b/ck/<job>/chk-42"].
	Args []string `json:"args"`
	// Config holds Flink configuration keys (-D or the Flink configuration
	// file), e.g. execution.state-recovery.path.
	Config map[string]string `json:"config"`
	// Options holds source table or connector options (SQL hints), e.g.
	// consumer-id and scan.snapshot-id.
	Options map[string]string `json:"options"`
	// Sources, when the launch starts more than one source table, holds
	// each table's own options (Options is then their union, when no key
	// collides): each goes into its own table's SQL hint, never all into
	// one — a Kafka table refuses a Paimon table's consumer-id. Omitted
	// for a launch of one source.
	Sources []SourceOptions `json:"sources,omitempty"`
}

// SourceOptions are the options of one source table of a [Launch].
type SourceOptions struct {
	// Table names the source table or what it reads: a Paimon table
	// (db.table), a Kafka topic, a MySQL CDC source's operator uid.
	Table string `json:"table"`
	// Options are the table's SQL hint options.
	Options map[string]string `json:"options"`
}

// The Flink configuration keys of a restore path: ConfigStateRecoveryPath
// since Flink 1.20, ConfigSavepointPath before (both are set, so that either
// version restores). A launch that restores state carries them and "-s".
const (
	ConfigStateRecoveryPath = "execution.state-recovery.path"
	ConfigSavepointPath     = "execution.savepoint.path"
)

// RestorePath returns the checkpoint or savepoint the launch restores: the
// argument of -s (or --fromSavepoint) in Args, else the
// execution.state-recovery.path or execution.savepoint.path configuration;
// "" for a stateless start. It is a Flink file-system URI
// (s3a://b/ck/<job>/chk-42), what flink run -s and the flink-kubernetes-operator's
// initialSavepointPath take.
func (l Launch) RestorePath() string {
	for i := 0; i+1 < len(l.Args); i++ {
		if l.Args[i] == "-s" || l.Args[i] == "--fromSavepoint" {
			return l.Args[i+1]
		}
	}
	if p := l.Config[ConfigStateRecoveryPath]; p != "" {
		return p
	}
	return l.Config[ConfigSavepointPath]
}

// The Flink configuration keys that let a restore skip state the new job has
// no operator for (flink run --allowNonRestoredState):
// ConfigIgnoreUnclaimedState since Flink 1.20, ConfigSavepointIgnoreUnclaimedState
// before; a launch that allows it carries both and the flag.
const (
	ConfigIgnoreUnclaimedState          = "execution.state-recovery.ignore-unclaimed-state"
	ConfigSavepointIgnoreUnclaimedState = "execution.savepoint.ignore-unclaimed-state"
)

// AllowNonRestoredState reports whether the launch lets Flink drop state the
// new job has no operator for: --allowNonRestoredState (or -n) in Args, or
// either ignore-unclaimed-state key set to true.
func (l Launch) AllowNonRestoredState() bool {
	for _, a := range l.Args {
		if a == "--allowNonRestoredState" || a == "-n" {
			return true
		}
	}
	return strings.EqualFold(l.Config[ConfigIgnoreUnclaimedState], "true") ||
		strings.EqualFold(l.Config[ConfigSavepointIgnoreUnclaimedState], "true")
}

// IsZero reports whether the launch carries nothing.
func (l Launch) IsZero() bool {
	return len(l.Args) == 0 && len(l.Config) == 0 && len(l.Options) == 0
}

// clone returns a deep copy whose slices and maps are never nil, so that it
// marshals as [] and {}.
func (l Launch) clone() Launch {
	out := Launch{Args: slices.Clone(l.Args), Config: maps.Clone(l.Config), Options: maps.Clone(l.Options)}
	if out.Args == nil {
		out.Args = []string{}
	}
	if out.Config == nil {
		out.Config = map[string]string{}
	}
	if out.Options == nil {
		out.Options = map[string]string{}
	}
	for _, so := range l.Sources {
		out.Sources = append(out.Sources, SourceOptions{Table: so.Table, Options: maps.Clone(so.Options)})
	}
	return out
}

// Candidate is a resolver's offer: a position, how safe a restart from it is,
// and the evidence.
type Candidate struct {
	// Resolver is the name of the resolver that offered the candidate; the
	// chain fills it in when it is empty.
	Resolver string
	// Position is where the job would start. It is never nil in a candidate
	// returned with a nil error.
	Position Position
	// Guarantee grades what a restart from Position preserves.
	Guarantee Guarantee
	// At is the point in the input the position corresponds to (a commit or
	// record time); zero when unknown.
	At time.Time
	// Reasons are the evidence, in order: what was found and which checks
	// passed.
	Reasons []string
	// Warnings are risks that do not disqualify the candidate, each with a
	// stable code.
	Warnings []Warning
	// ValidUntil is the earliest moment one of the position's inputs may
	// leave retention (a Kafka record's timestamp plus the topic's
	// retention.ms, a Paimon snapshot's commit time plus
	// snapshot.time-retained): after it the same start may lose data or
	// fail. Zero when unknown. A reason (in Reasons) names the source and
	// the rule; [Policy.MinValidity] warns when it is close.
	ValidUntil time.Time
	// ValidUntilAssumed: ValidUntil rests on an assumed setting, not on
	// the live system's answer (a sink's transaction timeout nobody was
	// asked for).
	ValidUntilAssumed bool
}

// clone returns a copy of c whose slices are not shared with c.
func (c Candidate) clone() *Candidate {
	c.Reasons = slices.Clone(c.Reasons)
	c.Warnings = slices.Clone(c.Warnings)
	return &c
}
