// Command paimon-lost-savepoint shows how a Flink job streaming from a Paimon
// table continues after its savepoint was lost (a refactor made it
// incompatible): the job used consumer-id "orders-enrich", so Paimon recorded
// the next snapshot it needs in <table>/consumer/consumer-orders-enrich on
// every completed checkpoint. A second job never used a consumer-id: its start
// is found by time, and the consumer is bound with ResetConsumer before the
// job starts, so snapshot expiry cannot remove the start snapshot first.
//
// It needs nothing: the table is written to a temporary directory (localblob)
// with real Paimon file formats. Run it with
//
//	go run ./examples/paimon-lost-savepoint
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/resumekit/resumekit/examples/internal/scenario"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/localblob"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "paimon-lost-savepoint:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "paimon-lost-savepoint-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bucket, err := localblob.OpenBucket(dir, &localblob.Options{NoSync: true})
	if err != nil {
		return err
	}
	defer bucket.Close()
	// Paimon's consumer files are judged by their modification times: the
	// story sets them as a job would have written them.
	story, err := scenario.BuildPaimon(&scenario.Env{Bucket: bucket, Touch: func(k string, t time.Time) error {
		return os.Chtimes(filepath.Join(dir, filepath.FromSlash(k)), t, t)
	}}, "")
	if err != nil {
		return err
	}

	// In production: paimon.OpenTable(ctx, "s3://bucket/warehouse/shop.db/orders?region=...", nil).
	table, err := paimon.NewTable(bucket, story.TablePath, &paimon.TableOptions{Now: func() time.Time { return scenario.Now }})
	if err != nil {
		return err
	}

	// 1. The job had a consumer-id: continue where its consumer file says
	// (replay: snapshots from there to the latest may be read again).
	r, err := paimon.NewResolver(table, story.Consumer, nil)
	if err != nil {
		return err
	}
	c, err := r.Resolve(ctx)
	if err != nil {
		return err
	}
	p, err := paimon.PositionOf(c.Position)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %s from snapshot %d (%s)\n", story.Consumer, c.Guarantee, p.NextSnapshot, p.SQLHint)

	// 2. A job without a consumer-id: start by time, as a streaming
	// scan.timestamp-millis read would, then bind the consumer first.
	from := story.StoppedAbout.Add(-5 * time.Minute)
	r, err = paimon.NewResolver(table, story.NewConsumer, &paimon.Options{StartTime: from})
	if err != nil {
		return err
	}
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{r}}).Resolve(ctx)
	if err != nil {
		return err
	}
	p, err = paimon.PositionOf(d.Chosen.Position)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %s from snapshot %d, found by time %s\n", story.NewConsumer, d.Chosen.Guarantee, p.NextSnapshot, from.Format(time.RFC3339))
	// A new consumer: no file may exist yet; the story's job is not running,
	// so the short watch for one is skipped.
	plan, err := table.ResetConsumer(ctx, story.NewConsumer, p.NextSnapshot, &paimon.ResetOptions{ExpectAbsent: true, Observe: -1})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "bound %s (same as %s)\n", plan.Key, plan.SQL)
	// Written at the story's now, whatever this machine's clock says.
	if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(plan.Key)), scenario.Now, scenario.Now); err != nil {
		return err
	}

	// Resolving again now finds the consumer file and starts there: still
	// replay, as the start by time was (a consumer file behind the latest
	// snapshot cannot tell a bound consumer from a job that read on past it).
	c, err = r.Resolve(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %s, start the job with %s\n", story.NewConsumer, c.Guarantee, resume.HintOptions(c.Position.Launch().Options))
	return nil
}
