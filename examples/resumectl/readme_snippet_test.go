package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
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
	if d.Chosen == nil {
		if errors.Is(err, resume.ErrNoPosition) {
			// Every source answered and none had an acceptable position (a first
			// deploy, or all too old): starting empty is a decision to make on purpose.
			return startEmptyIfIntended(d.Explain())
		}
		// A source failed (d.Failed() says which, with its error) and blocked the
		// weaker candidates, or ctx ended: do not start; retry or page someone.
		return fmt.Errorf("no restart position: %w", err)
	}
	for _, o := range d.Failed() {
		// Failed, but could not have offered anything safer than the choice.
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

// The deploy tool's own functions the snippet calls.
func startEmptyIfIntended(report string) error                      { return nil }
func askForApproval(report string) error                            { return nil }
func deploy(args []string, config, options map[string]string) error { return nil }

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
