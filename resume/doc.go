// Package resume decides where a restarted stream job should start reading, so
// that no input is lost and as little as possible is read twice, and explains
// the choice.
//
// Each source of restart positions — Flink checkpoints and savepoints
// (package flinkckpt), Paimon consumer progress (package paimon), Kafka group
// offsets or a timestamp (package kafkaoffset) — implements [Resolver]. A
// [Chain] asks every resolver concurrently, keeps the candidates that meet its
// [Policy], and picks the safest: the highest [Guarantee] first (no data loss,
// then operator state restored), then the newest [Candidate.At] (least input
// read again), then chain order. Every other candidate gets a one-line reason
// why it lost, and the [Decision] marshals to a stable JSON document
// (schema "resumekit.decision/v1") that deploy tools can store and read back.
//
//	chain := &resume.Chain{
//		Resolvers: []resume.Resolver{checkpoints, consumer, offsets},
//		Policy:    resume.Policy{MinGuarantee: resume.Replay, MaxAge: 24 * time.Hour},
//	}
//	d, err := chain.Resolve(ctx)
//	if d.Chosen != nil {
//		fmt.Println(d.Chosen.Position.Launch().Args) // e.g. [-s s3a://b/ck/<job>/chk-42]
//	}
//	fmt.Print(d.Explain())
//
// # The guarantee ladder
//
// From worst to best: [DataLoss] (input between the old job's progress and the
// position is never read), [Replay] (nothing skipped, some input read again),
// [ExactInput] (input resumes exactly after durably recorded progress, operator
// state starts empty), [ExactlyOnce] (operator state and input position restored
// together). The chain never chooses DataLoss unless the policy asks for it.
//
// # Errors
//
// [ErrNoPosition] (checked with errors.Is) is what a resolver returns when it
// honestly found nothing to offer, and what [Chain.Resolve]'s error wraps when
// nothing acceptable was offered. [Chain.Resolve] always returns a non-nil
// [*Decision]; its error is nil only when no resolver failed, and otherwise
// names every failure on one line each, in chain order, with errors.Is and
// errors.As reaching each cause. A Decision with failures may still have a
// chosen candidate (a partial result).
package resume
