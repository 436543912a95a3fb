package resume_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// lossyPosition is a position with facts: what a start there never reads.
type lossyPosition struct {
	resumetest.Position
	facts []resume.Fact
}

func (p lossyPosition) Facts() []resume.Fact { return p.facts }

// Kafka retention deleted records the group had not read: the candidate is
// refused for data loss (exit 4), the report says what it would lose, and
// the error wraps resume.ErrRefused, not ErrNoPosition (which means "nothing
// to restore", a first deploy).
func ExampleClassify() {
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	kafka := resumetest.Static("kafka-offsets", resume.Candidate{
		Position: lossyPosition{resumetest.Position{PositionKind: "kafka-offsets", Summary: "orders: partition:0,offset:54 (group g)"},
			[]resume.Fact{{Label: resume.FactLoss, Text: "orders/0: 4 records (offsets 50..53)"}}},
		Guarantee: resume.DataLoss, At: at, Reasons: []string{"data loss on 1 partition(s)"},
	})
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{kafka}}).Resolve(context.Background())
	fmt.Print(d.Explain())
	r := resume.Classify(d, err)
	fmt.Println(r, r.ExitCode(), errors.Is(err, resume.ErrRefused), errors.Is(err, resume.ErrNoPosition))
	// Output:
	// CHOSEN  nothing acceptable
	// OTHERS
	//   kafka-offsets  rejected (data-loss): guarantee data-loss is below the minimum replay
	//                  offered orders: partition:0,offset:54 (group g)
	//                  loss: orders/0: 4 records (offsets 50..53)
	//                  why: data loss on 1 partition(s)
	// refused 4 true false
}

// A deploy tool's progress log: the chain reports each source as it
// returns (flinkckpt.Options.OnEvent adds listings, _metadata reads and
// verifications).
func ExamplePolicy_onEvent() {
	var mu sync.Mutex
	var checked []string
	policy := resume.Policy{OnEvent: func(e resume.Event) {
		mu.Lock()
		defer mu.Unlock()
		checked = append(checked, fmt.Sprintf("%s %s (error: %v)", e.Kind, e.Resolver, e.Err != nil))
	}}
	src := resumetest.Static("kafka-offsets", resume.Candidate{
		Position: resumetest.Position{PositionKind: "kafka-offsets", Summary: "orders"}, Guarantee: resume.Replay, Reasons: []string{"commits"},
	})
	if _, err := (&resume.Chain{Resolvers: []resume.Resolver{src}, Policy: policy}).Resolve(context.Background()); err != nil {
		fmt.Println(err)
	}
	fmt.Println(strings.Join(checked, "\n"))
	// Output:
	// source-checked kafka-offsets (error: false)
}

// The report of a job that reads a Paimon table and a Kafka topic together
// names each table's options; wrapped at 60 columns, the long reason folds
// under its label; at 0 each fact keeps one line.
func ExampleDecision_ExplainWidth() {
	paimon := resumetest.Static("paimon-consumer", resume.Candidate{
		Position: resumetest.Position{PositionKind: "paimon-snapshot", Summary: "snapshot 58",
			Start: resume.Launch{Options: map[string]string{"consumer-id": "job"}}},
		Guarantee: resume.ExactInput, Reasons: []string{"consumer file consumer-job: nextSnapshot 58, last written 2026-11-29T11:56:30Z"},
	})
	kafka := resumetest.Static("kafka-offsets", resume.Candidate{
		Position: resumetest.Position{PositionKind: "kafka-offsets", Summary: "orders",
			Start: resume.Launch{Options: map[string]string{"scan.startup.mode": "group-offsets"}}},
		Guarantee: resume.Replay, Reasons: []string{"commits"},
	})
	c, err := resume.All("both", paimon, kafka).Resolve(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, so := range c.Position.Launch().Sources {
		fmt.Printf("hint for %s: /*+ OPTIONS(%s) */\n", so.Table, resume.HintOptions(so.Options))
	}
	d := &resume.Decision{Chosen: &c, Considered: []resume.Outcome{{Resolver: "both", Candidate: &c, Verdict: resume.VerdictChosen}}}
	fmt.Print(d.ExplainWidth(60))
	// Output:
	// hint for paimon-consumer: /*+ OPTIONS('consumer-id'='job') */
	// hint for kafka-offsets: /*+ OPTIONS('scan.startup.mode'='group-offsets') */
	// CHOSEN  both: paimon-consumer: snapshot 58 + kafka-offsets: orders
	//         replay, time unknown
	//   paimon-consumer:
	//   options: 'consumer-id'='job'
	//   kafka-offsets:
	//   options: 'scan.startup.mode'='group-offsets'
	//   why:     paimon-consumer: consumer file consumer-job:
	//            nextSnapshot 58, last written
	//            2026-11-29T11:56:30Z
	//   why:     kafka-offsets: commits
}

// TestExplainWrapsOnlyReasons: command lines are never wrapped (they are
// copied whole), reasons and warnings are, and ExplainWidth(0) wraps
// nothing.
func TestExplainWrapsOnlyReasons(t *testing.T) {
	long := strings.Repeat("word ", 40)
	run := "-s s3a://bucket/" + strings.Repeat("x", 150)
	c := resume.Candidate{Resolver: "r", Position: resumetest.Position{PositionKind: "k", Summary: "s", Start: resume.Launch{Args: strings.Fields(run)}},
		Guarantee: resume.ExactlyOnce, Reasons: []string{long}, Warnings: []resume.Warning{{Code: "x.y", Text: long}}}
	d := &resume.Decision{Chosen: &c, Considered: []resume.Outcome{{Resolver: "r", Candidate: &c, Verdict: resume.VerdictChosen}}}
	lines := strings.Split(strings.TrimSuffix(d.Explain(), "\n"), "\n")
	runLines := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "  run:     flink run "+run) {
			runLines++
		} else if len(l) > resume.ReportWidth {
			t.Errorf("line of %d columns: %q", len(l), l)
		}
	}
	if runLines != 1 || len(lines) < 8 {
		t.Errorf("%d run lines, %d lines:\n%s", runLines, len(lines), d.Explain())
	}
	if flat := d.ExplainWidth(0); strings.Count(flat, "\n") != 5 {
		t.Errorf("ExplainWidth(0) wrapped:\n%s", flat)
	}
}
