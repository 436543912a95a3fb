package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// readmeSnippet is the README's library snippet, compiled. Its body between
// the BEGIN and END lines must equal the README's code block
// (TestReadmeSnippetCompiles).
func readmeSnippet(ctx context.Context, bucket *blob.Bucket, client *kgo.Client) error {
	// BEGIN README
	ckpt, err := flinkckpt.NewResolver(bucket, "ck/", &flinkckpt.Options{FlinkRoot: "s3a://bucket/"})
	if err != nil {
		return err // bad options are refused before any I/O
	}
	table, err := paimon.NewTable(bucket, "wh/shop.db/orders", nil)
	if err != nil {
		return err
	}
	consumer, err := paimon.NewResolver(table, "orders-enrich", nil)
	if err != nil {
		return err
	}
	offsets, err := kafkaoffset.NewResolver(client, []string{"orders"}, &kafkaoffset.Options{Group: "orders-sink"})
	if err != nil {
		return err
	}

	chain := &resume.Chain{
		Resolvers: []resume.Resolver{ckpt, consumer, offsets},
		// OnFailure's zero value is resume.BlockWeaker: when a source fails (the
		// checkpoint store answers 503), nothing weaker than what it could have
		// offered is chosen — no stateless Kafka start in place of a checkpoint.
		Policy: resume.Policy{MaxAge: 7 * 24 * time.Hour, Timeout: time.Minute},
	}
	d, err := chain.Resolve(ctx) // d is never nil: store json.Marshal(d), the resumekit.decision/v1 record
	switch resume.Classify(d, err) {
	case resume.ResultChosen:
	case resume.ResultNothingToRestore:
		// Every source answered, empty (errors.Is(err, resume.ErrNoPosition)): a first
		// deploy, or a mistyped prefix (flinkckpt.ErrEmptyLocation). Starting empty
		// is a decision to make on purpose.
		return startEmptyIfIntended(d.Explain())
	case resume.ResultRefused, resume.ResultIncompatible:
		// Candidates exist, but each loses data or is too old (resume.ErrRefused),
		// or no snapshot fits the new job (resume.ErrIncompatible): d.Explain() says why.
		return fmt.Errorf("no safe restart position: %w", err)
	default:
		// A source failed (d.Failed() says which, with its error) and blocked the
		// weaker candidates, or ctx ended: do not start; retry or page someone.
		return fmt.Errorf("no restart position: %w", err)
	}
	for _, o := range d.Failed() {
		// Failed, but could not have offered anything safer than the choice
		// (the candidate carries the warning chain.source-failed).
		log.Printf("%s failed: %v", o.Resolver, o.Err)
	}
	if d.Chosen.HasWarning(flinkckpt.WarnOlderThanBroken) {
		// Newer checkpoints completed but lost files: transactional sinks may
		// already have published their output, expect duplicates downstream.
		if err := askForApproval(d.Explain()); err != nil {
			return err
		}
	}
	l := d.Chosen.Position.Launch() // flink run args, -D configuration, SQL hint options
	return deploy(l.Args, l.Config, l.Options)
	// END README
}

// The deploy tool's own functions the snippet calls; deploy records what
// it was asked to start.
var deployed []string

func startEmptyIfIntended(report string) error { return errors.New("would start empty") }
func askForApproval(report string) error       { return nil }
func deploy(args []string, config, options map[string]string) error {
	deployed = append(args, resume.HintOptions(options))
	return nil
}

// TestReadmeSnippetFailsClosed runs the README's snippet over a checkpoint,
// a Paimon consumer and Kafka commits: with every source healthy it deploys
// the checkpoint; when the checkpoint store answers 503 it deploys nothing —
// not the consumer, not the Kafka offsets it could have fallen back to.
func TestReadmeSnippetFailsClosed(t *testing.T) {
	ctx := context.Background()
	mem := memblob.OpenBucket(nil)
	defer mem.Close()
	l := &flinkckpttest.Layout{Bucket: mem, Prefix: "ck/", Root: "s3a://bucket/"}
	w, err := l.Checkpoint(ctx, "9f2c6d0b41e8a7355c1d2e3f4a5b6c7d", 41, nil)
	if err != nil {
		t.Fatal(err)
	}
	paimontest.New(t, mem, "wh/shop.db/orders").CommitEvery(5, time.Now().Add(-time.Hour), time.Minute).Consumer("orders-enrich", 4)
	c, err := kfake.NewCluster(kfake.SeedTopics(1, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	client, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	for range 3 {
		if err := client.ProduceSync(ctx, &kgo.Record{Topic: "orders", Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	offs := kadm.Offsets{}
	offs.AddOffset("orders", 0, 2, -1)
	if _, err := kadm.NewClient(client).CommitOffsets(ctx, "orders-sink", offs); err != nil {
		t.Fatal(err)
	}

	deployed = nil
	if err := readmeSnippet(ctx, mem, client); err != nil {
		t.Fatal(err)
	}
	if want := []string{"-s", w.FlinkPath, ""}; !slices.Equal(deployed, want) {
		t.Errorf("deployed %q, want the checkpoint %q", deployed, want)
	}

	down, _ := blobtest.Wrap(mem, &blobtest.Options{Fault: func(c blobtest.Call) error {
		if strings.HasPrefix(c.Key, "ck/") {
			return &blobtest.FaultError{Call: c, Code: gcerrors.Internal, Msg: "503 Service Unavailable"}
		}
		return nil
	}})
	defer down.Close()
	deployed = nil
	err = readmeSnippet(ctx, down, client)
	if err == nil || !strings.Contains(err.Error(), "no restart position") || errors.Is(err, resume.ErrNoPosition) || deployed != nil {
		t.Errorf("with the checkpoint store down: err %v, deployed %q; want no deploy and a failure that is not ErrNoPosition", err, deployed)
	}
}

// TestReadmeSnippetCompiles keeps the README's library snippet and
// readmeSnippet the same code, so that the snippet is compiled (and vetted)
// with the library it shows.
func TestReadmeSnippetCompiles(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i := strings.Index(text, "## The library in a few lines")
	start := strings.Index(text[i:], "```go\n") + i + len("```go\n")
	end := strings.Index(text[start:], "```") + start
	src, err := os.ReadFile("readme_snippet_test.go")
	if err != nil {
		t.Fatal(err)
	}
	code := string(src)
	b := strings.Index(code, "\t// BEGIN README\n") + len("\t// BEGIN README\n")
	e := strings.Index(code, "\t// END README")
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(code[b:e], "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	if got, want := strings.Join(lines, "\n")+"\n", text[start:end]; got != want {
		t.Errorf("readmeSnippet differs from the README's snippet:\n--- readme_snippet_test.go\n%s--- README.md\n%s", got, want)
	}
}

var _ = readmeSnippet
