package cli

import (
	"context"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// salvageChecks are the live systems --kafka-brokers and --paimon-table
// name, for checking salvaged positions.
type salvageChecks struct {
	kafka        *kgo.Client
	paimon       *paimon.Table
	postgres     livecheck.PostgresSlots
	postgresSlot string
	mysql        livecheck.MySQLBinlogs
}

// live returns the checkers of the restore candidate's sources; nil when
// neither system is given.
func (c salvageChecks) live() *livecheck.Checkers {
	if c.kafka == nil && c.paimon == nil && c.postgres == nil && c.mysql == nil {
		return nil
	}
	l := &livecheck.Checkers{Postgres: c.postgres, PostgresSlot: c.postgresSlot, MySQL: c.mysql}
	if c.kafka != nil {
		l.Kafka = kafkaoffset.Log{Client: c.kafka}
	}
	if c.paimon != nil {
		l.Paimon = c.paimon
	}
	return l
}

// wantSalvage reports whether resolve offers the salvage candidate: asked
// for with --flink-sources, or whenever the new job is given with a Flink
// location — a refactored job whose state no longer fits then gets the
// snapshot's exact source positions instead of nothing.
func (f *resolveFlags) wantSalvage() bool {
	return f.flinkSources || (f.flinkCheckpoints != "" || f.flinkSavepoints != "") && f.flinkJob.given()
}

// salvageResolver builds the resolver of --flink-sources: the source
// positions in the snapshot a flinkckpt resolver chooses at the
// checkpoint and savepoint locations, checked against the
// Kafka cluster and the Paimon table when given. With the new job given,
// it salvages only a snapshot the job cannot restore (salvage.Options.Job).
// This is where the two sides meet: package salvage knows neither
// kafkaoffset nor paimon.
func (f *resolveFlags) salvageResolver(ctx context.Context, e *env, checks salvageChecks) (resume.Resolver, func(), error) {
	job, err := f.flinkJob.job()
	if err != nil {
		return nil, func() {}, err
	}
	url := f.flinkCheckpoints
	if url == "" {
		url = f.flinkSavepoints
	}
	// The snapshot is chosen among the same application's (JobID, the
	// anchor, the new job's operators) and read with the same file-system
	// options; the new job's compatibility decides only whether there is
	// anything to salvage: salvage restores no operator state.
	// --flink-observe holds here too: a salvage start while the old job
	// still checkpoints is as wrong as a restore.
	fo := &flinkckpt.Options{JobID: f.flinkJobID, FlinkRoot: f.flinkRoot, DefaultFS: f.flink.defaultFS,
		MaxMetadataSize: f.flink.maxMetadata.n, Anchor: f.flinkAnchor, Observe: f.flink.observe.d, Wait: e.flinkWait()}
	loc, err := openFlink(ctx, e, url, fo)
	if err != nil {
		return nil, func() {}, err
	}
	closeAll := func() { loc.Close(ctx) }
	if f.flinkCheckpoints != "" && f.flinkSavepoints != "" {
		// Chosen among both locations, as the Flink resolver chooses.
		so := &flinkckpt.Options{FlinkRoot: f.flinkRoot, DefaultFS: f.flink.defaultFS}
		sp, err := openFlink(ctx, e, f.flinkSavepoints, so)
		if err != nil {
			closeAll()
			return nil, func() {}, err
		}
		closeAll = func() { loc.Close(ctx); sp.Close(ctx) }
		fo.Locations = []flinkckpt.Location{{Bucket: sp.Bucket, Prefix: sp.Prefix, FlinkRoot: so.FlinkRoot, FallbackFlinkRoot: so.FallbackFlinkRoot}}
	}
	// The restore's checker set; the slot also names the launch's
	// slot.name when no server is given.
	live := livecheck.Checkers{}
	if l := checks.live(); l != nil {
		live = *l
	}
	live.PostgresSlot = f.postgresSlot
	opts := &salvage.Options{Flink: fo, PaimonConsumer: f.paimonConsumer, Job: job, KafkaGroup: f.kafkaGroup,
		Live: &live, SinkCommitted: f.flinkSinkCommitted}
	r, err := salvage.NewResolver(loc.Bucket, loc.Prefix, opts)
	if err != nil {
		closeAll()
		return nil, func() {}, usagef("resolve: %v", err)
	}
	return r, closeAll, nil
}
