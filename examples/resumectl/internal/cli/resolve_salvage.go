package cli

import (
	"context"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// salvageResolver builds the resolver of --flink-sources: the source
// positions in the snapshot a flinkckpt resolver chooses at the
// checkpoint and savepoint locations, checked against the
// live checkers (built.live: the Kafka cluster, the Paimon table, the
// CDC servers) when given. With the new job given,
// it salvages only a snapshot the job cannot restore (salvage.Options.Job).
// This is where the groups meet: package salvage knows neither
// kafkaoffset nor paimon, and the Kafka group's --kafka-group and the
// Paimon group's --paimon-consumer bind the salvaged start.
func (f *resolveFlags) salvageResolver(ctx context.Context, e *env, b *built) error {
	job, err := f.flink.job.job()
	if err != nil {
		return err
	}
	url := f.flink.checkpoints
	if url == "" {
		url = f.flink.savepoints
	}
	// The snapshot is chosen among the same application's (JobID, the
	// anchor, the new job's operators) and read with the same file-system
	// options; the new job's compatibility decides only whether there is
	// anything to salvage: salvage restores no operator state.
	// --flink-observe holds here too: a salvage start while the old job
	// still checkpoints is as wrong as a restore.
	fo := &flinkckpt.Options{JobID: f.flink.jobID, FlinkRoot: f.flink.root, DefaultFS: f.flink.defaultFS,
		MaxMetadataSize: f.flink.maxMetadata.n, Anchor: f.flink.anchorJob, Observe: f.flink.observe.d, Wait: e.flinkWait()}
	loc, err := openFlink(ctx, e, url, fo)
	if err != nil {
		return err
	}
	b.closers = append(b.closers, func() { loc.Close(ctx) })
	if f.flink.checkpoints != "" && f.flink.savepoints != "" {
		// Chosen among both locations, as the Flink resolver chooses.
		so := &flinkckpt.Options{FlinkRoot: f.flink.root, DefaultFS: f.flink.defaultFS}
		sp, err := openFlink(ctx, e, f.flink.savepoints, so)
		if err != nil {
			return err
		}
		b.closers = append(b.closers, func() { sp.Close(ctx) })
		fo.Locations = []flinkckpt.Location{{Bucket: sp.Bucket, Prefix: sp.Prefix, FlinkRoot: so.FlinkRoot, FallbackFlinkRoot: so.FallbackFlinkRoot, BucketName: so.BucketName}}
	}
	// The restore's checker set; the slot also names the launch's
	// slot.name when no server is given.
	live := livecheck.Checkers{}
	if b.live != nil {
		live = *b.live
	}
	live.PostgresSlot = f.live.postgresSlot
	opts := &salvage.Options{Flink: fo, PaimonConsumer: f.paimon.consumer, Job: job, KafkaGroup: f.kafka.group,
		Live: &live, SinkCommitted: f.flink.sinkCommitted, StopProof: salvage.RecordStopProof(f.record.jobResults())}
	r, err := salvage.NewResolver(loc.Bucket, loc.Prefix, opts)
	if err != nil {
		return usagef("resolve: %v", err)
	}
	b.restore = append(b.restore, r)
	return nil
}
