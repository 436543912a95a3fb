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
//	switch resume.Classify(d, err) {
//	case resume.ResultChosen:
//		deploy(d.Chosen.Position.Launch()) // e.g. -s s3a://b/ck/<job>/chk-42
//	case resume.ResultFailed:
//		// a source could not be read (d.Failed()): fix it, do not deploy
//	case resume.ResultNothingToRestore:
//		// every source answered, empty: a first deploy, or a mistyped prefix
//	case resume.ResultRefused, resume.ResultIncompatible:
//		// candidates exist: all lose data (or are too old), or none fits the new job
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
// # Failing closed
//
// A resolver that fails — storage unreachable, a panic, a timeout, a broken
// contract — has not said what it would have offered. Under the default
// [Policy.OnFailure], [BlockWeaker], it blocks every candidate weaker than
// the best it could have offered: its [GuaranteeBounder] bound (flinkckpt
// exactly-once, paimon exact-input, kafkaoffset replay, [All] the weakest of
// its parts), exactly-once for a resolver without one. A checkpoint store that
// answers 503 therefore blocks a stateless Kafka start ("blocked:
// flink-checkpoints failed and could have offered exactly-once") instead of
// deploying it; a failed Kafka blocks nothing that is exact-input or better. A
// failure whose bound is not above the best acceptable candidate changes
// nothing: that candidate is chosen, and the error still names the failure.
// [ChooseAnyway] keeps the partial choice instead.
//
// # Warning codes
//
// Every [Warning] carries a [WarningCode] a tool can branch on; the text is
// for people and may change. The codes, what each means and the rules
// they follow are listed on [WarningCode].
//
// # The document
//
// [Decision] marshals to the resumekit.decision/v1 document and reads back
// from it; what it holds and how it stays compatible within v1 is on
// [Decision].
//
// # Errors
//
// [ErrNoPosition] (checked with errors.Is) is what a resolver returns when it
// honestly found nothing to offer, and what [Chain.Resolve]'s error wraps when
// no resolver had anything to offer and none failed (a first deploy) — never
// when one failed, as database/sql never returns ErrNoRows for a broken
// connection, and never when candidates were refused ([ErrRefused]) or the
// snapshots do not fit the new job ([ErrIncompatible]).
// [ErrUsage] (checked with errors.Is) means the chain itself is wrong: no
// resolvers, a nil resolver, two resolvers with the same name, a policy value
// out of range; it is returned before any resolver is asked.
//
// [Chain.Resolve] always returns a non-nil [*Decision]; its error is nil only
// when no resolver failed, and otherwise names every failure on one line
// each, in chain order, with errors.Is and errors.As reaching each cause (a
// panic is a [*PanicError]). [Decision.Failed] lists the failed outcomes. A
// Decision with failures may still have a chosen candidate: under
// [ChooseAnyway], or when no failed resolver could have offered more.
// [Classify] turns a decision and its error into one [Result] — chosen,
// failed, usage, nothing to restore, refused, incompatible — that a tool
// branches on (resumectl exits 0, 1, 2, 3, 4, 5: [ExitChosen] …, beside
// [ExitFormat] 6 and [ExitWarning] 7 of the command line). When nothing was
// chosen and nothing failed, the chain's error wraps [ErrNoPosition] only
// for "nothing to restore", [ErrRefused] or [ErrIncompatible] otherwise,
// and the resolvers' own sentinels (flinkckpt.ErrEmptyLocation,
// flinkckpt.ErrIncompatible) so that errors.Is needs no walk of
// Decision.Considered.
//
// # Sub-packages
//
// Beside the contract, for resolvers and the tools around them:
//
//   - [github.com/resumekit/resumekit/resume/localblob]: local directories
//     as gocloud buckets confined with os.Root (no escape through links);
//     flinkckpt and paimon open local roots with it.
//   - [github.com/resumekit/resumekit/resume/s3open]: an S3 bucket opener
//     that refuses HTTP redirects.
//   - [github.com/resumekit/resumekit/resume/redact]: secrets out of URLs,
//     hostile input quoted short in errors.
//   - [github.com/resumekit/resumekit/resume/k8s]: a decision as the
//     flink-kubernetes-operator's merge patch.
//   - [github.com/resumekit/resumekit/resume/resumetest]: the contract tests
//     every Resolver must pass; resumetest/blobtest wraps a bucket with
//     faults, latency and call counts, resumetest/s3test runs a gofakes3
//     server on 127.0.0.1.
//
// ARCHITECTURE.md at the module root draws which package imports which.
package resume
