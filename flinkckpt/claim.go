package flinkckpt

import (
	"fmt"
	"strings"

	"github.com/resumekit/resumekit/internal/version"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

// ClaimMode is how the new job takes over the restored snapshot's files:
// Flink's RecoveryClaimMode (1.20; RestoreMode in 1.15–1.19). It is part of
// the launch: the keep-advice depends on it.
//
// The position's launch names the restore path and the claim mode
// ([ClaimMode]): NO_CLAIM by default, CLAIM for snapshots of the changelog
// state backend (NO_CLAIM forces a full first checkpoint it cannot take)
// and for the savepoints of a job whose checkpoints in the locations show
// it (a savepoint holds only the nested backend's state).
// The keep-advice follows the mode, and the position carries what the
// snapshot allows: verified or not, state backend family, unaligned,
// finished operators, savepoint format and post-checkpoint action.
type ClaimMode string

// Claim modes. ClaimAuto, the zero value, lets the resolver choose:
// ClaimNoClaim, or ClaimClaim for a snapshot of the changelog state
// backend.
const (
	ClaimAuto ClaimMode = ""
	// ClaimNoClaim: Flink never deletes the snapshot; the new job's first
	// checkpoint is a full one and shares no file with it (Flink's default
	// since 1.15). A new job running the changelog state backend cannot
	// take that full checkpoint (its backend does not support NO_CLAIM,
	// FLINK-38307): it restores, then fails its first checkpoint — whatever
	// the snapshot, so a job that enables the changelog backend on restore
	// needs ClaimClaim.
	ClaimNoClaim ClaimMode = "NO_CLAIM"
	// ClaimClaim: the new job owns the snapshot and deletes it once a newer
	// checkpoint subsumes it. A native RocksDB savepoint restored in CLAIM
	// mode can leave the new job's incremental checkpoints unrestorable
	// (WarnClaimNativeSavepoint, conformance F9).
	ClaimClaim ClaimMode = "CLAIM"
	// ClaimLegacy: Flink neither deletes the snapshot nor stops depending on
	// it (deprecated since 1.19, FLIP-416): the new job's incremental
	// checkpoints may keep referencing its files.
	ClaimLegacy ClaimMode = "LEGACY"
)

// The Flink configuration keys of a restore. Every version reads the old
// keys (1.15–1.19 only those); 1.20's StateRecoveryOptions keeps them as
// deprecated fallbacks, so a launch sets both with the same value.
const (
	configRecoveryPath  = "execution.state-recovery.path"       // 1.20 (StateRecoveryOptions.SAVEPOINT_PATH)
	configSavepointPath = "execution.savepoint.path"            // before 1.20
	configClaimMode     = "execution.state-recovery.claim-mode" // 1.20 (StateRecoveryOptions.RESTORE_MODE)
	configRestoreMode   = "execution.savepoint-restore-mode"    // 1.15–1.19
)

// ParseClaimMode reads a claim mode in any case ("no_claim", "CLAIM"); ""
// is ClaimAuto.
func ParseClaimMode(s string) (ClaimMode, error) {
	m := ClaimMode(strings.ToUpper(strings.TrimSpace(s)))
	if err := m.validate(); err != nil {
		return "", err
	}
	return m, nil
}

func (m ClaimMode) validate() error {
	switch m {
	case ClaimAuto, ClaimNoClaim, ClaimClaim, ClaimLegacy:
		return nil
	}
	return fmt.Errorf("flinkckpt: claim mode %s: want NO_CLAIM, CLAIM or LEGACY", redact.Quote(string(m)))
}

// flinkVersion is the new job's Flink version (Options.FlinkVersion), for
// the run line's claim-mode flag. The zero value means unknown.
type flinkVersion struct{ version.Version }

// parseFlinkVersion reads "1.20", "1.19.1", "v1.20" or "1.20-SNAPSHOT"
// (version.ParseFlink). Its error names the input but not the field.
func parseFlinkVersion(s string) (flinkVersion, error) {
	v, err := version.ParseFlink(s)
	return flinkVersion{v}, err
}

// hasClaimModes: restore modes came with Flink 1.15 (FLIP-193). An unknown
// version is assumed to have them.
func (v flinkVersion) hasClaimModes() bool { return !v.Known() || v.AtLeast(1, 15) }

// claimFlagAssumed is the warning for a launch whose run line names a
// claim mode other than NO_CLAIM with -claimMode while the new job's Flink
// version is unknown (see launch).
func claimFlagAssumed(mode ClaimMode) resume.Warning {
	return resume.Warnf(WarnClaimFlagAssumed, "the run line names -claimMode %s (Flink 1.20+): without a flag flink run -s restores NO_CLAIM whatever -D says; on Flink 1.15–1.19 write -restoreMode %s instead (or give the new job's version: --flink-version, Options.FlinkVersion)",
		mode, mode)
}

// runFlag is the flink run option that names the claim mode: -claimMode
// from 1.20 (CliFrontendParser's SAVEPOINT_CLAIM_MODE, --claimMode),
// -restoreMode in 1.15–1.19 (deprecated in 1.20), none before 1.15 or when
// the version is unknown (the launch's configuration carries the mode).
func (v flinkVersion) runFlag() string {
	switch {
	case !v.Known() || !v.hasClaimModes():
		return ""
	case v.AtLeast(1, 20):
		return "-claimMode"
	default:
		return "-restoreMode"
	}
}

// claimFor chooses the launch's claim mode for a snapshot and says why.
// It returns ClaimAuto when the new job's Flink has no claim modes.
func (o Options) claimFor(backend Backend) (ClaimMode, string) {
	v, _ := parseFlinkVersion(o.FlinkVersion)
	switch {
	case !v.hasClaimModes():
		return ClaimAuto, fmt.Sprintf("Flink %s has no claim modes: it restores as LEGACY does", o.FlinkVersion)
	case o.ClaimMode != ClaimAuto:
		return o.ClaimMode, "as asked (Options.ClaimMode)"
	case backend == BackendChangelog:
		// NO_CLAIM forces the first checkpoint after the restore to be a
		// full one, which the changelog state backend cannot take: the job
		// restores, then fails its first checkpoint ("does not support
		// enforcing a full snapshot", FLINK-38307, FLINK-40476).
		return ClaimClaim, "changelog state backend: NO_CLAIM forces a full first checkpoint, which the changelog backend cannot take — FLINK-38307"
	}
	return ClaimNoClaim, "Flink's default"
}

// claimFor is Options.claimFor for the snapshot s: a savepoint whose own
// handles show only the nested backend, of a job whose checkpoints show
// the changelog state backend (changelogLineage), is launched in CLAIM as
// a changelog snapshot is. Flink 1.20 restores such a savepoint in NO_CLAIM
// and then fails the new job's first checkpoint ("Configured state
// backend (ChangelogStateBackend) does not support enforcing a full
// snapshot. If you are restoring in NO_CLAIM mode, please consider
// choosing CLAIM mode"), with a restart strategy in a loop.
func (r *Resolver) claimFor(s *snap) (ClaimMode, string) {
	mode, why := r.opts.claimFor(s.facts.backend)
	if s.changelogLineage != "" && mode == ClaimNoClaim && r.opts.ClaimMode == ClaimAuto {
		return ClaimClaim, fmt.Sprintf("the job runs the changelog state backend (its checkpoint %s shows it; the savepoint holds only the nested backend's state): NO_CLAIM forces a full first checkpoint, which the changelog backend cannot take — the new job would restore, then fail every first checkpoint", s.changelogLineage)
	}
	if mode == ClaimNoClaim && r.opts.ClaimMode == ClaimNoClaim && (s.facts.backend == BackendChangelog || s.changelogLineage != "") {
		// Asked for: launched so, but never silently. Real Flink did
		// this with such a savepoint (1.20.3, conformance F16) and
		// checkpoint (2.2.0, F3).
		shows := "its handles show it"
		if s.changelogLineage != "" {
			shows = "its checkpoint " + s.changelogLineage + " shows it"
		}
		why += fmt.Sprintf(", though the job runs the changelog state backend (%s): Flink restores it, then fails the new job's first checkpoint (\"Configured state backend (ChangelogStateBackend) does not support enforcing a full snapshot. If you are restoring in NO_CLAIM mode, please consider choosing CLAIM mode\"), with a restart strategy in a loop, unless the new job turns the changelog backend off", shows)
	}
	return mode, why
}

// changelogLineage finds, for a chosen savepoint whose handles do not show
// the changelog backend, the checkpoint that shows its job runs it: the
// newest checkpoint read of the savepoint's own job (job dirs whose id
// starts with the 6 characters of its savepoint-<job>-… name), or, with
// none in the locations, the newest checkpoint read of the application.
// "" when that checkpoint does not run the changelog backend.
func changelogLineage(best *snap, sources []*source) string {
	if !best.savepoint || best.facts.backend == BackendChangelog {
		return ""
	}
	prefix := ""
	if name := lastSegment(best.key); strings.HasPrefix(name, "savepoint-") {
		if rest := strings.TrimPrefix(name, "savepoint-"); len(rest) > 6 && rest[6] == '-' {
			prefix = rest[:6]
		}
	}
	var own, any *snap
	for _, s := range sources {
		h := s.head
		if s.job == nil || h == nil || h.savepoint {
			continue
		}
		if any == nil || h.mod.After(any.mod) {
			any = h
		}
		if prefix != "" && strings.HasPrefix(s.job.job, prefix) && (own == nil || h.mod.After(own.mod)) {
			own = h
		}
	}
	pick := own
	if pick == nil {
		pick = any
	}
	if pick == nil || pick.facts.backend != BackendChangelog {
		return ""
	}
	return pick.name()
}

// keepAdvice is the warning about keeping the restored snapshot, which
// follows the claim mode; each text holds #12's words for its mode: NO_CLAIM
// "until the new job's first completed checkpoint", CLAIM "Flink owns it
// now", LEGACY (and Flink before 1.15) "do not delete while the new job's
// checkpoints may reference it".
func keepAdvice(path string, mode ClaimMode, why string) resume.Warning {
	switch mode {
	case ClaimClaim:
		return resume.Warnf(WarnOwnedByNewJob, "CLAIM: Flink owns it now: restored in CLAIM mode (%s), %s belongs to the new job, which deletes it once a newer checkpoint subsumes it; do not delete it yourself or restore another job from it",
			why, path)
	case ClaimLegacy, ClaimAuto:
		return resume.Warnf(WarnKeepWhileReferenced, "do not delete while the new job's checkpoints may reference it (%s): in LEGACY mode (%s) the new job's incremental checkpoints keep using its files, with no point at which it becomes safe",
			path, why)
	}
	return resume.Warnf(WarnKeepUntilFirstCheckpoint, "keep %s until the new job's first completed checkpoint: in NO_CLAIM mode (%s) Flink never deletes it, and until then a failure restores from it again",
		path, why)
}

// launch returns flink run -s <path> with the claim-mode flag for the
// version (none for an application cluster, whose command line does not
// parse it), and the configuration keys of the restore path and claim mode
// (old and new keys, same values).
func launch(path string, mode ClaimMode, version string, d Deployment) resume.Launch {
	if path == "" {
		return resume.Launch{}
	}
	l := resume.Launch{
		Args: []string{"-s", path},
		Config: map[string]string{
			configRecoveryPath:  path,
			configSavepointPath: path,
		},
	}
	if mode != ClaimAuto {
		l.Config[configClaimMode] = string(mode)
		l.Config[configRestoreMode] = string(mode)
		v, _ := parseFlinkVersion(version)
		f := v.runFlag()
		if f == "" && !v.Known() && mode != ClaimNoClaim {
			// flink run -s without the flag restores NO_CLAIM whatever -D
			// says: CliFrontend writes the command line's restore settings
			// (NO_CLAIM by default) over the dynamic properties
			// (ProgramOptions.applyToConfiguration), which real Flink showed
			// in conformance F3. So a mode other than the default is always
			// named: -claimMode, 1.20's name (flink.claim-flag-assumed; a
			// 1.15–1.19 flink run refuses it loudly, and --flink-version
			// gives -restoreMode there).
			f = "-claimMode"
		}
		if f != "" && d != DeploymentApplication {
			// An application cluster's own command line does not parse
			// the flag (FLINK-40559): it and every word after it would
			// become the program's arguments. The -D keys carry the mode.
			l.Args = append(l.Args, f, string(mode))
		}
	}
	return l
}
