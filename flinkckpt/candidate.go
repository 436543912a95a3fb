package flinkckpt

import (
	"fmt"
	"strings"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume"
)

// candidate builds the candidate for best at Flink path path: its
// position, the reasons (what was skipped, what was checked, why it ranks
// above the other heads) and the warnings about it.
func (r *Resolver) candidate(best *snap, heads []*snap, v *Verification, path string, skipped []string, above []passed) resume.Candidate {
	mode, _ := r.claimFor(best)
	pos := Position{Key: best.key, Location: best.loc.index, JobID: best.job, CheckpointID: best.md.CheckpointID, Savepoint: best.savepoint,
		Format: string(best.md.Format), Version: best.md.Version, Drained: best.md.Drained, KindUnknown: best.kindUnknown,
		Path: strings.TrimSuffix(path, "/"), ClaimMode: string(mode), FlinkVersion: r.opts.FlinkVersion, Deployment: r.opts.Deployment,
		StateBackend: best.facts.backend, Unaligned: best.facts.channels > 0, FinishedOperators: len(best.facts.finished),
		PostCheckpointAction: string(best.md.Action)}
	vd := classify(best.contradiction, v) // state.go
	if v != nil {
		pos.Verified = vd.state == StateComplete
		pos.ReferencedFiles, pos.CheckedFiles, pos.UncheckedFiles = len(v.Files), v.Checked(), v.Unchecked+v.Unmapped
		pos.ExtraRoots = extraRootsUsed(v)
	} else {
		pos.ReferencedFiles = len(distinctPaths(best))
		pos.UncheckedFiles = pos.ReferencedFiles
	}
	c := resume.Candidate{Resolver: r.opts.Name, Position: pos, Guarantee: resume.ExactlyOnce, At: best.mod}
	c.Reasons = append(c.Reasons, skipped...)
	kind := "checkpoint"
	switch {
	case best.savepoint:
		kind = "savepoint"
	case best.kindUnknown:
		kind = "snapshot of unknown kind"
	}
	c.Reasons = append(c.Reasons, fmt.Sprintf("%s: %s _metadata version %d, checkpoint id %d, %d operators, written %s (object modification time: _metadata records no time)",
		best.name(), kind, best.md.Version, best.md.CheckpointID, len(best.md.Operators), best.mod.UTC().Format(time.RFC3339)))
	c.Reasons = append(c.Reasons, r.versionReason(best))
	if best.facts.backend != "" {
		c.Reasons = append(c.Reasons, r.backendReason(best)) // forst.go
	}
	if v != nil {
		c.Reasons = append(c.Reasons, fmt.Sprintf("%s: all %d checked referenced files exist with their recorded sizes (%d listing(s), %d attribute calls)",
			best.name(), v.Checked(), v.Lists, v.Attributes))
		if len(pos.ExtraRoots) > 0 {
			c.Reasons = append(c.Reasons, fmt.Sprintf("%s: referenced files outside its root checked through the extra root(s) %s (Options.ExtraRoots, --flink-extra-root): Flink reads them at those paths",
				best.name(), strings.Join(pos.ExtraRoots, ", ")))
		}
	}
	for _, h := range heads {
		if h != best {
			c.Reasons = append(c.Reasons, rankReason(best, h, r.opts.Intent))
		}
	}
	c.Warnings = append(c.Warnings, passedWarnings(above, r.opts.Live == nil)...)
	if r.opts.Intent == IntentUpgrade && best.savepoint {
		var newer []string
		for _, h := range heads {
			if !h.savepoint && h.eff.After(best.eff) {
				newer = append(newer, h.name())
			}
		}
		if len(newer) > 0 {
			c.Warnings = append(c.Warnings, resume.Warnf(WarnSavepointPreferred, "for an upgrade the savepoint was chosen over newer checkpoints (%s): the job goes back to the savepoint and reads again what came after it; make sure the sources still hold that input",
				strings.Join(newer, ", ")))
		}
	}
	if best.kindUnknown {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnKindUnknown, "%s: checkpoint or savepoint, nothing tells: a version %d _metadata records no properties, and Flink names its dirs chk-<n> or savepoint-…, so this one was renamed by hand",
			best.name(), best.md.Version))
	}
	if best.md.Drained {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnDrainedSavepoint, "drained savepoint (stop --drain): the old job emitted its final watermark and fired all event-time timers; windows and timers do not resume where a running job would be"))
	}
	c.Warnings = append(c.Warnings, restoreWarnings(best.name(), best.facts)...)
	switch {
	case v == nil:
		c.Warnings = append(c.Warnings, resume.Warnf(WarnVerificationOff, "referenced files not checked: verification is off"))
	case vd.state == StateUnverified:
		c.Warnings = append(c.Warnings, resume.Warnf(WarnUnverifiedReferences, "references not checked (allowed by Options.AllowUnverified): %s", vd.why))
	}
	if best.fromFallback {
		c.Warnings = append(c.Warnings, resume.Warnf(WarnPathFromLocation, "the Flink path %s comes from the storage location (the snapshot's references are all relative): if Flink names this file system differently (s3a://, s3p://, an HDFS name service), pass the Flink root", pos.Path))
	}
	return c
}

// keepAdvice is the warning on keeping the chosen snapshot, by claim mode.
func (r *Resolver) keepAdvice(best *snap, path string) resume.Warning {
	mode, why := r.claimFor(best)
	return keepAdvice(strings.TrimSuffix(path, "/"), mode, why)
}

// claimFlagWarning says when the launch's run line had to assume the Flink
// version to name the claim mode (see launch); false when it did not.
func (r *Resolver) claimFlagWarning(best *snap) (resume.Warning, bool) {
	mode, _ := r.claimFor(best)
	if r.opts.Deployment == DeploymentApplication {
		return claimModeNotHonoured(mode, best.facts.backend == BackendChangelog || best.changelogLineage != "")
	}
	v, _ := parseFlinkVersion(r.opts.FlinkVersion)
	if v.Known() || mode == ClaimNoClaim || mode == ClaimAuto {
		return resume.Warning{}, false
	}
	return claimFlagAssumed(mode), true
}

// claimNativeSavepointWarning warns when the launch restores a native
// savepoint of incremental RocksDB state in CLAIM mode. Flink then lets the
// new job's incremental checkpoints reuse the savepoint's files, and their
// _metadata records them by the savepoint's relative names, which Flink
// resolves against each checkpoint's own chk-<n> dir: the checkpoints
// reference files that are not there and cannot be restored
// (FileNotFoundException). Real Flink 1.20.3 did so in conformance F9 —
// not in every run, sometimes in the first checkpoint only, sometimes in
// the next one too (FLINK-39964; no version with the fix is known to
// resumekit, so every version with claim modes is warned about). NO_CLAIM
// is not affected: its first checkpoint is a full one sharing no file.
func (r *Resolver) claimNativeSavepointWarning(best *snap, path string) (resume.Warning, bool) {
	mode, _ := r.claimFor(best)
	if mode != ClaimClaim || !best.savepoint || best.md.Format != metadata.FormatNative || (best.facts.backend != BackendRocksDBIncremental && best.facts.backend != BackendForSt) {
		return resume.Warning{}, false
	}
	way := "restore in NO_CLAIM mode instead (its first checkpoint is full and shares no file with the savepoint)"
	if best.changelogLineage != "" {
		way = "NO_CLAIM is no way out: the job runs the changelog state backend (" + best.changelogLineage + "), which cannot take NO_CLAIM's full first checkpoint; take a canonical savepoint (stop --type canonical) and restore that in CLAIM"
	}
	return resume.Warnf(WarnClaimNativeSavepoint, "CLAIM restore of the native savepoint %s (incremental RocksDB state): the new job's incremental checkpoints, from its first, may reference the savepoint's files by relative names resolved against their own chk-<n> dirs, where they are not, and then cannot be restored (FileNotFoundException; FLINK-39964, seen on Flink 1.20.3 in conformance F9); %s",
		strings.TrimSuffix(path, "/"), way), true
}

// passedWarnings warn about completed snapshots ranked above the choice
// that were passed over: their transactions may already be committed.
// Unless the sources were checked live (unchecked), going back also means
// what the live check would decide per source: said in the warning.
func passedWarnings(above []passed, unchecked bool) []resume.Warning {
	var broken, unverified, refused, failing, unreadable []string
	for _, p := range above {
		switch p.kind {
		case passBroken:
			broken = append(broken, p.name)
		case passUnverified:
			unverified = append(unverified, p.name)
		case passRefused:
			refused = append(refused, p.name)
		case passFailingRestore:
			failing = append(failing, p.name)
		case passUnreadable:
			unreadable = append(unreadable, p.name)
		case passIncompatible:
			// applyJob warns about those (WarnOlderThanIncompatible).
		}
	}
	dup := "they completed, so transactional sinks may already have published what they committed"
	if unchecked {
		dup += " (and, per source, what no live check decided here: data loss for a Flink CDC Postgres source, whose slot confirmed a newer checkpoint's LSN so the server forwards an older start past it, and for sinks that skip by checkpoint id; a restore that fails for a Paimon source whose snapshots expired meanwhile: check the sources with Options.Live, --kafka-brokers, --paimon-table)"
	}
	dup += " — expect duplicates downstream"
	var out []resume.Warning
	if len(broken) > 0 {
		out = append(out, resume.Warnf(WarnOlderThanBroken, "older snapshot chosen because newer ones are broken (%s): %s", strings.Join(broken, ", "), dup))
	}
	if len(unverified) > 0 {
		out = append(out, resume.Warnf(WarnOlderThanUnverified, "older snapshot chosen because newer ones could not be verified (%s; map their files to use them): %s", strings.Join(unverified, ", "), dup))
	}
	if len(failing) > 0 {
		out = append(out, resume.Warnf(WarnOlderThanFailingRestore, "older snapshot chosen because newer ones would fail to restore (%s: a source's input expired, see the reasons): %s", strings.Join(failing, ", "), dup))
	}
	if len(unreadable) > 0 {
		out = append(out, resume.Warnf(WarnOlderThanUnreadable, "older snapshot chosen because the new job's Flink cannot read newer ones (%s: a _metadata version it does not register, see the reasons): %s", strings.Join(unreadable, ", "), dup))
	}
	if len(refused) > 0 {
		out = append(out, resume.Warnf(WarnOlderThanRefused, "older snapshot chosen because newer ones cannot serve an upgrade (%s): %s", strings.Join(refused, ", "), dup))
	}
	return out
}

// distinctPaths returns the distinct paths a snapshot references.
func distinctPaths(s *snap) map[string]bool {
	out := map[string]bool{}
	for _, f := range s.md.Files {
		out[f.Path] = true
	}
	return out
}

// extraRootsUsed returns the extra roots (their Flink roots, in the order
// first used) through which verified files were mapped.
func extraRootsUsed(v *Verification) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range v.Files {
		if f.Root != "" && f.Checked && !seen[f.Root] {
			seen[f.Root] = true
			out = append(out, f.Root)
		}
	}
	return out
}
