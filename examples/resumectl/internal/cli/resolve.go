package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/k8s"
	"github.com/resumekit/resumekit/resume/livecheck/mysqlcheck"
	"github.com/resumekit/resumekit/resume/livecheck/pgcheck"
	"github.com/resumekit/resumekit/resume/redact"
)

const resolveUsage = `[--flink-checkpoints URL] [--flink-savepoints URL] [--flink-job-id ID] [--flink-root URI]
        [--flink-default-fs URI] [--flink-extra-root FLINKURI=BUCKETURL]... [--flink-allow-unverified] [--flink-strict]
        [--flink-anchor URL] [--flink-intent restart|upgrade] [--flink-version X.Y] [--flink-claim-mode MODE]
        [--flink-max-metadata-size BYTES] [--flink-observe DUR] [--flink-require] [--flink-sources] [--flink-sink-committed]
        [--flink-plan FILE | --flink-uid UID... | --flink-sink-uid UID... | --flink-uid-hash HEX... | --flink-operator-id HEX...] [--flink-all-uids]
        [--flink-plan-config KEY=VALUE...] [--flink-allow-non-restored-state]
        [--paimon-table URL --paimon-consumer ID [--paimon-mode exactly-once|at-least-once] [--paimon-from TIME]
         [--paimon-written-mode MODE] [--paimon-version V] [--paimon-option KEY=VALUE]...]
        [--kafka-brokers H:P --kafka-topic T [--kafka-group G] [--kafka-from TIME | --kafka-rewind DUR] [--kafka-observe DUR]
         [--kafka-isolation read_committed|read_uncommitted] [--kafka-commit-source checkpoint|auto|unknown] [--kafka-strict]]
        [--mysql-dsn DSN] [--postgres-dsn DSN --postgres-slot NAME]
        [--together] [--min-guarantee NAME] [--max-age DUR] [--min-validity DUR] [--timeout DUR] [--on-failure block-weaker|choose-anyway]
        [--json | --format text|json|k8s|html [--k8s-nonce N]] [--fail-on-warning CODE[,CODE]] [--now TIME]
        [--verbose] [--progress]`

// resolveFlags are the flags of resumectl resolve.
type resolveFlags struct {
	flinkCheckpoints, flinkSavepoints, flinkJobID, flinkRoot string
	flinkStrict, flinkSources, flinkSinkCommitted            bool
	flink                                                    flinkFlags
	flinkJob                                                 jobFlags // the new job (flink_compat.go)
	flinkAllowNonRestored                                    bool
	// flinkAnchor is --flink-anchor's operators once read (flinkResolvers),
	// for the salvage resolver's choice of snapshot too.
	flinkAnchor                             *jobgraph.Job
	paimonTable, paimonConsumer, paimonMode string
	paimonWrittenMode, paimonVersion        string
	paimonOptions                           keyValueFlag
	paimonFrom                              timeFlag
	kafkaBrokers, kafkaTopic, kafkaGroup    string
	postgresDSN, postgresSlot, mysqlDSN     string
	kafkaIsolation, kafkaCommitSource       string
	kafkaStrict                             bool
	kafkaFrom                               timeFlag
	kafkaRewind, kafkaObserve               durationFlag
	together                                bool
	minGuarantee                            string
	maxAge, timeout, minValidity            durationFlag
	jsonOut                                 bool
	format                                  string
	k8sNonce                                int64
	failOnWarning                           string
	verbose, progress                       bool
	onFailure                               string
	now                                     timeFlag
}

func runResolve(e *env, args []string) error {
	var f resolveFlags
	fs := newFlags(e, "resolve", resolveUsage)
	fs.StringVar(&f.flinkCheckpoints, "flink-checkpoints", "", "checkpoint root (`URL`): <dir>/<job-id>/chk-<n>, one job dir, or chk dirs without job dirs")
	fs.StringVar(&f.flinkSavepoints, "flink-savepoints", "", "savepoint directory (`URL`) holding savepoint-<6 hex>-<12 hex>/ dirs; with --flink-checkpoints both are read by one resolver (applications and lineage across both)")
	fs.StringVar(&f.flinkJobID, "flink-job-id", "", "only this job's checkpoints and savepoints (32 hex)")
	fs.StringVar(&f.flinkRoot, "flink-root", "", "the Flink file-system `URI` of the location (s3a://bucket/ck) or of the bucket root (s3a://bucket/); inferred when absent")
	fs.BoolVar(&f.flinkStrict, "flink-strict", false, "deprecated: references that cannot be checked are refused by default (see --flink-allow-unverified)")
	fs.BoolVar(&f.flinkSources, "flink-sources", false, "also offer a stateless start at the source positions stored in the chosen snapshot (salvage); --kafka-brokers and --paimon-table check them live")
	fs.BoolVar(&f.flinkSinkCommitted, "flink-sink-committed", false, "you checked the sink: every transaction of the salvaged snapshot was committed, so the prepared transactions its Sink V2 committer holds (which a stateless start never commits) are no loss (without it they grade the salvage data-loss)")
	f.flink.register(fs.FlagSet) // registers --flink-version, which the new job's plan reads too
	f.flinkJob.register(fs.FlagSet, "flink-", e.stdin())
	fs.BoolVar(&f.flinkAllowNonRestored, "flink-allow-non-restored-state", false, "the new job starts with --allowNonRestoredState: offer snapshots whose state it drops in part (exact-input at best)")
	fs.StringVar(&f.paimonTable, "paimon-table", "", "Paimon table (`URL`), e.g. file:///wh/db.db/orders")
	fs.StringVar(&f.paimonConsumer, "paimon-consumer", "", "the job's consumer-id")
	fs.StringVar(&f.paimonMode, "paimon-mode", "", "consumer.mode of the new job: exactly-once or at-least-once (default: the table's)")
	fs.Var(&f.paimonFrom, "paimon-from", "start `TIME` when the consumer has no file (RFC 3339, unix ms, or -15m)")
	fs.StringVar(&f.paimonWrittenMode, "paimon-written-mode", "", "consumer.mode the old job ran with (`MODE`: exactly-once or at-least-once); decides exact-input vs replay (default: the table's, else exactly-once, assumed with a warning)")
	fs.StringVar(&f.paimonVersion, "paimon-version", "", "Paimon release the new job reads with (`V`, e.g. 0.8 or 1.4.1; default: the newest behaviour)")
	fs.Var(&f.paimonOptions, "paimon-option", "override a table option, `KEY=VALUE` (repeatable), e.g. changelog.time-retained=7d")
	fs.StringVar(&f.kafkaBrokers, "kafka-brokers", "", "seed brokers, `H:P[,H:P]`")
	fs.StringVar(&f.kafkaTopic, "kafka-topic", "", "topic(s) the job reads, `T[,T]`")
	fs.StringVar(&f.mysqlDSN, "mysql-dsn", "", "MySQL or MariaDB server (`DSN`, user:pass@tcp(host:3306)/) whose binary logs check the snapshots' Flink CDC MySQL positions (the password never shows)")
	fs.StringVar(&f.postgresDSN, "postgres-dsn", "", "PostgreSQL server (`DSN`, postgres://user:pass@host:5432/db) whose replication slot checks the snapshots' Flink CDC Postgres positions (the password never shows)")
	fs.StringVar(&f.postgresSlot, "postgres-slot", "", "the Postgres CDC source's replication slot (`NAME`, its slot.name: the snapshot does not record it)")
	fs.StringVar(&f.kafkaGroup, "kafka-group", "", "the group KafkaSource committed offsets to (its group.id); a salvaged start begins partitions the old job had not started at its commits")
	fs.Var(&f.kafkaFrom, "kafka-from", "start `TIME` for partitions without a commit (or all, without --kafka-group)")
	fs.Var(&f.kafkaRewind, "kafka-rewind", "like --kafka-from, as a `DUR` before now (e.g. 15m)")
	fs.Var(&f.kafkaObserve, "kafka-observe", "watch the group's offsets this long (`DUR`) and fail if they move: the old job still runs")
	fs.StringVar(&f.kafkaIsolation, "kafka-isolation", "", "the new job's isolation.level: read_committed (default: starts stay below open transactions) or read_uncommitted")
	fs.StringVar(&f.kafkaCommitSource, "kafka-commit-source", "", "how the old job committed: checkpoint (default, assumed), auto (enable.auto.commit: data loss) or unknown (data loss)")
	fs.BoolVar(&f.kafkaStrict, "kafka-strict", false, "grade as data loss what may be lost but cannot be shown (compacted topics further behind than delete.retention.ms)")
	fs.BoolVar(&f.together, "together", false, "the job reads the Paimon table and the Kafka topic together: one position for both")
	fs.StringVar(&f.minGuarantee, "min-guarantee", "", "weakest acceptable guarantee: data-loss, replay (default), exact-input, exactly-once")
	fs.Var(&f.maxAge, "max-age", "reject positions older than this `DUR` (e.g. 7d)")
	f.minValidity.d = resume.DefaultMinValidity
	fs.Var(&f.minValidity, "min-validity", "warn when the chosen position's input may leave retention within this `DUR` (its valid_until; 0: never)")
	f.timeout.d = DefaultTimeout
	fs.Var(&f.timeout, "timeout", "give up after this long (`DUR`; 0: never): sources still running are reported as timed out, and the command ends at the deadline even when a storage or Kafka call hangs")
	fs.BoolVar(&f.jsonOut, "json", false, "print the resumekit.decision/v1 JSON document")
	fs.StringVar(&f.format, "format", "text", "output: text, json, k8s (a merge patch for a FlinkDeployment), or html (a timeline of every candidate: one self-contained page)")
	fs.Int64Var(&f.k8sNonce, "k8s-nonce", 0, "savepointRedeployNonce for --format k8s (default: derived from the chosen position, so the same decision gives the same nonce)")
	fs.StringVar(&f.failOnWarning, "fail-on-warning", "", "exit 7 when the chosen candidate carries one of these warning codes (`CODE[,CODE]`, e.g. flink.older-than-broken,chain.source-failed): the report or document is still printed, a k8s patch is not")
	fs.BoolVar(&f.verbose, "verbose", false, "print each storage call with its duration to stderr")
	fs.BoolVar(&f.progress, "progress", false, "show the live progress line on stderr even when it is not a terminal")
	fs.StringVar(&f.onFailure, "on-failure", "", "when a source fails: block-weaker (default: refuse every weaker position) or choose-anyway (take the best of the rest, with warning chain.source-failed)")
	fs.Var(&f.now, "now", "evaluate as of `TIME` instead of the clock (reproducible reports and tests)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("resolve takes no arguments, got %s", redact.Quote(strings.Join(pos, " ")))
	}
	// One --flink-version for both of its uses: the run line's claim-mode
	// flag (flinkckpt.Options.FlinkVersion) and the planner's uid rules
	// for --flink-plan (jobgraph.PlanOptions.FlinkVersion).
	f.flinkJob.flinkVersion = f.flink.version
	if f.jsonOut {
		if f.format != "text" && f.format != "json" {
			return usagef("resolve: --json and --format %s are exclusive", f.format)
		}
		f.format = "json"
	}
	switch f.format {
	case "text", "json", "k8s", "html":
	default:
		return usagef("resolve: --format %q: want text, json, k8s or html", f.format)
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
	f.watch(e, len(resolvers))
	policy.OnEvent = e.onEvent
	d, rerr := (&resume.Chain{Resolvers: resolvers, Policy: policy}).Resolve(ctx)
	e.prog.stop()
	waiting := ""
	if ctx.Err() != nil {
		waiting = e.trace.waiting() // the calls the deadline caught
	}
	result := resume.Classify(d, rerr)
	code, why := decisionExit(d, result, rerr, splitComma(f.failOnWarning))
	if waiting != "" && why != nil {
		why = fmt.Errorf("%w; at the deadline (--timeout %s) still waiting for the storage call(s) %s", why, f.timeout.d, waiting)
	}
	if result == resume.ResultChosen {
		// Chosen although a source failed (it could not have offered
		// more, or --on-failure choose-anyway): the logs say which.
		for _, o := range d.Failed() {
			fmt.Fprintf(e.stderr, "resumectl: %s failed: %s\n", o.Resolver, oneLine(o.Err.Error()))
		}
	}
	if err := f.print(e, d, code); err != nil {
		return err
	}
	return withExit(code, why)
}

// watch sets up what a resolve shows while it runs: with --verbose each
// storage call's line on stderr; on a terminal's stderr (or with
// --progress) the live progress line, after about a second. Nothing when
// stderr is a pipe or a file and neither is asked for.
func (f *resolveFlags) watch(e *env, sources int) {
	if f.verbose {
		e.trace.onEnd = func(ev resume.Event) { verboseLine(e.stderr, ev) }
		return // one line per call: no live line between them
	}
	if !e.stderrTerm && !f.progress {
		return
	}
	delay, every := progressDelay, progressEvery
	if e.hooks != nil && e.hooks.progressNow {
		delay, every = 0, 0
	}
	e.prog = startProgress(e.errOut, sources, delay, every)
	e.trace.onEnd = e.prog.event
}

// keyValueFlag is a repeatable KEY=VALUE flag.
type keyValueFlag struct{ m map[string]string }

func (f *keyValueFlag) String() string {
	if f == nil || len(f.m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(f.m))
	for k := range f.m {
		keys = append(keys, k+"="+f.m[k])
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func (f *keyValueFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("%q: want KEY=VALUE", s)
	}
	if f.m == nil {
		f.m = map[string]string{}
	}
	f.m[strings.TrimSpace(k)] = v
	return nil
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
	p := resume.Policy{MaxAge: f.maxAge.d, MinValidity: f.minValidity.d}
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
	if f.onFailure != "" {
		fp, err := resume.ParseFailurePolicy(f.onFailure)
		if err != nil {
			return p, usagef("resolve: --on-failure: %v", err)
		}
		p.OnFailure = fp
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
	case !hasFlink && (f.flinkJobID != "" || f.flinkRoot != "" || f.flinkStrict || f.flink.set()):
		return usagef("resolve: --flink-job-id, --flink-root and the other --flink-… options need --flink-checkpoints or --flink-savepoints")
	case f.flinkSources && !hasFlink:
		return usagef("resolve: --flink-sources needs --flink-checkpoints or --flink-savepoints")
	case f.flinkSinkCommitted && !hasFlink:
		return usagef("resolve: --flink-sink-committed needs --flink-checkpoints or --flink-savepoints")
	case !hasFlink && (f.flinkJob.given() || f.flinkAllowNonRestored):
		return usagef("resolve: --flink-plan, --flink-uid, --flink-sink-uid, --flink-uid-hash, --flink-operator-id and --flink-allow-non-restored-state need --flink-checkpoints or --flink-savepoints")
	case f.flinkAllowNonRestored && !f.flinkJob.given():
		return usagef("resolve: --flink-allow-non-restored-state needs the new job's operators (--flink-plan, --flink-uid, --flink-sink-uid, --flink-uid-hash or --flink-operator-id): without them nothing says which state would be dropped")
	case hasPaimon && (f.paimonTable == "" || f.paimonConsumer == "") && !(hasFlink && f.paimonTable != ""):
		return usagef("resolve: --paimon-table and --paimon-consumer go together")
	case !hasPaimon && (f.paimonMode != "" || f.paimonFrom.set || f.paimonWrittenMode != "" || f.paimonVersion != "" || len(f.paimonOptions.m) > 0):
		return usagef("resolve: --paimon-mode, --paimon-from, --paimon-written-mode, --paimon-version and --paimon-option need --paimon-table")
	case hasKafka && (f.kafkaBrokers == "" || f.kafkaTopic == "") && !(hasFlink && f.kafkaBrokers != ""):
		return usagef("resolve: --kafka-brokers and --kafka-topic go together (or --kafka-brokers alone with a Flink location, to check the snapshots' Kafka offsets)")
	case hasFlink && f.kafkaTopic == "" && f.kafkaBrokers != "" && (f.kafkaFrom.set || f.kafkaRewind.d != 0 || f.kafkaObserve.d != 0 ||
		f.kafkaIsolation != "" || f.kafkaCommitSource != "" || f.kafkaStrict):
		// --kafka-group alone serves the salvaged start: partitions the old
		// job had not started from its group's commit start at the commit.
		return usagef("resolve: --kafka-from, --kafka-rewind, --kafka-observe, --kafka-isolation, --kafka-commit-source and --kafka-strict need --kafka-topic")
	case f.kafkaFrom.set && f.kafkaRewind.d != 0:
		return usagef("resolve: --kafka-from and --kafka-rewind are exclusive")
	case hasKafka && f.kafkaTopic != "" && f.kafkaGroup == "" && !f.kafkaFrom.set && f.kafkaRewind.d == 0:
		return usagef("resolve: Kafka needs --kafka-group, --kafka-from or --kafka-rewind")
	case !hasKafka && (f.kafkaGroup != "" || f.kafkaFrom.set || f.kafkaRewind.d != 0 || f.kafkaObserve.d != 0 ||
		f.kafkaIsolation != "" || f.kafkaCommitSource != "" || f.kafkaStrict):
		return usagef("resolve: --kafka-group, --kafka-from, --kafka-rewind, --kafka-observe, --kafka-isolation, --kafka-commit-source and --kafka-strict need --kafka-brokers")
	case (f.postgresDSN != "" || f.postgresSlot != "" || f.mysqlDSN != "") && !hasFlink:
		return usagef("resolve: --mysql-dsn, --postgres-dsn and --postgres-slot need --flink-checkpoints or --flink-savepoints")
	case (f.postgresDSN == "") != (f.postgresSlot == ""):
		return usagef("resolve: --postgres-dsn and --postgres-slot go together (the snapshot does not record the slot)")
	case f.together && !(f.paimonConsumer != "" && f.kafkaTopic != ""):
		return usagef("resolve: --together needs both --paimon-table and --kafka-brokers")
	}
	if err := f.flinkJob.check(); err != nil {
		return usagef("resolve: %v", err)
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
	var stateless []resume.Resolver
	var checks salvageChecks
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
		checks.paimon = table
		if f.paimonConsumer != "" {
			r, err := paimon.NewResolver(table, f.paimonConsumer, &paimon.Options{
				StartTime: f.paimonFrom.t, Mode: f.paimonMode, WrittenMode: f.paimonWrittenMode,
				PaimonVersion: f.paimonVersion, TableOptions: f.paimonOptions.m, Now: f.clock(),
			})
			if err != nil {
				return nil, closeAll, usagef("resolve: %v", err)
			}
			stateless = append(stateless, r)
		}
	}
	if f.kafkaBrokers != "" {
		at := f.kafkaFrom.t
		if f.kafkaRewind.d != 0 {
			at = f.clock()().Add(-f.kafkaRewind.d)
		}
		cl, err := dialKafka("--kafka-brokers", f.kafkaBrokers)
		if err != nil {
			return nil, closeAll, err
		}
		closers = append(closers, cl.Close)
		checks.kafka = cl
		if f.kafkaTopic != "" {
			r, err := kafkaoffset.NewResolver(cl, splitComma(f.kafkaTopic), &kafkaoffset.Options{
				Group: f.kafkaGroup, At: at, ObserveWindow: f.kafkaObserve.d, Now: f.clock(),
				IsolationLevel: kafkaoffset.IsolationLevel(f.kafkaIsolation), CommitSource: kafkaoffset.CommitSource(f.kafkaCommitSource), Strict: f.kafkaStrict,
			})
			if err != nil {
				return nil, closeAll, usagef("resolve: %v", err)
			}
			stateless = append(stateless, r)
		}
	}
	if f.mysqlDSN != "" {
		srv, err := mysqlcheck.New(f.mysqlDSN)
		if err != nil {
			return nil, closeAll, usagef("resolve: --mysql-dsn: %v", err)
		}
		checks.mysql = srv
	}
	if f.postgresDSN != "" {
		srv, err := pgcheck.New(f.postgresDSN)
		if err != nil {
			return nil, closeAll, usagef("resolve: --postgres-dsn: %v", err)
		}
		checks.postgres, checks.postgresSlot = srv, f.postgresSlot
	}
	// The Flink resolvers come first in the chain, and check the restore
	// candidate's sources against the Kafka cluster and the Paimon table
	// whenever those are given.
	flinkRs, flinkClose, err := f.flinkResolvers(ctx, e, checks)
	closers = append(closers, flinkClose)
	if err != nil {
		return nil, closeAll, err
	}
	out = append(flinkRs, out...)
	if f.wantSalvage() {
		r, closeSalvage, err := f.salvageResolver(ctx, e, checks)
		closers = append(closers, closeSalvage)
		if err != nil {
			return nil, closeAll, err
		}
		out = append(out, r)
	}
	if f.together {
		out = append(out, resume.All("paimon+kafka", stateless...))
	} else {
		out = append(out, stateless...)
	}
	return out, closeAll, nil
}

func (f *resolveFlags) print(e *env, d *resume.Decision, code int) error {
	switch f.format {
	case "json":
		// Errors from storage SDKs may quote URLs with credentials: the
		// output masks them (see output).
		return writeJSON(e.stdout, d)
	case "k8s":
		if code != ExitOK {
			// A patch is applied by scripts: on any non-zero exit stdout
			// stays empty, and stderr says why.
			return nil
		}
		return writeK8sPatch(e, d, f.k8sNonce)
	case "html":
		return writeTimeline(e.stdout, d)
	default:
		writeReport(e.stdout, d, e.reportWidth())
		return nil
	}
}

// writeK8sPatch prints the JSON merge patch for a flink-kubernetes-operator
// FlinkDeployment (or FlinkSessionJob) that package k8s builds, and the
// chosen candidate's warnings on stderr (the patch carries them as
// annotations). Apply it with
// kubectl patch flinkdeployment NAME --type merge -p "$(resumectl resolve ... --format k8s)".
// A stateless choice has no patch: exit 6.
func writeK8sPatch(e *env, d *resume.Decision, nonce int64) error {
	patch, err := k8s.NewPatch(d.Chosen, &k8s.Options{Nonce: nonce})
	if errors.Is(err, k8s.ErrStateless) {
		return withExit(ExitFormat, fmt.Errorf("--format k8s: %w", err))
	}
	if err != nil {
		return withExit(ExitFailed, fmt.Errorf("--format k8s: %w", err))
	}
	for _, w := range d.Chosen.Warnings {
		fmt.Fprintf(e.stderr, "resumectl: warning: %s [%s]\n", w.Text, w.Code)
	}
	return writeJSON(e.stdout, patch)
}

// decisionExit maps what the chain returned to the exit status
// (resume.Classify: 0 chosen, 1 a source failed, 2 a bad chain, 3 nothing
// to restore, 4 all refused, 5 none fits the new job; 7 when the chosen
// candidate carries a warning of failOn) and a short line for stderr: the
// report already names every rejected candidate, so the line does not
// repeat them; a failure's error is repeated, for the logs of a script.
func decisionExit(d *resume.Decision, result resume.Result, err error, failOn []string) (int, error) {
	switch result {
	case resume.ResultChosen:
		for _, code := range failOn {
			if d.Chosen.HasWarning(resume.WarningCode(code)) {
				return ExitWarningRefused, fmt.Errorf("the chosen %s carries warning %s (--fail-on-warning)", d.Chosen.Resolver, code)
			}
		}
		return ExitOK, nil
	case resume.ResultNothingToRestore:
		return ExitNothing, fmt.Errorf("nothing to restore: every source answered and none holds a position (a first deploy, or a mistyped prefix): %s", noPositions(d))
	case resume.ResultRefused:
		if errors.Is(err, flinkckpt.ErrBroken) && !anyCandidate(d) {
			return ExitRefused, fmt.Errorf("nothing chosen: the snapshots there cannot be restored, so the job's state is lost, not absent (never a first deploy: starting it empty loses that state): %s", noPositions(d))
		}
		return ExitRefused, errors.New("nothing chosen: every candidate was refused by the policy (the report says why each: data loss below --min-guarantee, or older than --max-age; --min-guarantee data-loss accepts a loss knowingly)")
	case resume.ResultIncompatible:
		return ExitIncompatible, fmt.Errorf("nothing chosen: no snapshot fits the new job (its source positions can be salvaged: name the new job, or --flink-sources): %s", noPositions(d))
	case resume.ResultFailed:
		var parts []string
		for _, o := range d.Failed() {
			parts = append(parts, o.Resolver+" failed: "+o.Err.Error())
		}
		if len(parts) == 0 && err != nil {
			parts = append(parts, err.Error())
		}
		return ExitFailed, fmt.Errorf("nothing chosen: %s", strings.Join(parts, "; "))
	}
	return result.ExitCode(), err
}

// noPositions lists what the resolvers that had nothing said.
func noPositions(d *resume.Decision) string {
	var parts []string
	for _, o := range d.Considered {
		if o.Verdict == resume.VerdictNoPosition && o.Err != nil {
			parts = append(parts, o.Resolver+": "+o.Err.Error())
		}
	}
	return strings.Join(parts, "; ")
}

var _ json.Marshaler = resume.Decision{}

// anyCandidate reports whether some resolver offered a candidate (then a
// refusal is the policy's).
func anyCandidate(d *resume.Decision) bool {
	for _, o := range d.Considered {
		if o.Candidate != nil {
			return true
		}
	}
	return false
}
