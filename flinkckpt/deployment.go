package flinkckpt

import (
	"fmt"
	"strings"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

// Deployment is how the new job is started, which decides the form of the
// claim mode its command line honours (Options.Deployment): one of the
// Deployment* constants, a closed set.
type Deployment string

// How the new job is started.
const (
	// DeploymentUnknown (the zero value) is taken as DeploymentSession.
	DeploymentUnknown Deployment = ""
	// DeploymentSession: flink run (or run-application, run -t
	// yarn-application, kubernetes-application): CliFrontend parses
	// -claimMode (1.20+) and writes the restore settings of its command
	// line over the -D keys, so the run line names the mode with the flag
	// too (conformance F3).
	DeploymentSession Deployment = "session"
	// DeploymentApplication: an application cluster started from the
	// JobManager's own command line (standalone-job.sh, the Docker image's
	// standalone-job, a standalone Kubernetes application): its parser
	// (StandaloneApplicationClusterConfigurationParserFactory) registers
	// -s and --allowNonRestoredState but not -claimMode, and stops at the
	// first option it does not know, so -claimMode and every word after it
	// would become the program's arguments (FLINK-40559, open). The run
	// line leaves the flag out; the mode is in the -D keys only.
	DeploymentApplication Deployment = "application"
)

// ParseDeployment reads a deployment in any case ("Application"); "" is
// DeploymentUnknown.
func ParseDeployment(s string) (Deployment, error) {
	d := Deployment(strings.ToLower(strings.TrimSpace(s)))
	if err := d.validate(); err != nil {
		return "", err
	}
	return d, nil
}

func (d Deployment) validate() error {
	switch d {
	case DeploymentUnknown, DeploymentSession, DeploymentApplication:
		return nil
	}
	return fmt.Errorf("flinkckpt: deployment %s: want session or application", redact.Quote(string(d)))
}

// claimModeNotHonoured warns when an application cluster is launched in a
// claim mode other than NO_CLAIM. Its command line cannot name the mode
// (FLINK-40559), and its entry point writes the command line's restore
// settings over the configuration (StandaloneApplicationClusterEntryPoint
// calls SavepointRestoreSettings.toConfiguration after loading the -D
// keys, and toConfiguration sets the claim mode unconditionally: NO_CLAIM
// when the command line named none — read from the Flink 1.20.3 and 2.2.0
// jars), so the job restores in NO_CLAIM whatever the -D key says.
func claimModeNotHonoured(mode ClaimMode, changelog bool) (resume.Warning, bool) {
	if mode == ClaimAuto || mode == ClaimNoClaim {
		return resume.Warning{}, false
	}
	then := "the snapshot is not handed to the new job, which neither deletes it nor owns it"
	if changelog {
		then = "the changelog state backend then fails the new job's first checkpoint (\"does not support enforcing a full snapshot\"), with a restart strategy in a loop"
	}
	return resume.Warnf(WarnClaimModeNotHonoured, "the launch needs claim mode %s but starts an application cluster from its command line: its parser does not know -claimMode (FLINK-40559, open: the flag and every word after it would become the program's arguments, so the run line leaves it out), and its entry point writes the command line's restore settings, NO_CLAIM without the flag, over -Dexecution.state-recovery.claim-mode (SavepointRestoreSettings.toConfiguration in Flink 1.20.3 and 2.2.0), so it restores in NO_CLAIM: %s; start it with flink run -claimMode %s (a session, or run -t …-application) or through the flink-kubernetes-operator (resumectl resolve --format k8s), whose configuration is not overwritten",
		mode, then, mode), true
}
