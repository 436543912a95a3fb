package cli

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

const kafkaUsage = "offsets --brokers H:P[,H:P] --topic T[,T] [--group G] [--at TIME] [--observe DUR] [--isolation read_committed|read_uncommitted] [--commit-source checkpoint|auto|unknown] [--strict] [--now TIME] [--timeout DUR] [--json]"

// runKafka implements "resumectl kafka offsets": the per-partition table of
// log start, end, committed offset, offset by time, the chosen start and why,
// then the verdict. Exit 0 when the start is safe (replay), 3 when it loses
// data or the group has no commits, 1 when a lookup failed (the table still
// shows what was found).
func runKafka(e *env, args []string) error {
	if len(args) == 0 || args[0] != "offsets" {
		if len(args) > 0 && isHelp(args[0]) {
			return groupHelp(e, "kafka", kafkaUsage)
		}
		return usagef("kafka: want a subcommand: resumectl kafka %s", kafkaUsage)
	}
	fs := newFlags(e, "kafka offsets", subUsage("kafka", kafkaUsage, "offsets"))
	var (
		brokers, topics, group string
		isolation, commitSrc   string
		strict                 bool
		at, now                = timeFlag{}, timeFlag{}
		observe                = durationFlag{}
		asJSON                 bool
	)
	fs.StringVar(&brokers, "brokers", "", "seed brokers, `H:P[,H:P]`")
	fs.StringVar(&topics, "topic", "", "topic(s) the job reads, `T[,T]`")
	fs.StringVar(&group, "group", "", "the group KafkaSource committed offsets to (its group.id)")
	fs.Var(&at, "at", "start `TIME` for partitions without a commit (all partitions without --group): RFC 3339, \"2006-01-02 15:04:05\" (UTC), unix ms, or -15m")
	fs.Var(&observe, "observe", "watch the group's offsets this long (`DUR`) and fail if they move: the old job still runs")
	fs.StringVar(&isolation, "isolation", "", "the new job's isolation.level: read_committed (default: starts stay below open transactions) or read_uncommitted")
	fs.StringVar(&commitSrc, "commit-source", "", "how the old job committed: checkpoint (default, assumed), auto (enable.auto.commit: data loss) or unknown (data loss)")
	fs.BoolVar(&strict, "strict", false, "grade as data loss what may be lost but cannot be shown (compacted topics further behind than delete.retention.ms)")
	fs.Var(&now, "now", "evaluate as of `TIME` instead of the clock: relative --at times, commit and record times after it, idle and compaction checks (reproducible reports and tests)")
	timeout := addTimeout(fs, DefaultTimeout)
	fs.BoolVar(&asJSON, "json", false, "print JSON instead of the table")
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usagef("kafka offsets: unexpected argument %s", redact.Quote(pos[0]))
	case brokers == "" || topics == "":
		return usagef("kafka offsets: --brokers and --topic are required")
	case group == "" && !at.set:
		return usagef("kafka offsets: give --group, --at, or both")
	}
	var clock func() time.Time
	if now.set {
		at.rebase(now.t) // "-15m" counts back from --now, not the clock
		t := now.t
		clock = func() time.Time { return t }
	}
	cl, err := dialKafka(e, "--brokers", brokers)
	if err != nil {
		return err
	}
	defer cl.Close()
	r, err := kafkaoffset.NewResolver(cl, splitComma(topics), &kafkaoffset.Options{Group: group, At: at.t, ObserveWindow: observe.d, Now: clock,
		IsolationLevel: kafkaoffset.IsolationLevel(isolation), CommitSource: kafkaoffset.CommitSource(commitSrc), Strict: strict})
	if err != nil {
		return usagef("kafka offsets: %v", err)
	}

	ctx, cancel := e.context(timeout.d)
	defer cancel()
	res, lookupErr := r.Offsets(ctx)
	if lookupErr != nil && ctx.Err() != nil {
		if w := e.trace.waiting(); w != "" { // a broker that never answered: which request, which broker
			lookupErr = fmt.Errorf("%w; at the deadline (--timeout %s) still waiting for %s", lookupErr, timeout.d, w)
		}
	}
	var cand resume.Candidate
	gradeErr := lookupErr
	if lookupErr == nil {
		cand, gradeErr = r.Grade(res)
	}
	if asJSON {
		if err := writeKafkaJSON(e, res, cand, gradeErr); err != nil {
			return err
		}
	} else {
		writeKafkaTable(e, res, cand, gradeErr)
	}
	switch {
	case gradeErr == nil && cand.Guarantee == resume.DataLoss:
		return withExit(ExitRefused, errors.New("kafka offsets: the start loses data (see the reasons)"))
	case errors.Is(gradeErr, resume.ErrNoPosition):
		return withExit(ExitNothing, gradeErr)
	case gradeErr != nil:
		return withExit(ExitFailed, gradeErr)
	}
	return nil
}

// dialKafka connects to comma-separated seed brokers with bounded request
// and retry timeouts, so an unreachable cluster fails instead of hanging.
func dialKafka(e *env, flagName, brokers string) (*kgo.Client, error) {
	seeds := splitComma(brokers)
	if len(seeds) == 0 {
		return nil, usagef("%s: no brokers", flagName)
	}
	for _, s := range seeds {
		if len(s) > maxSeedLen {
			// A host name has at most 253 bytes; the dial error would quote
			// a longer one whole, in the report too.
			return nil, usagef("%s: seed broker %s is no HOST:PORT", flagName, redact.Quote(s))
		}
		if strings.ContainsAny(s, "@/") {
			// user:password@host would be dialled as a host name, and
			// quoted whole in the dial error.
			return nil, usagef(`%s: a seed broker is HOST:PORT, and one holds an "@" or a "/" (user information, or a URL?): it is not printed, and resumectl takes no Kafka credentials`, flagName)
		}
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(seeds...),
		kgo.DialTimeout(10 * time.Second),
		kgo.RequestTimeoutOverhead(10 * time.Second),
		kgo.RetryTimeout(30 * time.Second),
		kgo.MetadataMinAge(100 * time.Millisecond),
	}
	if e != nil {
		if h := e.trace.kafkaHook(); h != nil {
			// its requests are named while they wait (progress line, timeout error)
			opts = append(opts, kgo.WithHooks(h))
		}
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, usagef("%s %s: %v", flagName, redact.Quote(brokers), err)
	}
	return cl, nil
}

// maxSeedLen bounds a seed broker: a 253-byte host name, brackets and a
// port.
const maxSeedLen = 253 + 2 + 6

func splitComma(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func offsetCell(o int64) string {
	if o < 0 {
		return "-"
	}
	return strconv.FormatInt(o, 10)
}

func writeKafkaTable(e *env, res []kafkaoffset.PartitionOffsets, c resume.Candidate, err error) {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOPIC\tPARTITION\tSTART\tEND\tSTABLE\tCOMMITTED\tBY-TIME\tCHOSEN\tWHY")
	for _, p := range res {
		why := p.Reason
		if p.Err != nil {
			why = "error: " + strings.TrimPrefix(p.Err.Error(), "kafkaoffset: ")
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Topic, p.Partition, offsetCell(p.Start), offsetCell(p.End),
			offsetCell(p.LastStable), offsetCell(p.Committed), offsetCell(p.ByTime), offsetCell(p.Offset), oneLine(why))
	}
	tw.Flush()
	if err != nil {
		fmt.Fprintf(e.stdout, "no start: %s\n", oneLine(err.Error()))
		return
	}
	at := ""
	if !c.At.IsZero() {
		at = " at " + c.At.UTC().Format(time.RFC3339Nano)
	}
	fmt.Fprintf(e.stdout, "guarantee: %s%s\n", c.Guarantee, at)
	opts := c.Position.Launch().Options
	for _, k := range sortedOptionKeys(opts) {
		fmt.Fprintf(e.stdout, "option: %s=%s\n", k, opts[k])
	}
	for _, r := range c.Reasons {
		fmt.Fprintf(e.stdout, "reason: %s\n", oneLine(r))
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(e.stdout, "warning: %s [%s]\n", oneLine(w.Text), w.Code)
	}
}

func sortedOptionKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// The --json document: every partition (with its error), then the verdict.
type (
	kafkaJSON struct {
		Partitions []kafkaPartitionJSON  `json:"partitions"`
		Guarantee  string                `json:"guarantee,omitempty"`
		At         string                `json:"at,omitempty"`
		Position   *kafkaoffset.Position `json:"position"`
		Launch     *resume.Launch        `json:"launch"`
		Reasons    []string              `json:"reasons"`
		Warnings   []resume.Warning      `json:"warnings"`
		Error      string                `json:"error,omitempty"`
	}
	kafkaPartitionJSON struct {
		Topic     string `json:"topic"`
		Partition int32  `json:"partition"`
		Start     *int64 `json:"start"`
		End       *int64 `json:"end"`
		// LastStable is the last stable offset (null when not listed:
		// --isolation read_uncommitted).
		LastStable *int64 `json:"last_stable"`
		Committed  *int64 `json:"committed"`
		ByTime     *int64 `json:"by_time"`
		Offset     *int64 `json:"offset"`
		From       string `json:"from,omitempty"`
		Reason     string `json:"reason,omitempty"`
		Error      string `json:"error,omitempty"`
	}
)

func opt64(v int64) *int64 {
	if v < 0 {
		return nil
	}
	return &v
}

func writeKafkaJSON(e *env, res []kafkaoffset.PartitionOffsets, c resume.Candidate, err error) error {
	doc := kafkaJSON{Partitions: []kafkaPartitionJSON{}, Reasons: []string{}, Warnings: []resume.Warning{}}
	for _, p := range res {
		pj := kafkaPartitionJSON{Topic: p.Topic, Partition: p.Partition, Start: opt64(p.Start), End: opt64(p.End),
			LastStable: opt64(p.LastStable), Committed: opt64(p.Committed), ByTime: opt64(p.ByTime), Offset: opt64(p.Offset), From: string(p.From), Reason: p.Reason}
		if p.Err != nil {
			pj.Error = p.Err.Error()
		}
		doc.Partitions = append(doc.Partitions, pj)
	}
	if err != nil {
		doc.Error = oneLine(err.Error())
	} else {
		doc.Guarantee = c.Guarantee.String()
		if !c.At.IsZero() {
			doc.At = c.At.UTC().Format(time.RFC3339Nano)
		}
		if p, perr := kafkaoffset.PositionOf(c.Position); perr == nil {
			doc.Position = p
		}
		l := c.Position.Launch()
		doc.Launch = &l
		doc.Reasons = append(doc.Reasons, c.Reasons...)
		doc.Warnings = append(doc.Warnings, c.Warnings...)
	}
	return writeJSON(e.stdout, doc)
}
