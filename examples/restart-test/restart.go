// Package restarttest is an example of testing your own restart logic with
// resumekit's test helpers. Plan is the kind of function a deploy tool has:
// given where a stateful job keeps its checkpoints and the Paimon table it
// streams from, it decides how to start the job — restore the newest complete
// checkpoint, else continue the job's Paimon consumer — and refuses to start
// when that would lose data.
//
// restart_test.go tests Plan against real file formats in memory:
// flinkckpttest writes checkpoint trees (complete, incomplete, broken),
// paimontest writes Paimon tables (snapshots, expiry, consumers), resumetest
// provides fixed resolvers and the contract check. Run it with
//
//	go test ./examples/restart-test
package restarttest

import (
	"context"
	"fmt"
	"strings"

	"github.com/resumekit/resumekit/resume"
)

// Start is how the deploy tool starts the job.
type Start struct {
	// FlinkArgs go to flink run (e.g. -s <checkpoint>).
	FlinkArgs []string
	// SourceHint goes into the job's SQL, after the source table's name,
	// when the start covers one source table.
	SourceHint string
	// SourceHints, when the start covers several source tables (a Paimon
	// table and a Kafka topic started together), holds each table's own
	// hint by table name: one hint for all would put a Paimon option on
	// the Kafka table, which the Kafka connector refuses. SourceHint is
	// then empty.
	SourceHints map[string]string
	// Because is the one-line explanation for the deploy log.
	Because string
}

// Plan resolves the job's sources and returns how to start it. It accepts a
// stateless restart from exact input (a Paimon consumer that had read every
// snapshot) but never a replay or data loss: the job's sink is not
// idempotent, and a consumer behind the table's latest snapshot is a replay
// (the job may have read on past its consumer file).
//
// It keeps the chain's fail-closed default (resume.BlockWeaker): when the
// checkpoint store cannot be read, the consumer is not used in its place —
// a checkpoint nobody could see may have restored the job's state — and Plan
// refuses to start, saying which source failed. Its error wraps
// resume.ErrRefused when candidates were offered and none was safe, and
// resume.ErrNoPosition only when every source answered with nothing.
func Plan(ctx context.Context, sources ...resume.Resolver) (*Start, error) {
	chain := &resume.Chain{Resolvers: sources, Policy: resume.Policy{MinGuarantee: resume.ExactInput}}
	d, err := chain.Resolve(ctx)
	if d.Chosen == nil {
		if failed := d.Failed(); len(failed) > 0 {
			return nil, fmt.Errorf("restart: not starting: %d source(s) could not be read, and %s could have offered a safer start: %w",
				len(failed), failed[0].Resolver, err)
		}
		return nil, fmt.Errorf("restart: no safe start position: %w", err)
	}
	l := d.Chosen.Position.Launch()
	s := &Start{FlinkArgs: l.Args, Because: fmt.Sprintf("%s: %s (%s)", d.Chosen.Resolver, d.Chosen.Position, d.Chosen.Guarantee)}
	switch {
	case len(l.Sources) > 0:
		s.SourceHints = map[string]string{}
		for _, so := range l.Sources {
			s.SourceHints[so.Table] = "/*+ OPTIONS(" + resume.HintOptions(so.Options) + ") */"
		}
	case len(l.Options) > 0:
		s.SourceHint = "/*+ OPTIONS(" + resume.HintOptions(l.Options) + ") */"
	}
	if err != nil {
		// Some source could not be read, but the chain chose anyway: the
		// failed source could not have offered more than the chosen one
		// (the fail-closed default blocks everything weaker). Start, and put
		// the failure in the deploy log.
		s.Because += "; ignored: " + strings.ReplaceAll(err.Error(), "\n", "; ")
	}
	return s, nil
}
