package resume_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// A chain of three sources: a retained checkpoint, a Paimon consumer that
// moved on after it, and Kafka, which is down. The checkpoint wins because it
// restores operator state; the report says why the others lost. Kafka's
// failure blocks nothing here: at best it could have offered a replay, less
// than the checkpoint (kafkaoffset's resolver declares that bound; a
// resolver without one is assumed to offer exactly-once). The error still
// names the failure.
func ExampleChain() {
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	checkpoint := resumetest.Static("flink-checkpoints", resume.Candidate{
		Position: resumetest.Position{PositionKind: "flink-checkpoint", Summary: "chk-42 of job 4b1c",
			Start: resume.Launch{Args: []string{"-s", "s3a://b/ck/4b1c/chk-42"}}},
		Guarantee: resume.ExactlyOnce, At: at,
		Reasons: []string{"chk-43: no _metadata", "chk-42: all 122 referenced files present"},
	})
	consumer := resumetest.Static("paimon-consumer", resume.Candidate{
		Position: resumetest.Position{PositionKind: "paimon-snapshot", Summary: "snapshot 121 of db.t",
			Start: resume.Launch{Options: map[string]string{"consumer-id": "job-1"}}},
		Guarantee: resume.ExactInput, At: at.Add(30 * time.Minute),
		Reasons: []string{"consumer job-1: nextSnapshot 121"},
	})
	kafka := resume.WithMaxGuarantee(resumetest.Failing("kafka-offsets", errors.New("broker 127.0.0.1:9092 unreachable")), resume.Replay)

	chain := &resume.Chain{
		Resolvers: []resume.Resolver{checkpoint, consumer, kafka},
		Policy:    resume.Policy{MaxAge: 24 * time.Hour, Now: func() time.Time { return at.Add(time.Hour) }},
	}
	d, err := chain.Resolve(context.Background())
	fmt.Print(d.Explain())
	fmt.Println("error:", err)
	fmt.Println("result:", resume.Classify(d, err))
	// Output:
	// CHOSEN  flink-checkpoints: chk-42 of job 4b1c
	//         exactly-once, input position at 2026-11-29T10:00:00Z
	//   run:     flink run -s s3a://b/ck/4b1c/chk-42
	//   why:     chk-43: no _metadata
	//   why:     chk-42: all 122 referenced files present
	//   warning: paimon-consumer shows newer progress (at 2026-11-29T10:30:00Z) than the chosen position
	//            (at 2026-11-29T10:00:00Z): input processed after the chosen position is processed again,
	//            and sinks without exactly-once see it twice [chain.newer-progress]
	//   warning: chosen although kafka-offsets failed (block-weaker): no failed source could have offered
	//            a stronger guarantee than the chosen one [chain.source-failed]
	// OTHERS
	//   paimon-consumer  rejected (exact-input): exact-input is weaker than the chosen exactly-once from
	//                      flink-checkpoints
	//   kafka-offsets    failed: broker 127.0.0.1:9092 unreachable
	// error: kafka-offsets: broker 127.0.0.1:9092 unreachable
	// result: chosen
}

// The default is to fail closed: the checkpoint store answers 503, so the
// chain cannot know whether a checkpoint would have restored the job's
// state, and it refuses the stateless Kafka start rather than deploy it by
// default. The error is not ErrNoPosition (something failed), and Failed
// lists what to fix.
func ExampleChain_failClosed() {
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	checkpoints := resumetest.Failing("flink-checkpoints", errors.New("list ck/: 503 Service Unavailable"))
	kafka := resume.WithMaxGuarantee(resumetest.Static("kafka-offsets", resume.Candidate{
		Position:  resumetest.Position{PositionKind: "kafka-offsets", Summary: "orders: partition:0,offset:42 (group job-1)"},
		Guarantee: resume.Replay, At: at, Reasons: []string{"group job-1 committed offsets"},
	}), resume.Replay)

	d, err := (&resume.Chain{Resolvers: []resume.Resolver{checkpoints, kafka}}).Resolve(context.Background())
	fmt.Print(d.Explain())
	fmt.Println("no position:", errors.Is(err, resume.ErrNoPosition))
	for _, o := range d.Failed() {
		fmt.Println("failed:", o.Resolver)
	}
	r := resume.Classify(d, err)
	fmt.Println("result:", r, "exit", r.ExitCode())
	// Output:
	// CHOSEN  nothing acceptable
	// OTHERS
	//   flink-checkpoints  failed: list ck/: 503 Service Unavailable
	//   kafka-offsets      rejected (replay): blocked: flink-checkpoints failed and could have offered
	//                        exactly-once
	//                      offered orders: partition:0,offset:42 (group job-1)
	//                      why: group job-1 committed offsets
	// no position: false
	// failed: flink-checkpoints
	// result: failed exit 1
}

// ChooseAnyway takes the partial choice instead: the best of what was
// offered. The failure is still an error, and the chosen candidate carries
// the warning chain.source-failed (the result is "chosen"), so a gate that
// must not deploy past a failure fails on that code.
func ExampleChain_chooseAnyway() {
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	checkpoints := resumetest.Failing("flink-checkpoints", errors.New("list ck/: 503 Service Unavailable"))
	kafka := resume.WithMaxGuarantee(resumetest.Static("kafka-offsets", resume.Candidate{
		Position:  resumetest.Position{PositionKind: "kafka-offsets", Summary: "orders: partition:0,offset:42 (group job-1)"},
		Guarantee: resume.Replay, At: at, Reasons: []string{"group job-1 committed offsets"},
	}), resume.Replay)

	chain := &resume.Chain{
		Resolvers: []resume.Resolver{checkpoints, kafka},
		Policy:    resume.Policy{OnFailure: resume.ChooseAnyway},
	}
	d, err := chain.Resolve(context.Background())
	fmt.Println("chosen:", d.Chosen.Resolver, d.Chosen.Guarantee)
	fmt.Println("error:", err)
	fmt.Println("result:", resume.Classify(d, err))
	// Output:
	// chosen: kafka-offsets replay
	// error: flink-checkpoints: list ck/: 503 Service Unavailable
	// result: chosen
}

// All makes one candidate for a job that reads two sources: it is only as
// good as its weakest part.
func ExampleAll() {
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	topic := resumetest.Static("kafka-offsets", resume.Candidate{
		Position:  resumetest.Position{PositionKind: "kafka-offsets", Summary: "orders: 3 partitions from committed offsets"},
		Guarantee: resume.Replay, At: at, Reasons: []string{"group committed offsets"},
	})
	table := resumetest.Static("paimon-consumer", resume.Candidate{
		Position:  resumetest.Position{PositionKind: "paimon-snapshot", Summary: "snapshot 121 of db.customers"},
		Guarantee: resume.ExactInput, At: at.Add(time.Minute), Reasons: []string{"consumer file"},
	})
	c, err := resume.All("orders-join", topic, table).Resolve(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Guarantee, c.At.Format(time.RFC3339))
	fmt.Println(c.Position)
	// Output:
	// replay 2026-11-29T10:00:00Z
	// kafka-offsets: orders: 3 partitions from committed offsets + paimon-consumer: snapshot 121 of db.customers
}
