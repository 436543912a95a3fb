package cli

import (
	"context"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/resume"
)

// flinkResolvers builds the checkpoint resolver and the savepoint resolver
// (one per location, as DESIGN.md says: the chain's newest-At rule picks
// between them).
func (f *resolveFlags) flinkResolvers(ctx context.Context, e *env) ([]resume.Resolver, func(), error) {
	var out []resume.Resolver
	var locs []*location
	closeAll := func() {
		for _, l := range locs {
			l.Close(ctx)
		}
	}
	job, err := f.flinkJob.job()
	if err != nil {
		return nil, closeAll, err
	}
	for _, src := range []struct{ url, name string }{
		{f.flinkCheckpoints, flinkckpt.DefaultName},
		{f.flinkSavepoints, "flink-savepoints"},
	} {
		if src.url == "" {
			continue
		}
		opts := &flinkckpt.Options{Name: src.name, JobID: f.flinkJobID, FlinkRoot: f.flinkRoot, Strict: f.flinkStrict,
			Job: job, AllowNonRestoredState: f.flinkAllowNonRestored}
		loc, err := openFlink(ctx, e, src.url, opts)
		if err != nil {
			return nil, closeAll, err
		}
		locs = append(locs, loc)
		r, err := flinkckpt.NewResolver(loc.Bucket, loc.Prefix, opts)
		if err != nil {
			return nil, closeAll, usagef("resolve: %v", err)
		}
		out = append(out, r)
	}
	return out, closeAll, nil
}
