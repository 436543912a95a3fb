// Package k8s turns a resumekit decision into the JSON merge patch that
// restarts a job managed by the flink-kubernetes-operator (a FlinkDeployment
// or a FlinkSessionJob) from the chosen checkpoint or savepoint:
// spec.job.initialSavepointPath, a new spec.job.savepointRedeployNonce (the
// operator redeploys from initialSavepointPath whenever the nonce changes,
// FLINK-33763: flink-kubernetes-operator 1.8.0 and later honour
// savepointRedeployNonce; older operators ignore the field and do not
// redeploy), the launch's other Flink configuration in
// spec.flinkConfiguration, and the chosen candidate's warnings as
// annotations ([AnnotationWarningCodes], [AnnotationWarnings]). The patch
// sets neither spec.job.state nor spec.job.upgradeMode: the redeploy
// restores initialSavepointPath whatever the upgrade mode, and a suspended
// job stays suspended until its state is set to running. resumectl's --format k8s prints it; an operator
// written in Go builds the same patch with [NewPatch]:
//
//	d, err := chain.Resolve(ctx)
//	if resume.Classify(d, err) != resume.ResultChosen {
//		return err // never redeploy from a decision with failures
//	}
//	patch, err := k8s.NewPatch(d.Chosen, nil)
//	if err != nil {
//		return err // e.g. k8s.ErrStateless
//	}
//	body, _ := json.Marshal(patch) // PATCH with Content-Type application/merge-patch+json
//
// It lives beside package resume, not in it, because it speaks one deploy
// target's vocabulary (CRD field names, the nonce protocol); it imports only
// resume and the standard library, so an operator gets no CLI, storage or
// Kafka code with it.
//
// # Errors
//
// [NewPatch] returns an error wrapping [ErrStateless] (checked with
// errors.Is) when the candidate restores no checkpoint or savepoint, and a
// plain error for a nil candidate or position.
package k8s

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"unicode/utf8"

	"github.com/resumekit/resumekit/resume"
)

// ErrStateless is what [NewPatch]'s error wraps for a candidate that
// restores no checkpoint or savepoint (a Paimon consumer, Kafka offsets): the
// operator refuses a savepoint redeploy without initialSavepointPath
// ("InitialSavepointPath must not be empty for savepoint redeployment"), and
// a new nonce beside the spec's old initialSavepointPath would restore that
// older snapshot. A stateless restart is a different operation — apply the
// launch's source options to the job and restart it with upgradeMode
// stateless (restartNonce) — which a patch built from the position alone
// cannot express safely. Check it with errors.Is.
var ErrStateless = errors.New("k8s: the position restores no checkpoint or savepoint")

// Patch is a JSON merge patch (RFC 7386) for a FlinkDeployment or a
// FlinkSessionJob. Marshal it with encoding/json.
type Patch struct {
	// Metadata carries the chosen candidate's warnings as annotations;
	// omitted when it has none.
	Metadata *Metadata `json:"metadata,omitempty"`
	Spec     Spec      `json:"spec"`
}

// Annotation keys the patch sets on the resource when the chosen candidate
// has warnings: AnnotationWarningCodes their codes, comma-separated
// (flink.older-than-broken,chain.source-failed), AnnotationWarnings one
// line per warning ("[code] text"). A merge patch replaces their old
// values, so they always describe the last redeploy.
const (
	AnnotationWarningCodes = "resumekit.io/warning-codes"
	AnnotationWarnings     = "resumekit.io/warnings"
	// AnnotationRecord is set when Options.Record is: one line per record
	// (Flink's HA store, JobResultStore, REST API, the operator's own
	// resources) saying what it will restore and what storage says of that
	// snapshot, so the resource shows the record beside the restore path
	// storage chose.
	AnnotationRecord = "resumekit.io/record"
)

// Metadata is the part of the resource's metadata the patch sets.
type Metadata struct {
	Annotations map[string]string `json:"annotations"`
}

// Spec is the part of the resource's spec the patch sets.
type Spec struct {
	Job Job `json:"job"`
	// FlinkConfiguration holds the launch's Flink configuration other than
	// the restore path keys (which initialSavepointPath replaces), e.g.
	// execution.state-recovery.claim-mode; omitted when there is none. The
	// keys stay in the spec after the redeploy, so the operator applies them
	// to later upgrades too.
	FlinkConfiguration map[string]string `json:"flinkConfiguration,omitempty"`
}

// Job is the part of spec.job the patch sets.
type Job struct {
	// InitialSavepointPath is the checkpoint or savepoint to restore
	// ([resume.Launch.RestorePath]), a Flink file-system URI.
	InitialSavepointPath string `json:"initialSavepointPath"`
	// SavepointRedeployNonce makes the operator redeploy from
	// InitialSavepointPath when it differs from the spec's current value.
	SavepointRedeployNonce int64 `json:"savepointRedeployNonce"`
	// AllowNonRestoredState is set (true) when the launch lets Flink drop
	// state the new job has no operator for ([resume.Launch.AllowNonRestoredState]);
	// omitted otherwise. It stays in the spec after the redeploy: set it
	// back to false once the job runs, or later upgrades drop unclaimed
	// state without a word.
	AllowNonRestoredState *bool `json:"allowNonRestoredState,omitempty"`
}

// Options configures NewPatch. A nil *Options means the defaults.
type Options struct {
	// Nonce is the savepointRedeployNonce to set; 0 means [Nonce] of the
	// candidate, derived from its position, so that applying the patch of
	// the same decision twice redeploys once.
	Nonce int64
	// Record is the decision's record section (resume.Decision.Record),
	// shown in the [AnnotationRecord] annotation; nil sets none.
	Record *resume.Record
}

// NewPatch returns the patch that redeploys the job from c's checkpoint or
// savepoint. It fails with [ErrStateless] when c restores none. Deploy only
// a candidate the caller means to: NewPatch does not look at the decision
// it came from (check [resume.Classify] first).
func NewPatch(c *resume.Candidate, opts *Options) (*Patch, error) {
	if c == nil || c.Position == nil {
		return nil, errors.New("k8s: no candidate to deploy")
	}
	l := c.Position.Launch()
	path := l.RestorePath()
	if path == "" {
		return nil, fmt.Errorf("%w: the %s position of %s (%s); start the job stateless with its source options %s",
			ErrStateless, c.Position.Kind(), c.Resolver, c.Position, resume.HintOptions(l.Options))
	}
	nonce := Nonce(c)
	if opts != nil && opts.Nonce != 0 {
		nonce = opts.Nonce
	}
	p := &Patch{Spec: Spec{Job: Job{InitialSavepointPath: path, SavepointRedeployNonce: nonce}}}
	conf := maps.Clone(l.Config)
	delete(conf, resume.ConfigStateRecoveryPath)
	delete(conf, resume.ConfigSavepointPath)
	if l.AllowNonRestoredState() {
		// spec.job.allowNonRestoredState, not the configuration keys: the
		// operator passes it to this redeploy's restore.
		allow := true
		p.Spec.Job.AllowNonRestoredState = &allow
		delete(conf, resume.ConfigIgnoreUnclaimedState)
		delete(conf, resume.ConfigSavepointIgnoreUnclaimedState)
	}
	if len(conf) > 0 {
		p.Spec.FlinkConfiguration = conf
	}
	if len(c.Warnings) > 0 {
		codes, lines := make([]string, len(c.Warnings)), make([]string, len(c.Warnings))
		for i, w := range c.Warnings {
			codes[i], lines[i] = string(w.Code), "["+string(w.Code)+"] "+w.Text
		}
		p.Metadata = &Metadata{Annotations: map[string]string{
			AnnotationWarningCodes: capJoin(codes, ","),
			AnnotationWarnings:     capJoin(lines, "\n"),
		}}
	}
	if opts != nil && opts.Record != nil && len(opts.Record.Sources) > 0 {
		var lines []string
		for _, s := range opts.Record.Sources {
			line := s.String()
			if s.Storage != "" {
				line += "; storage: " + s.Storage
			}
			lines = append(lines, strings.Join(strings.Fields(line), " "))
		}
		if p.Metadata == nil {
			p.Metadata = &Metadata{Annotations: map[string]string{}}
		}
		p.Metadata.Annotations[AnnotationRecord] = capJoin(lines, "\n")
	}
	return p, nil
}

// MaxAnnotation bounds each annotation the patch sets, in bytes: the three
// together stay well under the 256 KiB Kubernetes allows for all of a
// resource's annotations (a decision with thousands of warnings made one
// of 483 KB, and the API server refused the patch).
const MaxAnnotation = 32 << 10

// capJoin joins items with sep, keeping whole items while the value stays
// within MaxAnnotation, then "… and N more"; an item longer than that alone
// is cut, on a UTF-8 boundary, with "… (N more bytes)".
func capJoin(items []string, sep string) string {
	const room = 64 // for the "… and N more" tail
	var b strings.Builder
	for i, it := range items {
		add := len(it)
		if i > 0 {
			add += len(sep)
		}
		if b.Len()+add > MaxAnnotation-room {
			if i == 0 {
				cut := MaxAnnotation - room
				for cut > 0 && !utf8.RuneStart(it[cut]) {
					cut--
				}
				b.WriteString(it[:cut] + fmt.Sprintf("… (%d more bytes)", len(it)-cut))
				if len(items) > 1 {
					b.WriteString(sep + fmt.Sprintf("… and %d more", len(items)-1))
				}
				return b.String()
			}
			b.WriteString(sep + fmt.Sprintf("… and %d more", len(items)-i))
			return b.String()
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(it)
	}
	return b.String()
}
