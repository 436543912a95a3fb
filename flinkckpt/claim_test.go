package flinkckpt_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/internal/fixtures"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/k8s"
)

// TestClaimModeInLaunch (item 4): the claim mode is part of the launch.
// Launch.Config carries execution.state-recovery.claim-mode and
// execution.savepoint-restore-mode with one value: NO_CLAIM by default,
// CLAIM for a changelog snapshot (NO_CLAIM forces a full first checkpoint
// the changelog backend cannot take). The Flink version picks the run
// line's flag (-claimMode from 1.20, -restoreMode 1.15–1.19, none before),
// and the keep-advice follows the mode.
func TestClaimModeInLaunch(t *testing.T) {
	const path = "s3a://bucket/ck/" + jobA + "/chk-2"
	cfg := func(mode string) map[string]string {
		m := map[string]string{"execution.state-recovery.path": path, "execution.savepoint.path": path}
		if mode != "" {
			m["execution.state-recovery.claim-mode"] = mode
			m["execution.savepoint-restore-mode"] = mode
		}
		return m
	}
	for _, tc := range []struct {
		name     string
		backend  string
		opts     flinkckpt.Options
		wantArgs []string
		wantMode string
		wantWarn resume.WarningCode
	}{
		{"DefaultNoClaim", "", flinkckpt.Options{}, []string{"-s", path}, "NO_CLAIM", flinkckpt.WarnKeepUntilFirstCheckpoint},
		{"Flink120", "", flinkckpt.Options{FlinkVersion: "1.20"}, []string{"-s", path, "-claimMode", "NO_CLAIM"}, "NO_CLAIM", flinkckpt.WarnKeepUntilFirstCheckpoint},
		{"Flink2", "", flinkckpt.Options{FlinkVersion: "2.0.1"}, []string{"-s", path, "-claimMode", "NO_CLAIM"}, "NO_CLAIM", flinkckpt.WarnKeepUntilFirstCheckpoint},
		{"Flink117", "", flinkckpt.Options{FlinkVersion: "1.17"}, []string{"-s", path, "-restoreMode", "NO_CLAIM"}, "NO_CLAIM", flinkckpt.WarnKeepUntilFirstCheckpoint},
		{"Flink115", "", flinkckpt.Options{FlinkVersion: "1.15.4"}, []string{"-s", path, "-restoreMode", "NO_CLAIM"}, "NO_CLAIM", flinkckpt.WarnKeepUntilFirstCheckpoint},
		{"Flink114NoModes", "", flinkckpt.Options{FlinkVersion: "1.14"}, []string{"-s", path}, "", flinkckpt.WarnKeepWhileReferenced},
		{"ChangelogClaims", "changelog", flinkckpt.Options{FlinkVersion: "1.19"}, []string{"-s", path, "-restoreMode", "CLAIM"}, "CLAIM", flinkckpt.WarnOwnedByNewJob},
		{"ChangelogOnOldFlink", "changelog", flinkckpt.Options{FlinkVersion: "1.14"}, []string{"-s", path}, "", flinkckpt.WarnKeepWhileReferenced},
		// Without a version a mode other than NO_CLAIM is still named on
		// the run line (flink run -s alone restores NO_CLAIM whatever -D
		// says: conformance F3), with 1.20's flag and a warning.
		{"AskedLegacy", "", flinkckpt.Options{ClaimMode: flinkckpt.ClaimLegacy}, []string{"-s", path, "-claimMode", "LEGACY"}, "LEGACY", flinkckpt.WarnKeepWhileReferenced},
		{"ChangelogUnknownVersion", "changelog", flinkckpt.Options{}, []string{"-s", path, "-claimMode", "CLAIM"}, "CLAIM", flinkckpt.WarnOwnedByNewJob},
		// An application cluster started from its own command line does
		// not parse the flag (FLINK-40559): the -D keys only.
		{"ApplicationNoFlag", "", flinkckpt.Options{FlinkVersion: "1.20", Deployment: flinkckpt.DeploymentApplication}, []string{"-s", path}, "NO_CLAIM", flinkckpt.WarnKeepUntilFirstCheckpoint},
		{"ApplicationChangelog", "changelog", flinkckpt.Options{FlinkVersion: "1.20", Deployment: flinkckpt.DeploymentApplication}, []string{"-s", path}, "CLAIM", flinkckpt.WarnOwnedByNewJob},
		{"SessionChangelog", "changelog", flinkckpt.Options{FlinkVersion: "1.20", Deployment: flinkckpt.DeploymentSession}, []string{"-s", path, "-claimMode", "CLAIM"}, "CLAIM", flinkckpt.WarnOwnedByNewJob},
		{"AskedNoClaimForChangelog", "changelog", flinkckpt.Options{ClaimMode: flinkckpt.ClaimNoClaim}, []string{"-s", path}, "NO_CLAIM", flinkckpt.WarnKeepUntilFirstCheckpoint},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "ck/", "s3a://bucket/", nil)
			version := 0
			if strings.HasPrefix(tc.opts.FlinkVersion, "1.14") || strings.HasPrefix(tc.opts.FlinkVersion, "1.15") {
				version = 3 // what Flink 1.11–1.15 write and read (4 came with 1.16)
			}
			e.chk(jobA, 2, t0, &flinkckpttest.Checkpoint{Version: version, Shared: shared("a", 1), StateBackend: tc.backend})
			o := tc.opts
			c, p := e.mustResolve(&o)
			want := resume.Launch{Args: tc.wantArgs, Config: cfg(tc.wantMode)}
			if diff := cmp.Diff(want, p.Launch()); diff != "" {
				t.Errorf("launch (-want +got):\n%s", diff)
			}
			assumed := tc.opts.FlinkVersion == "" && tc.wantMode != "NO_CLAIM" && tc.wantMode != ""
			if c.HasWarning(flinkckpt.WarnClaimFlagAssumed) != assumed {
				t.Errorf("claim-flag-assumed warning %v, want %v: %q", c.HasWarning(flinkckpt.WarnClaimFlagAssumed), assumed, c.Warnings)
			}
			if p.ClaimMode != tc.wantMode || !c.HasWarning(tc.wantWarn) {
				t.Errorf("mode %q, warnings %q", p.ClaimMode, c.Warnings)
			}
			// #12's words for each mode, literally, and the path.
			phrase := map[resume.WarningCode]string{
				flinkckpt.WarnKeepUntilFirstCheckpoint: "until the new job's first completed checkpoint",
				flinkckpt.WarnOwnedByNewJob:            "Flink owns it now",
				flinkckpt.WarnKeepWhileReferenced:      "do not delete while the new job's checkpoints may reference it",
			}[tc.wantWarn]
			for _, w := range c.Warnings {
				if w.Code == tc.wantWarn && (!strings.Contains(w.Text, phrase) || !strings.Contains(w.Text, path)) {
					t.Errorf("%s: %q does not say %q and the path", w.Code, w.Text, phrase)
				}
			}
			for _, other := range []resume.WarningCode{flinkckpt.WarnKeepUntilFirstCheckpoint, flinkckpt.WarnOwnedByNewJob, flinkckpt.WarnKeepWhileReferenced} {
				if other != tc.wantWarn && c.HasWarning(other) {
					t.Errorf("also warns %s: %q", other, c.Warnings)
				}
			}
			// An application cluster's entry point restores NO_CLAIM
			// whatever -D says: a CLAIM launch there is warned about.
			if notHonoured := tc.opts.Deployment == flinkckpt.DeploymentApplication && tc.wantMode == "CLAIM"; c.HasWarning(flinkckpt.WarnClaimModeNotHonoured) != notHonoured {
				t.Errorf("claim-mode-not-honoured %v, want %v: %q", c.HasWarning(flinkckpt.WarnClaimModeNotHonoured), notHonoured, c.Warnings)
			}
			if tc.backend == "changelog" && tc.wantMode == "CLAIM" && !hasWarning(c.Warnings, flinkckpt.WarnOwnedByNewJob, `^CLAIM: Flink owns it now: restored in CLAIM mode \(changelog state backend: NO_CLAIM forces a full first checkpoint.*FLINK-38307\), s3a://.*/chk-2 belongs to the new job`) {
				t.Errorf("warnings %q", c.Warnings)
			}
		})
	}
	if _, err := flinkckpt.ParseClaimMode("no_claim"); err != nil {
		t.Error(err)
	}
	if _, err := flinkckpt.ParseClaimMode("own"); err == nil {
		t.Error("ParseClaimMode accepted own")
	}
}

// TestOldDocumentLaunchUnchanged: a position read back from a document
// written before claim modes (no claim_mode field) launches as it did.
func TestOldDocumentLaunchUnchanged(t *testing.T) {
	var p flinkckpt.Position
	old := `{"path":"s3a://b/ck/j/chk-1","key":"ck/j/chk-1/","job_id":"j","checkpoint_id":1,"savepoint":false,"format":"","version":4}`
	if err := json.Unmarshal([]byte(old), &p); err != nil {
		t.Fatal(err)
	}
	want := resume.Launch{Args: []string{"-s", "s3a://b/ck/j/chk-1"}, Config: map[string]string{
		"execution.state-recovery.path": "s3a://b/ck/j/chk-1", "execution.savepoint.path": "s3a://b/ck/j/chk-1"}}
	if diff := cmp.Diff(want, p.Launch()); diff != "" {
		t.Errorf("launch (-want +got):\n%s", diff)
	}
}

// TestClaimModeRealChangelogFixture: the real Flink 1.16 changelog
// checkpoint is restored in CLAIM mode.
func TestClaimModeRealChangelogFixture(t *testing.T) {
	fb, err := fileblob.OpenBucket(fixtures.Dir(t), &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	r, err := flinkckpt.NewResolver(fb, "v4-flink1.16-changelog-checkpoint", &flinkckpt.Options{FlinkRoot: "file:/fixtures", FlinkVersion: "1.16"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := flinkckpt.PositionOf(c.Position)
	if p.StateBackend != flinkckpt.BackendChangelog || p.ClaimMode != "CLAIM" || !c.HasWarning(flinkckpt.WarnOwnedByNewJob) ||
		p.Launch().Config["execution.savepoint-restore-mode"] != "CLAIM" || p.Launch().Args[2] != "-restoreMode" {
		t.Errorf("%+v %+v %q", p, p.Launch(), c.Warnings)
	}
}

// TestClaimModeInK8sPatch (item 4): the flink-kubernetes-operator patch
// carries the claim mode in spec.flinkConfiguration, both keys, CLAIM for
// a changelog checkpoint.
func TestClaimModeInK8sPatch(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 2, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1), StateBackend: "changelog"})
	c, p := e.mustResolve(&flinkckpt.Options{FlinkVersion: "1.20"})
	patch, err := k8s.NewPatch(&c, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"execution.state-recovery.claim-mode": "CLAIM", "execution.savepoint-restore-mode": "CLAIM"}
	if diff := cmp.Diff(want, patch.Spec.FlinkConfiguration); diff != "" || patch.Spec.Job.InitialSavepointPath != p.Path {
		t.Errorf("flinkConfiguration (-want +got):\n%s\njob %+v", diff, patch.Spec.Job)
	}
}

// TestClaimModeWithAllowNonRestoredState: a snapshot offered to a new job
// that drops part of its state (Options.Job with AllowNonRestoredState)
// launches with both the claim mode and --allowNonRestoredState: the run
// line, the configuration keys, and the k8s patch (claim mode in
// spec.flinkConfiguration, spec.job.allowNonRestoredState).
func TestClaimModeWithAllowNonRestoredState(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 2, t0, &flinkckpttest.Checkpoint{Operators: 2, Shared: shared("a", 1)})
	c, p := e.mustResolve(&flinkckpt.Options{FlinkVersion: "1.20", Job: jobOf(t, 0), AllowNonRestoredState: true})
	if c.Guarantee != resume.ExactInput || !p.AllowNonRestoredState || p.ClaimMode != "NO_CLAIM" {
		t.Fatalf("%s, position %+v", c.Guarantee, p)
	}
	l := c.Position.Launch()
	if diff := cmp.Diff([]string{"-s", p.Path, "-claimMode", "NO_CLAIM", "--allowNonRestoredState"}, l.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	wantConfig := map[string]string{
		"execution.state-recovery.path": p.Path, "execution.savepoint.path": p.Path,
		"execution.state-recovery.claim-mode": "NO_CLAIM", "execution.savepoint-restore-mode": "NO_CLAIM",
		"execution.state-recovery.ignore-unclaimed-state": "true", "execution.savepoint.ignore-unclaimed-state": "true",
	}
	if diff := cmp.Diff(wantConfig, l.Config); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	patch, err := k8s.NewPatch(&c, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"execution.state-recovery.claim-mode": "NO_CLAIM", "execution.savepoint-restore-mode": "NO_CLAIM"}
	if diff := cmp.Diff(want, patch.Spec.FlinkConfiguration); diff != "" || patch.Spec.Job.AllowNonRestoredState == nil || !*patch.Spec.Job.AllowNonRestoredState {
		t.Errorf("flinkConfiguration (-want +got):\n%s\njob %+v", diff, patch.Spec.Job)
	}
}

// TestClaimNativeSavepointWarns (conformance F9): a CLAIM restore of a
// native savepoint of incremental RocksDB state warns
// flink.claim-native-savepoint — real Flink 1.20.3 left the new job's
// incremental checkpoints referencing the savepoint's files by relative
// names under their own chk-<n> dirs, unrestorable. The real Flink 1.19 native
// savepoint warns in CLAIM mode (asked, any version with claim modes) and
// not in NO_CLAIM; a canonical savepoint and an incremental checkpoint
// restored in CLAIM mode do not warn.
func TestClaimNativeSavepointWarns(t *testing.T) {
	fb, err := fileblob.OpenBucket(fixtures.Dir(t), &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	for _, tc := range []struct {
		dir     string
		mode    flinkckpt.ClaimMode
		version string
		want    bool
	}{
		{"v4-flink1.19-rocksdb-native-savepoint", flinkckpt.ClaimClaim, "1.20", true},
		{"v4-flink1.19-rocksdb-native-savepoint", flinkckpt.ClaimClaim, "", true},
		{"v4-flink1.19-rocksdb-native-savepoint", flinkckpt.ClaimNoClaim, "1.20", false},
		{"v4-flink1.19-rocksdb-native-savepoint", flinkckpt.ClaimAuto, "1.20", false},
		{"v4-flink1.19-hashmap-canonical-savepoint", flinkckpt.ClaimClaim, "1.20", false},
		{"v4-flink1.17-rocksdb-incremental-checkpoint", flinkckpt.ClaimClaim, "1.20", false},
	} {
		r, err := flinkckpt.NewResolver(fb, tc.dir, &flinkckpt.Options{FlinkRoot: "file:/fixtures", ClaimMode: tc.mode, FlinkVersion: tc.version})
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", tc.dir, err)
		}
		if got := c.HasWarning(flinkckpt.WarnClaimNativeSavepoint); got != tc.want {
			t.Errorf("%s %q Flink %q: claim-native-savepoint %v, want %v: %q", tc.dir, tc.mode, tc.version, got, tc.want, c.Warnings)
		}
		if tc.want && !hasWarning(c.Warnings, flinkckpt.WarnClaimNativeSavepoint,
			`^CLAIM restore of the native savepoint file:/+fixtures/`+tc.dir+` .*incremental checkpoints, from its first.*cannot be restored.*restore in NO_CLAIM mode`) {
			t.Errorf("%s: text %q", tc.dir, c.Warnings)
		}
	}
}
