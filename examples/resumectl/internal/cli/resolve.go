package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
)

const resolveUsage = `[--flink-checkpoints URL] [--flink-savepoints URL] [--flink-job-id ID] [--flink-root URI]
        [--paimon-table URL --paimon-consumer ID [--paimon-mode at-least-once] [--paimon-from TIME]]
        [--kafka-brokers H:P --kafka-topic T [--kafka-group G] [--kafka-from TIME | --kafka-rewind DUR]]
        [--together] [--min-guarantee NAME] [--max-age DUR] [--timeout DUR] [--json | --format text|json|k8s]`

// resolveFlags are the flags of resumectl resolve.
type resolveFlags struct {
	flinkCheckpoints, flinkSavepoints, flinkJobID, flinkRoot string
	flinkStrict                                              bool
	paimonTable, paimonConsumer, paimonMode                  string
	paimonFrom                                               timeFlag
	kafkaBrokers, kafkaTopic, kafkaGroup                     string
	kafkaFrom                                                timeFlag
	kafkaRewind, kafkaObserve                                durationFlag
	together                                                 bool
	minGuarantee                                             string
	maxAge, timeout                                          durationFlag
	jsonOut                                                  bool
	format                                                   string
	k8sNonce                                                 int64
	now                                                      timeFlag
}

func runResolve(e *env, args []string) error {
	var f resolveFlags
	fs := newFlags(e, "resolve", resolveUsage)
	fs.StringVar(&f.flinkCheckpoints, "flink-checkpoints", "", "checkpoint root (`URL`): <dir>/<job-id>/chk-<n>, one job dir, or chk dirs without job dirs")
	fs.StringVar(&f.flinkSavepoints, "flink-savepoints", "", "savepoint directory (`URL`) holding savepoint-<6 hex>-<12 hex>/ dirs")
	fs.StringVar(&f.flinkJobID, "flink-job-id", "", "only this job's checkpoints and savepoints (32 hex)")
	fs.StringVar(&f.flinkRoot, "flink-root", "", "the Flink file-system `URI` of the location (s3a://bucket/ck) or of the bucket root (s3a://bucket/); inferred when absent")
	fs.BoolVar(&f.flinkStrict, "flink-strict", false, "reject checkpoints with references that cannot be checked")
	fs.StringVar(&f.paimonTable, "paimon-table", "", "Paimon table (`URL`), e.g. file:///wh/db.db/orders")
	fs.StringVar(&f.paimonConsumer, "paimon-consumer", "", "the job's consumer-id")
	fs.StringVar(&f.paimonMode, "paimon-mode", "", "consumer.mode of the new job: exactly-once or at-least-once (default: the table's)")
	fs.Var(&f.paimonFrom, "paimon-from", "start `TIME` when the consumer has no file (RFC 3339, unix ms, or -15m)")
	fs.StringVar(&f.kafkaBrokers, "kafka-brokers", "", "seed brokers, `H:P[,H:P]`")
	fs.StringVar(&f.kafkaTopic, "kafka-topic", "", "topic(s) the job reads, `T[,T]`")
	fs.StringVar(&f.kafkaGroup, "kafka-group", "", "the group KafkaSource committed offsets to (its group.id)")
	fs.Var(&f.kafkaFrom, "kafka-from", "start `TIME` for partitions without a commit (or all, without --kafka-group)")
	fs.Var(&f.kafkaRewind, "kafka-rewind", "like --kafka-from, as a `DURATION` before now (e.g. 15m)")
	fs.Var(&f.kafkaObserve, "kafka-observe", "watch the group's offsets this long (`DURATION`) and fail if they move: the old job still runs")
	fs.BoolVar(&f.together, "together", false, "the job reads the Paimon table and the Kafka topic together: one position for both")
	fs.StringVar(&f.minGuarantee, "min-guarantee", "", "weakest acceptable guarantee: data-loss, replay (default), exact-input, exactly-once")
	fs.Var(&f.maxAge, "max-age", "reject positions older than this `DURATION` (e.g. 7d)")
	f.timeout.d = DefaultTimeout
	fs.Var(&f.timeout, "timeout", "give up after this long (`DURATION`; 0: never): sources still running are reported as timed out, and the command ends at the deadline even when a storage or Kafka call hangs")
	fs.BoolVar(&f.jsonOut, "json", false, "print the resumekit.decision/v1 JSON document")
	fs.StringVar(&f.format, "format", "text", "output: text, json, or k8s (a merge patch for a FlinkDeployment)")
	fs.Int64Var(&f.k8sNonce, "k8s-nonce", 0, "savepointRedeployNonce for --format k8s (default: the current unix time, new on every run)")
	fs.Var(&f.now, "now", "evaluate as of `TIME` instead of the clock (reproducible reports and tests)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("resolve takes no arguments, got %s", quoteShort(strings.Join(pos, " ")))
	}
	if f.jsonOut {
		if f.format != "text" && f.format != "json" {
			return usagef("resolve: --json and --format %s are exclusive", f.format)
		}
		f.format = "json"
	}
	switch f.format {
	case "text", "json", "k8s":
	default:
		return usagef("resolve: --format %q: want text, json or k8s", f.format)
	}
	if f.now.set {
		// Relative times ("-15m") count back from --now, not the clock.
		f.paimonFrom.rebase(f.now.t)
		f.kafkaFrom.rebase(f.now.t)
	}
	policy, err := f.policy()
	if err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}

	ctx, cancel := e.context(f.timeout.d)
	defer cancel()
	resolvers, closeAll, err := f.build(ctx, e)
	defer closeAll()
	if err != nil {
		return err
	}
	d, rerr := (&resume.Chain{Resolvers: resolvers, Policy: policy}).Resolve(ctx)
	if err := f.print(e.stdout, d); err != nil {
		return err
	}
	return decisionExit(d, rerr)
}

// clock returns "now": --now when given, else the wall clock.
func (f *resolveFlags) clock() func() time.Time {
	if !f.now.set {
		return time.Now
	}
	now := f.now.t
	return func() time.Time { return now }
}

func (f *resolveFlags) policy() (resume.Policy, error) {
	p := resume.Policy{MaxAge: f.maxAge.d}
	if f.now.set {
		now := f.now.t
		p.Now = func() time.Time { return now }
	}
	if f.minGuarantee != "" {
		g, err := resume.ParseGuarantee(f.minGuarantee)
		if err != nil {
			return p, usagef("resolve: --min-guarantee: %v", err)
		}
		p.MinGuarantee = g
	}
	return p, nil
}

// check refuses bad flag combinations before any I/O (exit 2).
func (f *resolveFlags) check() error {
	hasFlink := f.flinkCheckpoints != "" || f.flinkSavepoints != ""
	hasPaimon := f.paimonTable != "" || f.paimonConsumer != ""
	hasKafka := f.kafkaBrokers != "" || f.kafkaTopic != ""
	switch {
	case !hasFlink && !hasPaimon && !hasKafka:
		return usagef("resolve: name at least one source: --flink-checkpoints, --flink-savepoints, --paimon-table or --kafka-brokers")
	case !hasFlink && (f.flinkJobID != "" || f.flinkRoot != "" || f.flinkStrict):
		return usagef("resolve: --flink-job-id, --flink-root and --flink-strict need --flink-checkpoints or --flink-savepoints")
	case hasPaimon && (f.paimonTable == "" || f.paimonConsumer == ""):
		return usagef("resolve: --paimon-table and --paimon-consumer go together")
	case !hasPaimon && (f.paimonMode != "" || f.paimonFrom.set):
		return usagef("resolve: --paimon-mode and --paimon-from need --paimon-table")
	case hasKafka && (f.kafkaBrokers == "" || f.kafkaTopic == ""):
		return usagef("resolve: --kafka-brokers and --kafka-topic go together")
	case f.kafkaFrom.set && f.kafkaRewind.d != 0:
		return usagef("resolve: --kafka-from and --kafka-rewind are exclusive")
	case hasKafka && f.kafkaGroup == "" && !f.kafkaFrom.set && f.kafkaRewind.d == 0:
		return usagef("resolve: Kafka needs --kafka-group, --kafka-from or --kafka-rewind")
	case !hasKafka && (f.kafkaGroup != "" || f.kafkaFrom.set || f.kafkaRewind.d != 0 || f.kafkaObserve.d != 0):
		return usagef("resolve: --kafka-group, --kafka-from, --kafka-rewind and --kafka-observe need --kafka-brokers")
	case f.together && !(hasPaimon && hasKafka):
		return usagef("resolve: --together needs both --paimon-table and --kafka-brokers")
	}
	return nil
}

// build opens every source and returns the chain's resolvers, in the order
// checkpoints, savepoints, Paimon, Kafka (the order breaks ties).
func (f *resolveFlags) build(ctx context.Context, e *env) ([]resume.Resolver, func(), error) {
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	var out []resume.Resolver
	flinkRs, flinkClose, err := f.flinkResolvers(ctx, e)
	closers = append(closers, flinkClose)
	if err != nil {
		return nil, closeAll, err
	}
	out = append(out, flinkRs...)

	var stateless []resume.Resolver
	if f.paimonTable != "" {
		loc, err := openLocation(ctx, e, f.paimonTable)
		if err != nil {
			return nil, closeAll, err
		}
		closers = append(closers, func() { loc.Close(ctx) })
		table, err := paimon.NewTable(loc.Bucket, loc.Prefix, &paimon.TableOptions{Location: loc.Display, Wait: e.tableWait()})
		if err != nil {
			return nil, closeAll, usagef("resolve: --paimon-table: %v", err)
		}
		r, err := paimon.NewResolver(table, f.paimonConsumer, &paimon.Options{StartTime: f.paimonFrom.t, Mode: f.paimonMode, Now: f.clock()})
		if err != nil {
			return nil, closeAll, usagef("resolve: %v", err)
		}
		stateless = append(stateless, r)
	}
	if f.kafkaBrokers != "" {
		at := f.kafkaFrom.t
		if f.kafkaRewind.d != 0 {
			at = f.clock()().Add(-f.kafkaRewind.d)
		}
		cl, err := dialKafka(f.kafkaBrokers)
		if err != nil {
			return nil, closeAll, err
		}
		closers = append(closers, cl.Close)
		r, err := kafkaoffset.NewResolver(cl, splitComma(f.kafkaTopic), &kafkaoffset.Options{
			Group: f.kafkaGroup, At: at, ObserveWindow: f.kafkaObserve.d, Now: f.clock(),
		})
		if err != nil {
			return nil, closeAll, usagef("resolve: %v", err)
		}
		stateless = append(stateless, r)
	}
	if f.together {
		out = append(out, resume.All("paimon+kafka", stateless...))
	} else {
		out = append(out, stateless...)
	}
	return out, closeAll, nil
}

func (f *resolveFlags) print(w io.Writer, d *resume.Decision) error {
	switch f.format {
	case "json":
		// Errors from storage SDKs may quote URLs with credentials: the
		// output masks them (see output).
		return writeJSON(w, d)
	case "k8s":
		return writeK8sPatch(w, d, f.k8sNonce)
	default:
		writeReport(w, d)
		return nil
	}
}

// writeK8sPatch prints a JSON merge patch for a flink-kubernetes-operator
// FlinkDeployment (or FlinkSessionJob): spec.job.initialSavepointPath and a
// new spec.job.savepointRedeployNonce, which makes the operator redeploy from
// that path (FLINK-33763). Apply it with
// kubectl patch flinkdeployment NAME --type merge -p "$(resumectl resolve ... --format k8s)".
func writeK8sPatch(w io.Writer, d *resume.Decision, nonce int64) error {
	if d.Chosen == nil {
		return nil // the exit status and stderr say why
	}
	path := savepointPath(d.Chosen.Position.Launch())
	if path == "" {
		return withExit(ExitFailed, fmt.Errorf("--format k8s: the chosen %s position (%s) restores no checkpoint or savepoint: start the job stateless with its source options %s",
			d.Chosen.Position.Kind(), d.Chosen.Position, resume.HintOptions(d.Chosen.Position.Launch().Options)))
	}
	if nonce == 0 {
		nonce = time.Now().Unix()
	}
	patch := map[string]any{"spec": map[string]any{"job": map[string]any{
		"initialSavepointPath":   path,
		"savepointRedeployNonce": nonce,
	}}}
	return writeJSON(w, patch)
}

// savepointPath is the -s argument of a launch.
func savepointPath(l resume.Launch) string {
	for i := 0; i+1 < len(l.Args); i++ {
		if l.Args[i] == "-s" || l.Args[i] == "--fromSavepoint" {
			return l.Args[i+1]
		}
	}
	return ""
}

// decisionExit maps a decision to the exit status: 0 chosen and nothing
// failed, 1 something failed, 3 nothing acceptable.
func decisionExit(d *resume.Decision, err error) error {
	switch {
	case err == nil:
		return nil
	case hasFailure(d):
		return withExit(ExitFailed, err)
	case d.Chosen == nil && errors.Is(err, resume.ErrNoPosition):
		return withExit(ExitNothing, err)
	default:
		return withExit(ExitFailed, err)
	}
}

func hasFailure(d *resume.Decision) bool {
	for _, o := range d.Considered {
		if o.Verdict == resume.VerdictFailed {
			return true
		}
	}
	return false
}

var _ json.Marshaler = resume.Decision{}
