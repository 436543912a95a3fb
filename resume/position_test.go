package resume_test

import (
	"testing"

	"github.com/resumekit/resumekit/resume"
)

func TestLaunchRestorePath(t *testing.T) {
	const p = "s3a://b/ck/4b1c/chk-42"
	for _, tc := range []struct {
		name   string
		launch resume.Launch
		want   string
	}{
		{"FlagS", resume.Launch{Args: []string{"-s", p}}, p},
		{"LongFlag", resume.Launch{Args: []string{"--allowNonRestoredState", "--fromSavepoint", p}}, p},
		{"ArgsWinOverConfig", resume.Launch{Args: []string{"-s", p}, Config: map[string]string{resume.ConfigStateRecoveryPath: "s3a://other"}}, p},
		{"StateRecoveryPath", resume.Launch{Config: map[string]string{resume.ConfigStateRecoveryPath: p, resume.ConfigSavepointPath: "s3a://old"}}, p},
		{"SavepointPathBefore120", resume.Launch{Config: map[string]string{resume.ConfigSavepointPath: p}}, p},
		{"Stateless", resume.Launch{Options: map[string]string{"consumer-id": "job-1"}}, ""},
		{"DanglingFlag", resume.Launch{Args: []string{"-s"}}, ""},
		{"Zero", resume.Launch{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.launch.RestorePath(); got != tc.want {
				t.Errorf("RestorePath() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLaunchAllowNonRestoredState(t *testing.T) {
	for _, tc := range []struct {
		launch resume.Launch
		want   bool
	}{
		{resume.Launch{Args: []string{"-s", "p"}}, false},
		{resume.Launch{Args: []string{"-s", "p", "--allowNonRestoredState"}}, true},
		{resume.Launch{Args: []string{"-n", "-s", "p"}}, true},
		{resume.Launch{Config: map[string]string{resume.ConfigIgnoreUnclaimedState: "TRUE"}}, true},
		{resume.Launch{Config: map[string]string{resume.ConfigSavepointIgnoreUnclaimedState: "true"}}, true},
		{resume.Launch{Config: map[string]string{resume.ConfigIgnoreUnclaimedState: "false"}}, false},
	} {
		if got := tc.launch.AllowNonRestoredState(); got != tc.want {
			t.Errorf("%+v: %v", tc.launch, got)
		}
	}
}
