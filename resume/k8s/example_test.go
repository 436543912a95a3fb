package k8s_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/k8s"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// An operator restarts a FlinkDeployment from the chosen checkpoint. It
// patches only a clean decision; the nonce comes from the position, so a
// second reconcile of the same decision does not redeploy again.
func ExampleNewPatch() {
	checkpoints := resumetest.Static("flink-checkpoints", resume.Candidate{
		Position: resumetest.Position{PositionKind: "flink-checkpoint", Summary: "chk-42 of job 4b1c",
			Start: resume.Launch{Args: []string{"-s", "s3a://b/ck/4b1c/chk-42"}, Config: map[string]string{
				resume.ConfigStateRecoveryPath:        "s3a://b/ck/4b1c/chk-42",
				"execution.state-recovery.claim-mode": "NO_CLAIM",
			}}},
		Guarantee: resume.ExactlyOnce, At: t0, Reasons: []string{"chk-42: all referenced files present"},
	})
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{checkpoints}}).Resolve(context.Background())
	if resume.Classify(d, err) != resume.ResultChosen {
		fmt.Println("not redeploying:", err)
		return
	}
	patch, err := k8s.NewPatch(d.Chosen, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := json.MarshalIndent(patch, "", "  ")
	fmt.Println(string(body))
	again, _ := k8s.NewPatch(d.Chosen, nil)
	fmt.Println("same nonce again:", again.Spec.Job.SavepointRedeployNonce == patch.Spec.Job.SavepointRedeployNonce)
	// Output:
	// {
	//   "spec": {
	//     "job": {
	//       "initialSavepointPath": "s3a://b/ck/4b1c/chk-42",
	//       "savepointRedeployNonce": 3063823428134869
	//     },
	//     "flinkConfiguration": {
	//       "execution.state-recovery.claim-mode": "NO_CLAIM"
	//     }
	//   }
	// }
	// same nonce again: true
}

// A stateless winner has no patch: the operator cannot redeploy from
// "no savepoint", and a new nonce would restore the spec's old one.
func ExampleNewPatch_stateless() {
	consumer := &resume.Candidate{
		Resolver: "paimon-consumer",
		Position: resumetest.Position{PositionKind: "paimon-snapshot", Summary: "snapshot 121 of db.t",
			Start: resume.Launch{Options: map[string]string{"consumer-id": "job-1"}}},
		Guarantee: resume.ExactInput,
	}
	_, err := k8s.NewPatch(consumer, nil)
	fmt.Println(errors.Is(err, k8s.ErrStateless))
	fmt.Println(err)
	// Output:
	// true
	// k8s: the position restores no checkpoint or savepoint: the paimon-snapshot position of paimon-consumer (snapshot 121 of db.t); start the job stateless with its source options 'consumer-id'='job-1'
}
