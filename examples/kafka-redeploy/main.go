// Command kafka-redeploy shows how a stateless Flink job reading Kafka is
// redeployed without losing data: KafkaSource committed its checkpointed
// offsets to group "orders-sink"; resumekit checks them against each
// partition's log start and end offsets and compares them with a 30-minute
// timestamp rewind. Then retention deletes records the group had not read
// yet on partition 2: the committed start is data loss, named, and the chain
// refuses it unless the policy accepts data loss.
//
// It needs nothing: Kafka is kfake, a real Kafka protocol server in-process on
// 127.0.0.1. Run it with
//
//	go run ./examples/kafka-redeploy
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/resumekit/resumekit/examples/internal/scenario"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "kafka-redeploy:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	ctx := context.Background()
	k, err := scenario.BuildKafka(ctx)
	if err != nil {
		return err
	}
	defer k.Close()

	// The caller owns the kgo client; the resolvers only read. Now is the
	// story's restart time (nil: the clock), so the output is the same on
	// every machine.
	now := func() time.Time { return scenario.Now }
	committed, err := kafkaoffset.NewResolver(k.Client, []string{k.Topic}, &kafkaoffset.Options{Name: "committed", Group: k.Group, Now: now})
	if err != nil {
		return err
	}
	rewind, err := kafkaoffset.NewResolver(k.Client, []string{k.Topic}, &kafkaoffset.Options{Name: "rewind", At: k.Rewind, Now: now})
	if err != nil {
		return err
	}
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{committed, rewind}, Policy: resume.Policy{Now: now}}).Resolve(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "chosen %s (%s): %s\n", d.Chosen.Resolver, d.Chosen.Guarantee, resume.HintOptions(d.Chosen.Position.Launch().Options))
	p, err := kafkaoffset.PositionOf(d.Chosen.Position)
	if err != nil {
		return err
	}
	for _, pp := range p.Partitions {
		fmt.Fprintf(w, "  %s/%d starts at %d: %s\n", pp.Topic, pp.Partition, pp.Offset, pp.Reason)
	}

	if err := k.Retention(ctx); err != nil {
		return err
	}
	d, err = (&resume.Chain{Resolvers: []resume.Resolver{committed}, Policy: resume.Policy{Now: now}}).Resolve(ctx)
	if !errors.Is(err, resume.ErrRefused) {
		return fmt.Errorf("after retention: want the candidate refused for data loss, got %v", err)
	}
	fmt.Fprintf(w, "after retention: nothing acceptable: %s\n", d.Considered[0].Why)
	for _, r := range d.Considered[0].Candidate.Reasons {
		fmt.Fprintf(w, "  %s\n", r)
	}
	return nil
}
