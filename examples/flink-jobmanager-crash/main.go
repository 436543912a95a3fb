// Command flink-jobmanager-crash shows how a Flink CDC job comes back after
// its JobManager crashed and the HA pointer was lost: MySQL CDC resumes only
// from Flink state, so the job must restart from the newest retained
// checkpoint that is really complete. Here the newest, chk-43, has no
// _metadata (it was in progress), chk-42 lost a shared RocksDB file, and
// chk-41 is whole; a savepoint from the day before loses on time. The program
// prints the flink run line and why each other candidate lost.
//
// It needs nothing: the checkpoint tree is written to a temporary directory
// with resumekit's own _metadata encoder. Run it with
//
//	go run ./examples/flink-jobmanager-crash
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/examples/internal/scenario"
	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/resume"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "flink-jobmanager-crash:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "flink-jm-crash-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bucket, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		return err
	}
	defer bucket.Close()
	root := "file://" + filepath.ToSlash(dir) + "/" // how Flink names the bucket's root
	story, err := scenario.BuildFlink(&scenario.Env{Bucket: bucket, Root: root, Touch: func(k string, t time.Time) error {
		return os.Chtimes(filepath.Join(dir, k), t, t)
	}}, "")
	if err != nil {
		return err
	}

	// One resolver over both locations, the checkpoint root and the savepoint
	// dir: it groups their snapshots into applications and ranks a job's
	// checkpoints against the savepoints it took by checkpoint id. In
	// production the bucket is s3blob and FlinkRoot "s3a://bucket/" (or
	// leave it empty to infer it from the absolute paths in _metadata).
	checkpoints, err := flinkckpt.NewResolver(bucket, story.Checkpoints, &flinkckpt.Options{
		FlinkRoot: root,
		Locations: []flinkckpt.Location{{Bucket: bucket, Prefix: story.Savepoints, FlinkRoot: root}},
	})
	if err != nil {
		return err
	}
	chain := &resume.Chain{
		Resolvers: []resume.Resolver{checkpoints},
		Policy:    resume.Policy{MinGuarantee: resume.ExactlyOnce, Timeout: time.Minute},
	}
	d, err := chain.Resolve(ctx)
	if err != nil {
		return err
	}
	p, err := flinkckpt.PositionOf(d.Chosen.Position)
	if err != nil {
		return err
	}
	rel := func(s string) string { return strings.ReplaceAll(s, filepath.ToSlash(dir), "$DIR") }
	fmt.Fprintf(w, "restore %s (checkpoint %d of job %s)\n", rel(p.Path), p.CheckpointID, p.JobID)
	fmt.Fprintf(w, "flink run %s <job jar>\n", rel(strings.Join(d.Chosen.Position.Launch().Args, " ")))
	for _, r := range d.Chosen.Reasons {
		fmt.Fprintf(w, "  why: %s\n", rel(r))
	}
	for _, o := range d.Considered {
		if o.Verdict != resume.VerdictChosen {
			fmt.Fprintf(w, "  %s %s: %s\n", o.Resolver, o.Verdict, o.Why)
		}
	}
	return nil
}
