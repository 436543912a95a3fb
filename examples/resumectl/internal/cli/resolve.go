package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/record"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/k8s"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/redact"
)

const resolveUsage = `[--flink-checkpoints URL] [--flink-savepoints URL] [--flink-job-id ID] [--flink-root URI]
        [--flink-default-fs URI] [--flink-extra-root FLINKURI=BUCKETURL]... [--flink-allow-unverified] [--flink-strict]
        [--flink-anchor URL] [--flink-intent restart|upgrade] [--flink-version X.Y] [--flink-claim-mode MODE] [--flink-deployment session|application]
        [--flink-max-metadata-size BYTES] [--flink-observe DUR] [--flink-require] [--flink-sources] [--flink-sink-committed]
        [--flink-plan FILE | --flink-uid UID... | --flink-sink-uid UID... | --flink-uid-hash HEX... | --flink-operator-id HEX...] [--flink-all-uids]
        [--flink-plan-config KEY=VALUE...] [--flink-allow-non-restored-state] [--flink-parallelism N] [--flink-max-parallelism N]
        [--paimon-table URL --paimon-consumer ID [--paimon-mode exactly-once|at-least-once] [--paimon-from TIME]
         [--paimon-written-mode MODE] [--paimon-version V] [--paimon-option KEY=VALUE]...]
        [--kafka-brokers H:P --kafka-topic T [--kafka-group G] [--kafka-from TIME | --kafka-rewind DUR] [--kafka-observe DUR]
         [--kafka-isolation read_committed|read_uncommitted] [--kafka-commit-source checkpoint|auto|unknown] [--kafka-strict]]
        [--mysql-dsn DSN | --mysql-dsn-file FILE] [--postgres-dsn DSN | --postgres-dsn-file FILE] [--postgres-slot NAME]
        [--kafka-sink-brokers H:P] [--kafka-sink-topic TOPIC[,TOPIC]] [--kafka-sink-transaction-timeout DUR] [--kafka-sink-transactional-id-prefix PREFIX] [--paimon-sink-table URL]
        [--together] [--min-guarantee NAME] [--max-age DUR] [--min-validity DUR] [--timeout DUR] [--on-failure block-weaker|choose-anyway]
        [--flink-ha-configmaps FILE | --flink-zookeeper ADDR --flink-cluster-id ID [--flink-zookeeper-root PATH]] [--flink-ha-storage URL [--flink-ha-storage-dir URI]]
        [--flink-job-result-store URL] [--flink-rest URL] [--k8s-resource FILE]... [--k8s-savepoint-history-max-count N] [--k8s-savepoint-history-max-age DUR]
        [--json | --format text|json|k8s|html [--k8s-nonce N]] [--fail-on-warning CODE[,CODE]] [--now TIME]
        [--verbose] [--progress]`

// resolveFlags are the flags of resumectl resolve: one group per source
// (flags_<source>.go), the live checkers' group, and the policy and
// output flags every resolve has.
type resolveFlags struct {
	flink  flinkFlags  // flags_flink.go
	paimon paimonFlags // flags_paimon.go
	kafka  kafkaFlags  // flags_kafka.go
	live   liveFlags   // flags_live.go
	sink   sinkFlags   // flags_sink.go
	record recordFlags // flags_record.go

	together                     bool
	minGuarantee                 string
	maxAge, timeout, minValidity durationFlag
	jsonOut                      bool
	format                       string
	k8sNonce                     int64
	failOnWarning                string
	verbose, progress            bool
	onFailure                    string
	now                          timeFlag
}

// flagGroup is one group of resolve's flags: a source's (Flink, Paimon,
// Kafka), or the live checkers'. Adding a source to resolve is adding a
// group: its own file (flags_<source>.go) with these four methods, listed
// in groups and buildOrder.
type flagGroup interface {
	// register adds the group's flags.
	register(fs *flag.FlagSet, e *env)
	// set reports whether any of the group's options was given.
	set() bool
	// check refuses bad combinations before any I/O (exit 2), knowing
	// which sources the command names.
	check(s sources) error
	// build opens what the group names and adds it to b: resolvers,
	// closers, the systems a later group checks against.
	build(ctx context.Context, e *env, b *built) error
}

// groups are resolve's flag groups, in the order they register and check
// (which error a command with two mistakes gets first).
func (f *resolveFlags) groups() []flagGroup {
	return []flagGroup{&f.flink, &f.paimon, &f.kafka, &f.live, &f.sink, &f.record}
}

// buildOrder is the order the groups build: the sources whose systems the
// live checkers use (Paimon's table, Kafka's client) first, then the live
// checkers, then Flink, whose snapshots are checked against them.
func (f *resolveFlags) buildOrder() []flagGroup {
	return []flagGroup{&f.paimon, &f.sink, &f.kafka, &f.live, &f.flink, &f.record}
}

// sources says which sources a resolve names, for the groups' checks.
type sources struct{ flink, paimon, kafka bool }

func (f *resolveFlags) sources() sources {
	return sources{flink: f.flink.names(), paimon: f.paimon.names(), kafka: f.kafka.names()}
}

// built is what the groups' build made, group after group.
type built struct {
	now     func() time.Time
	closers []func()
	// kafka is the Kafka group's client, paimon its table: the live
	// checkers check against them.
	kafka  *kgo.Client
	paimon *paimon.Table
	// live is the one set of live checkers (the live group's build; nil
	// when no live system is given), for the restore and the salvage path.
	live *livecheck.Checkers
	// sink is the sink group's: the KafkaSink's own brokers (nil: the
	// Kafka group's cluster answers), its transactional id prefix and
	// assumed transaction timeout; sinkSet when any was given.
	sink        livecheck.KafkaTransactions
	sinkPrefix  string
	sinkTopics  []string
	sinkTimeout time.Duration
	sinkSet     bool
	// paimonSink is --paimon-sink-table's table.
	paimonSink *paimon.Table
	// restore are the Flink resolvers (restore, then salvage): first in
	// the chain. stateless are the Paimon and Kafka resolvers.
	restore, stateless []resume.Resolver
	// flinkStorage is the Flink group's locations, where the record group
	// looks up the snapshots records name.
	flinkStorage *record.BucketStorage
}

func (b *built) close() {
	for i := len(b.closers) - 1; i >= 0; i-- {
		b.closers[i]()
	}
}

func runResolve(e *env, args []string) error {
	var f resolveFlags
	fs := newFlags(e, "resolve", resolveUsage)
	for _, g := range f.groups() {
		g.register(fs.FlagSet, e)
	}
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
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	if f.jsonOut {
		if given["format"] && f.format != "json" {
			return usagef("resolve: --json and --format %s contradict each other (--json is --format json): give one", f.format)
		}
		f.format = "json"
	}
	if given["k8s-nonce"] && f.format != "k8s" {
		return usagef("resolve: --k8s-nonce is the patch's savepointRedeployNonce and needs --format k8s (the format is %s)", f.format)
	}
	if err := checkWarningCodes("resolve", f.failOnWarning); err != nil {
		return err
	}
	switch f.format {
	case "text", "json", "k8s", "html":
	default:
		return usagef("resolve: --format %q: want text, json, k8s or html", f.format)
	}
	if f.now.set {
		// Relative times ("-15m") count back from --now, not the clock.
		f.paimon.from.rebase(f.now.t)
		f.kafka.from.rebase(f.now.t)
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
	// The records' second opinion, beside storage: warnings only, the
	// choice and the exit status stand (unless --fail-on-warning names one).
	if err := f.record.compare(ctx, d); err != nil && rerr == nil {
		rerr = err
	}
	waiting := ""
	if ctx.Err() != nil {
		waiting = e.trace.waiting() // the calls the deadline caught
	}
	result := resume.Classify(d, rerr)
	code, why := decisionExit(d, result, rerr, splitComma(f.failOnWarning))
	if waiting != "" && why != nil {
		why = fmt.Errorf("%w; at the deadline (--timeout %s) still waiting for %s", why, f.timeout.d, waiting) // storage calls, Kafka requests
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
	tr := e.trace
	e.prog.mu.Lock()
	e.prog.pending = func() string { return tr.longest(2 * time.Second) }
	e.prog.mu.Unlock()
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

// check refuses bad flag combinations before any I/O (exit 2): each
// group's own, then those across groups.
func (f *resolveFlags) check() error {
	s := f.sources()
	f.record.jobID = f.flink.jobID
	if !s.flink && !s.paimon && !s.kafka {
		return usagef("resolve: name at least one source: --flink-checkpoints, --flink-savepoints, --paimon-table or --kafka-brokers")
	}
	for _, g := range f.groups() {
		if err := g.check(s); err != nil {
			return err
		}
	}
	if f.together && !(f.paimon.consumer != "" && f.kafka.topic != "") {
		return usagef("resolve: --together needs both --paimon-table and --kafka-brokers")
	}
	return nil
}

// build opens every source and returns the chain's resolvers, in the order
// checkpoints, savepoints, salvage, Paimon, Kafka (the order breaks ties).
func (f *resolveFlags) build(ctx context.Context, e *env) ([]resume.Resolver, func(), error) {
	b := &built{now: f.clock()}
	for _, g := range f.buildOrder() {
		if err := g.build(ctx, e, b); err != nil {
			return nil, b.close, err
		}
	}
	if f.flink.wantSalvage() {
		if err := f.salvageResolver(ctx, e, b); err != nil {
			return nil, b.close, err
		}
	}
	out := b.restore
	if f.together {
		out = append(out, resume.All("paimon+kafka", b.stateless...))
	} else {
		out = append(out, b.stateless...)
	}
	return out, b.close, nil
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
	patch, err := k8s.NewPatch(d.Chosen, &k8s.Options{Nonce: nonce, Record: d.Record})
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
// checkWarningCodes refuses a --fail-on-warning code resumekit never
// emits: a typo (flink.older-then-broken) would gate nothing, silently.
func checkWarningCodes(cmd, list string) error {
	var unknown []string
	for _, c := range splitComma(list) {
		if !resume.KnownWarningCode(resume.WarningCode(c)) {
			unknown = append(unknown, redact.Quote(c))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	var known []string
	for _, c := range resume.WarningCodes() {
		known = append(known, string(c))
	}
	return usagef("%s: --fail-on-warning %s: no such warning code (a typo would never match, and the gate would pass everything); the codes are: %s",
		cmd, strings.Join(unknown, ", "), strings.Join(known, ", "))
}

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
