package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume/localblob"
	"github.com/resumekit/resumekit/resume/redact"
)

const flinkCompatUsage = `compat SNAPSHOT (--plan FILE | --uid UID... | --sink-uid UID... | --uid-hash HEX... | --operator-id HEX...)
         [--all-uids] [--plan-config KEY=VALUE...] [--flink-version V] [--parallelism N] [--max-parallelism N] [--json] [--timeout DUR]`

// stringsFlag is a repeatable flag.
type stringsFlag []string

func (f *stringsFlag) String() string { return strings.Join(*f, ",") }

func (f *stringsFlag) Set(s string) error {
	*f = append(*f, s)
	return nil
}

// jobFlags describe the new job: the flags of flink compat, and of resolve
// with the prefix "flink-". flink compat registers --flink-version here;
// resolve has its own (the run line's claim-mode flag needs it too) and
// sets flinkVersion from it.
type jobFlags struct {
	prefix         string
	ownVersion     bool // --flink-version is registered here (flink compat)
	plan           string
	uids, sinkUIDs stringsFlag
	uidHashes, ids stringsFlag
	planConfig     stringsFlag
	allUIDs        bool
	flinkVersion   string
	parallelism    int
	maxParallelism int
	stdin          io.Reader // --plan -
	// built is the job once job() read it: the plan is read once (stdin
	// cannot be read twice), however many resolvers need the job.
	built    *jobgraph.Job
	builtErr error
}

func (j *jobFlags) register(fs *flag.FlagSet, prefix string, stdin io.Reader) {
	j.prefix, j.stdin = prefix, stdin
	fs.StringVar(&j.plan, prefix+"plan", "", "the new job's compiled plan (`FILE`, COMPILE PLAN JSON; a regular file, links followed; - reads standard input)")
	fs.Var(&j.uids, prefix+"uid", "a `UID` of the new job (DataStream .uid); repeatable")
	fs.Var(&j.sinkUIDs, prefix+"sink-uid", "the `UID` of a sinkTo(...) sink: adds its committer and global committer uids as possible; repeatable")
	fs.Var(&j.uidHashes, prefix+"uid-hash", "a uid hash of the new job (.setUidHash, 32 `HEX`), or UID=HEX for an operator with both (the hash wins where the snapshot has state under it); repeatable")
	fs.Var(&j.ids, prefix+"operator-id", "an operator id of the new job (32 `HEX`, as Flink logs it); repeatable")
	fs.BoolVar(&j.allUIDs, prefix+"all-uids", false, "the operators named are all of the new job's (no operator without a uid: pipeline.auto-generate-uids=false): a snapshot operator with state none matches is dropped, not unknown (unless an operator named only by a uid hash, which runs under a topology hash, may hold it)")
	fs.Var(&j.planConfig, prefix+"plan-config", "a table option of the new job (`KEY=VALUE`, e.g. table.exec.uid.format=<id>_<transformation>); repeatable")
	if prefix == "" {
		j.ownVersion = true
		fs.StringVar(&j.flinkVersion, "flink-version", "", "the Flink `VERSION` that will run the plan (default: the plan's flinkVersion)")
	}
	fs.IntVar(&j.parallelism, prefix+"parallelism", 0, "the new job's parallelism (`N`), to check it against the snapshot's max parallelism")
	fs.IntVar(&j.maxParallelism, prefix+"max-parallelism", 0, "the new job's configured max parallelism (`N`, pipeline.max-parallelism), to check it against the snapshot's: Flink refuses a mismatch")
}

// given reports whether any flag names the new job's operators.
func (j *jobFlags) given() bool {
	return j.plan != "" || len(j.uids) > 0 || len(j.sinkUIDs) > 0 || len(j.uidHashes) > 0 || len(j.ids) > 0
}

// check refuses bad values before any I/O.
func (j *jobFlags) check() error {
	p := "--" + j.prefix
	switch {
	case !j.ownVersion:
		// resolve: --flink-version is the new job's, with or without a
		// plan (it picks the run line's claim-mode flag too).
		if j.plan == "" && len(j.planConfig) > 0 {
			return usagef("%splan-config applies to %splan", p, p)
		}
		if j.allUIDs && !j.given() {
			return usagef("%sall-uids says the operators named are all of the new job's: name them with %splan, %suid, %ssink-uid, %suid-hash or %soperator-id", p, p, p, p, p, p)
		}
	case !j.given() && (len(j.planConfig) > 0 || j.flinkVersion != "" || j.parallelism != 0 || j.maxParallelism != 0 || j.allUIDs):
		return usagef("%splan-config, %sall-uids, --flink-version, --parallelism and --max-parallelism describe the new job: name its operators with %splan, %suid, %ssink-uid, %suid-hash or %soperator-id",
			p, p, p, p, p, p, p)
	case j.plan == "" && (len(j.planConfig) > 0 || j.flinkVersion != ""):
		return usagef("%splan-config and --flink-version apply to %splan", p, p)
	}
	if j.parallelism < 0 || j.maxParallelism < 0 {
		return usagef("%sparallelism and %smax-parallelism must not be negative", p, p)
	}
	for _, kv := range j.planConfig {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return usagef("%splan-config %s: want KEY=VALUE", p, redact.Quote(kv))
		}
	}
	for _, list := range []struct {
		name string
		vals []string
	}{{"uid-hash", j.uidHashes}, {"operator-id", j.ids}} {
		for _, v := range list.vals {
			if list.name == "uid-hash" {
				if uid, h, ok := uidAndHash(v); ok {
					if uid == "" {
						return usagef("%suid-hash %s: empty uid before =", p, redact.Quote(v))
					}
					v = h
				}
			}
			if _, err := jobgraph.ParseOperatorID(v); err != nil {
				return usagef("%s%s: %v", p, list.name, err)
			}
		}
	}
	for _, u := range append(append([]string{}, j.uids...), j.sinkUIDs...) {
		if u == "" {
			return usagef("%suid: empty uid", p)
		}
	}
	return nil
}

// job builds the new job (once); nil when no flag names it. A plan that
// cannot be read, or has nodes of unknown types, is an error: its operators
// would be guessed.
//
// The plan FILE is a file the user named, not a location: it is read as
// named, following links (there is no directory to confine it to), but only
// if it is a regular file (localblob.OpenFile: a FIFO or device is refused
// at once, never waited on) and at most jobgraph.ReadPlan's limit. "-"
// reads standard input, within --timeout like any other input.
func (j *jobFlags) job() (*jobgraph.Job, error) {
	if !j.given() {
		if !j.ownVersion && (j.parallelism > 0 || j.maxParallelism > 0) {
			// resolve --flink-parallelism/--flink-max-parallelism alone:
			// the unchanged job at that parallelism.
			return &jobgraph.Job{Parallelism: j.parallelism, MaxParallelism: j.maxParallelism}, nil
		}
		return nil, nil
	}
	if j.built == nil && j.builtErr == nil {
		j.built, j.builtErr = j.build()
	}
	return j.built, j.builtErr
}

func (j *jobFlags) build() (*jobgraph.Job, error) {
	job := &jobgraph.Job{Parallelism: j.parallelism, MaxParallelism: j.maxParallelism}
	if j.plan != "" {
		opts := &jobgraph.PlanOptions{FlinkVersion: j.flinkVersion, Config: map[string]string{}}
		for _, kv := range j.planConfig {
			k, v, _ := strings.Cut(kv, "=")
			opts.Config[k] = v
		}
		r := j.stdin
		if j.plan != "-" {
			f, err := localblob.OpenFile(j.plan)
			if err != nil {
				return nil, usagef("--%splan: %v", j.prefix, err)
			}
			defer f.Close()
			r = f
		}
		p, err := jobgraph.ReadPlan(r, opts)
		if err != nil {
			return nil, usagef("--%splan %s: %v", j.prefix, redact.Quote(j.plan), err)
		}
		job.AddPlan(p)
	}
	for _, u := range j.uids {
		job.AddUID(u)
	}
	for _, u := range j.sinkUIDs {
		job.AddSinkUID(u)
	}
	for _, h := range j.uidHashes {
		var err error
		if uid, hash, ok := uidAndHash(h); ok {
			err = job.AddUIDWithHash(uid, hash)
		} else {
			err = job.AddUIDHash(h)
		}
		if err != nil {
			return nil, usagef("--%suid-hash: %v", j.prefix, err)
		}
	}
	for _, id := range j.ids {
		if err := job.AddOperatorID(id); err != nil {
			return nil, usagef("--%soperator-id: %v", j.prefix, err)
		}
	}
	if j.allUIDs {
		job.AllUIDs = true
	}
	return job, nil
}

// uidAndHash splits UID=HEX at its last "=" (a uid may hold one, a hash
// never does).
func uidAndHash(v string) (uid, hash string, ok bool) {
	i := strings.LastIndexByte(v, '=')
	if i < 0 {
		return "", "", false
	}
	return v[:i], v[i+1:], true
}

// runFlinkCompat implements "resumectl flink compat": exit 0 when the
// snapshot restores into the new job with all its state, 1 when state would
// be dropped (or the restore would fail its parallelism checks), 2 for
// usage errors and inputs that cannot be read.
func runFlinkCompat(e *env, args []string) error {
	fs := newFlags(e, "flink compat", subUsage("flink", flinkUsage, "compat"))
	asJSON := fs.Bool("json", false, "print JSON")
	var jf jobFlags
	jf.register(fs.FlagSet, "", e.stdin())
	timeout := addTimeout(fs, DefaultTimeout)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("flink compat: want exactly one snapshot, got %d (usage: resumectl flink %s)", len(pos), flinkCompatUsage)
	}
	if !jf.given() {
		return usagef("flink compat: name the new job's operators with --plan, --uid, --sink-uid, --uid-hash or --operator-id")
	}
	if err := jf.check(); err != nil {
		return err
	}
	// The deadline covers reading the plan too (--plan -: stdin).
	ctx, cancel := e.context(timeout.d)
	defer cancel()
	job, err := jf.job()
	if err != nil {
		return err
	}
	cp, display, err := readSnapshotMetadata(ctx, e, pos[0])
	if err != nil {
		return err // unreadable input: exit 1, as in every command
	}
	c := jobgraph.CheckCompat(cp, job)
	c.Snapshot = display
	if *asJSON {
		// jobgraph.Compat's own JSON: every field the text shows (the
		// maybe flag, unknown operators, problems, notes).
		if err := writeJSON(e.stdout, c); err != nil {
			return err
		}
	} else {
		writeCompat(e.stdout, c)
	}
	// The text's verdict and the JSON's "compatible" are c.Compatible.
	if !c.Compatible {
		return withExit(ExitIncompatible, nil)
	}
	return nil
}

func writeCompat(w io.Writer, c *jobgraph.Compat) {
	verdict := "compatible: every operator with state is restored"
	switch {
	case c.Compatible:
	case len(c.Dropped) > 0:
		verdict = fmt.Sprintf("NOT compatible: the state of %d operator(s) would be dropped (the restore fails without --allowNonRestoredState)", len(c.Dropped))
	case c.Restorable(false) && len(c.Unknown) > 0:
		verdict = fmt.Sprintf("NOT known to be compatible: %d operator(s) with state match no operator named (unknown: restored if they are uid-less operators the new job has unchanged, else the restore fails)", len(c.Unknown))
	default:
		verdict = "NOT compatible"
	}
	fmt.Fprintf(w, "%s\n  checkpoint %d, %d operators: %s\n", c.Snapshot, c.CheckpointID, len(c.Operators), verdict)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  OPERATOR\tMATCH\tSTATE\tUID\tNAME")
	for _, o := range c.Operators {
		state := "-"
		if o.HasState {
			state = "state"
		}
		match := string(o.Match)
		if o.Maybe {
			match += " (if created)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", o.ID, match, state, nameText(o.UID), nameText(o.Name))
	}
	tw.Flush()
	if len(c.Dropped) > 0 {
		fmt.Fprintf(w, "  dropped: %s\n", c.DroppedNames())
	}
	if len(c.Unknown) > 0 {
		fmt.Fprintf(w, "  unknown: %s\n", c.UnknownNames())
	}
	if len(c.NewWithoutState) > 0 {
		fmt.Fprintf(w, "  new job's operators without state: %s\n", strings.Join(c.NewWithoutState, ", "))
	}
	for _, p := range c.Problems {
		fmt.Fprintf(w, "  problem: %s\n", p.Text)
	}
	for _, n := range c.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// readSnapshotMetadata reads the _metadata of a snapshot dir (a path or
// URL; a trailing /_metadata is allowed) without verifying its files.
func readSnapshotMetadata(ctx context.Context, e *env, raw string) (*metadata.Checkpoint, string, error) {
	raw = snapshotDir(raw)
	loc, err := openLocationAt(ctx, e, raw, true)
	if err != nil {
		return nil, "", err
	}
	defer loc.Close(ctx)
	display := loc.Display
	key := loc.Prefix + "_metadata"
	r, err := loc.Bucket.NewReader(ctx, key, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, display, fmt.Errorf("flink compat %s: no _metadata: not a checkpoint or savepoint directory (or an incomplete one)", display)
	}
	if err != nil {
		return nil, display, fmt.Errorf("flink compat %s: read _metadata: %w", display, err)
	}
	defer r.Close()
	cp, err := metadata.Read(r, nil)
	if err != nil {
		return nil, display, fmt.Errorf("flink compat %s: %w", display, err)
	}
	return cp, display, nil
}
