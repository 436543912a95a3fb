package salvage

import (
	"errors"
	"fmt"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/resume"
)

// ErrFromChecksJob is wrapped when Options.From is a flinkckpt resolver
// that checks the new job (its Options.Job without AllowNonRestoredState):
// it passes over every snapshot the job cannot restore — exactly the one
// to salvage — so salvage would never have a position. NewResolver refuses
// such a From; Resolve fails (rather than offer nothing) when a From that
// wraps one answers flinkckpt.ErrIncompatible. Leave From nil, or build
// both resolvers with [NewResolvers]. Check it with errors.Is.
var ErrFromChecksJob = errors.New("salvage: From rejects the snapshots the new job cannot restore")

// Checks are the names and assertions of [NewResolvers]' salvage
// resolver: Options' KafkaGroup, PaimonConsumer and SinkCommitted, and
// its Name (DefaultName when empty). Its live checkers are the flinkckpt
// resolver's (flinkckpt.Options.Live): restore and salvage check the
// same systems.
type Checks struct {
	Name           string
	KafkaGroup     string
	PaimonConsumer string
	SinkCommitted  bool
}

// NewResolvers returns the two resolvers of a job about to start from the
// snapshots under prefix of bucket, built from one description: a
// flinkckpt.Resolver with flink (the new job in flink.Job, its Flink root,
// locations, claim mode, …) that restores a snapshot whose state the job
// takes (exactly-once), and a salvage Resolver over the same snapshots,
// locations and job that offers the snapshot's source positions when the
// job cannot restore its state (exact-input, checked live with checks).
// Put both in one chain, in the order returned: a refactored job gets
// either its state back or its exact input position, never a silent
// "no position".
//
// Without flink.Job nothing says what the new job restores: the salvage
// candidate is offered beside every restorable snapshot (and loses to it).
// Bad options fail here, before any I/O.
func NewResolvers(bucket *blob.Bucket, prefix string, flink *flinkckpt.Options, checks *Checks) ([]resume.Resolver, error) {
	var fo flinkckpt.Options
	if flink != nil {
		fo = *flink
	}
	var c Checks
	if checks != nil {
		c = *checks
	}
	fr, err := flinkckpt.NewResolver(bucket, prefix, &fo)
	if err != nil {
		return nil, err
	}
	so := fo
	// The salvage resolver's own From: the newest snapshot of the job's
	// application, whatever the job restores of it (the flinkckpt
	// resolver observes the old job, once).
	so.Name, so.Job, so.AllowNonRestoredState, so.Observe = "", nil, false, 0
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.Name == fr.Name() {
		return nil, fmt.Errorf("salvage: the salvage resolver and the flinkckpt resolver are both named %q: names identify outcomes in a chain", c.Name)
	}
	sr, err := NewResolver(bucket, prefix, &Options{
		Name: c.Name, Flink: &so, Job: fo.Job,
		Live: fo.Live, KafkaGroup: c.KafkaGroup, PaimonConsumer: c.PaimonConsumer,
		SinkCommitted: c.SinkCommitted,
	})
	if err != nil {
		return nil, err
	}
	return []resume.Resolver{fr, sr}, nil
}
