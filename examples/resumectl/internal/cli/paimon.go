package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

const paimonUsage = `consumers URL [--branch B] [--json] [--timeout DUR]
       resumectl paimon snapshots URL [--around TIME] [--limit N] [--branch B] [--json] [--timeout DUR]
       resumectl paimon reset-consumer URL --consumer ID (--next-snapshot N | --at TIME) [--execute [--expect-previous N|none] [--force]] [--branch B] [--json] [--timeout DUR]`

// runPaimon implements "resumectl paimon consumers|snapshots|reset-consumer".
// reset-consumer is a dry run unless --execute is given: it checks
// everything (the id, that the snapshot exists) and prints what it would
// write and the equivalent CALL sys.reset_consumer(...).
func runPaimon(e *env, args []string) error {
	if len(args) == 0 {
		return usagef("paimon: want a subcommand: resumectl paimon %s", paimonUsage)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		return groupHelp(e, "paimon", paimonUsage)
	case "consumers":
		return paimonConsumers(e, args[1:])
	case "snapshots":
		return paimonSnapshots(e, args[1:])
	case "reset-consumer":
		return paimonReset(e, args[1:])
	}
	return usagef("paimon: unknown subcommand %s: resumectl paimon %s", redact.Quote(args[0]), paimonUsage)
}

// openPaimon opens the table at a resumectl URL. A local table is a
// localblob bucket confined to the table's directory.
func openPaimon(ctx context.Context, e *env, raw, branch string) (*paimon.Table, func(), error) {
	loc, err := openLocation(ctx, e, raw)
	if err != nil {
		return nil, nil, err
	}
	t, err := paimon.NewTable(loc.Bucket, loc.Prefix, &paimon.TableOptions{Branch: branch, Location: loc.Display, Wait: e.tableWait()})
	if err != nil {
		loc.Close(ctx)
		return nil, nil, usagef("%v", err) // the error names paimon
	}
	return t, func() { loc.Close(ctx) }, nil
}

func onePositional(cmd string, pos []string) (string, error) {
	switch len(pos) {
	case 0:
		return "", usagef("paimon %s: want the table URL", cmd)
	case 1:
		return pos[0], nil
	}
	return "", usagef("paimon %s: unexpected argument %s", cmd, redact.Quote(pos[1]))
}

type consumerJSON struct {
	ConsumerID     string `json:"consumer_id"`
	NextSnapshotID int64  `json:"next_snapshot_id,omitempty"`
	ModTime        string `json:"mod_time,omitempty"`
	Key            string `json:"key"`
	Error          string `json:"error,omitempty"`
}

func paimonConsumers(e *env, args []string) error {
	fs := newFlags(e, "paimon consumers", "URL [--branch B] [--json] [--timeout DUR]")
	branch := fs.String("branch", "", "the table's branch (default main)")
	asJSON := fs.Bool("json", false, "print JSON")
	timeout := addTimeout(fs, DefaultTimeout)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	raw, err := onePositional("consumers", pos)
	if err != nil {
		return err
	}
	ctx, cancel := e.context(timeout.d)
	defer cancel()
	t, closeFn, err := openPaimon(ctx, e, raw, *branch)
	if err != nil {
		return err
	}
	defer closeFn()
	cs, listErr := t.Consumers(ctx)
	if cs == nil && listErr != nil {
		return listErr
	}
	if *asJSON {
		out := struct {
			Table     string         `json:"table"`
			Branch    string         `json:"branch"`
			Consumers []consumerJSON `json:"consumers"`
		}{Table: t.String(), Branch: t.Branch(), Consumers: []consumerJSON{}}
		for _, c := range cs {
			cj := consumerJSON{ConsumerID: c.ID, NextSnapshotID: c.NextSnapshot, Key: c.Key}
			if c.Err != nil {
				cj.Error = oneLine(c.Err.Error())
			} else {
				cj.ModTime = c.ModTime.UTC().Format(time.RFC3339Nano)
			}
			out.Consumers = append(out.Consumers, cj)
		}
		if err := writeJSON(e.stdout, out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "table %s (%s)\n", t.String(), t.SQLName())
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "CONSUMER_ID\tNEXT_SNAPSHOT_ID\tMODIFIED")
		for _, c := range cs {
			if c.Err != nil {
				fmt.Fprintf(tw, "%s\t-\terror: %s\n", nameText(c.ID), oneLine(c.Err.Error()))
				continue
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\n", nameText(c.ID), c.NextSnapshot, c.ModTime.UTC().Format(time.RFC3339))
		}
		tw.Flush()
		if len(cs) == 0 {
			fmt.Fprintln(e.stdout, "(no consumers)")
		}
	}
	if listErr != nil {
		return withExit(ExitFailed, listErr)
	}
	return nil
}

type snapshotsJSON struct {
	Table          string             `json:"table"`
	Branch         string             `json:"branch"`
	Earliest       int64              `json:"earliest"`
	Latest         int64              `json:"latest"`
	Around         string             `json:"around,omitempty"`
	StreamingStart int64              `json:"streaming_start,omitempty"`
	EarlierOrEqual *int64             `json:"earlier_or_equal,omitempty"`
	LaterOrEqual   *int64             `json:"later_or_equal,omitempty"`
	Snapshots      []*paimon.Snapshot `json:"snapshots"`
}

func paimonSnapshots(e *env, args []string) error {
	fs := newFlags(e, "paimon snapshots", "URL [--around TIME] [--limit N] [--branch B] [--json] [--timeout DUR]")
	var around timeFlag
	fs.Var(&around, "around", "show the snapshots around `TIME` and where a read from it starts (RFC 3339, \"2006-01-02 15:04:05\" UTC, unix ms, or -15m)")
	limit := fs.Int("limit", 20, "show at most `N` snapshots")
	branch := fs.String("branch", "", "the table's branch (default main)")
	asJSON := fs.Bool("json", false, "print JSON")
	timeout := addTimeout(fs, DefaultTimeout)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	raw, err := onePositional("snapshots", pos)
	if err != nil {
		return err
	}
	if *limit < 1 {
		return usagef("paimon snapshots: --limit must be at least 1")
	}
	ctx, cancel := e.context(timeout.d)
	defer cancel()
	t, closeFn, err := openPaimon(ctx, e, raw, *branch)
	if err != nil {
		return err
	}
	defer closeFn()
	earliest, err := t.EarliestSnapshotID(ctx)
	if err != nil {
		return err
	}
	latest, err := t.LatestSnapshotID(ctx)
	if err != nil {
		return err
	}
	out := snapshotsJSON{Table: t.String(), Branch: t.Branch(), Earliest: earliest, Latest: latest, Snapshots: []*paimon.Snapshot{}}
	lo, hi := max(earliest, latest-int64(*limit)+1), latest
	if around.set {
		out.Around = around.t.UTC().Format(time.RFC3339Nano)
		st, err := t.StreamingStartAt(ctx, around.t)
		if err != nil {
			return err
		}
		out.StreamingStart = st.Next
		if le, err := t.EarlierOrEqual(ctx, around.t); err == nil {
			out.EarlierOrEqual = &le.ID
		} else if !errors.Is(err, paimon.ErrSnapshotNotFound) {
			return err
		}
		if ge, err := t.LaterOrEqual(ctx, around.t); err == nil {
			out.LaterOrEqual = &ge.ID
		} else if !errors.Is(err, paimon.ErrSnapshotNotFound) {
			return err
		}
		half := int64(*limit) / 2
		lo = max(earliest, st.Next-half)
		hi = min(latest, lo+int64(*limit)-1)
		lo = max(earliest, min(lo, hi-int64(*limit)+1))
	}
	var readErrs []error
	// Counted, not compared against hi: no id near the int64 limit can make
	// this loop wrap (the table refuses ids above 2^62 anyway).
	for n := int64(0); lo >= 0 && n <= hi-lo && n < int64(*limit); n++ {
		id := lo + n
		s, err := t.Snapshot(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			readErrs = append(readErrs, err)
			continue
		}
		out.Snapshots = append(out.Snapshots, s)
	}
	if *asJSON {
		if err := writeJSON(e.stdout, out); err != nil {
			return err
		}
	} else {
		writeSnapshots(e.stdout, t, out)
		for _, err := range readErrs {
			fmt.Fprintf(e.stdout, "error: %s\n", oneLine(err.Error()))
		}
	}
	if len(readErrs) > 0 {
		return withExit(ExitFailed, errors.Join(readErrs...))
	}
	return nil
}

func writeSnapshots(w io.Writer, t *paimon.Table, out snapshotsJSON) {
	fmt.Fprintf(w, "table %s (%s): snapshots %d..%d\n", t.String(), t.SQLName(), out.Earliest, out.Latest)
	if out.Around != "" {
		fmt.Fprintf(w, "around %s: a streaming read (scan.timestamp-millis) starts at snapshot %d", out.Around, out.StreamingStart)
		if out.StreamingStart > out.Latest {
			fmt.Fprint(w, " (the next commit)")
		}
		fmt.Fprintf(w, "; earlier-or-equal %s, later-or-equal %s\n", idOrNone(out.EarlierOrEqual), idOrNone(out.LaterOrEqual))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCOMMITTED\tKIND\tSCHEMA\tRECORDS\t")
	for _, s := range out.Snapshots {
		mark := ""
		if out.Around != "" && s.ID == out.StreamingStart {
			mark = "<- start"
		}
		recs := "-"
		if s.TotalRecordCount != nil {
			recs = fmt.Sprint(*s.TotalRecordCount)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\n", s.ID, s.Time.Format("2006-01-02T15:04:05.000Z07:00"), s.CommitKind, s.SchemaID, recs, mark)
	}
	tw.Flush()
}

func idOrNone(p *int64) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}

func paimonReset(e *env, args []string) error {
	const usage = "URL --consumer ID (--next-snapshot N | --at TIME) [--execute [--expect-previous N|none] [--force]] [--branch B] [--json] [--timeout DUR]"
	fs := newFlags(e, "paimon reset-consumer", usage)
	var at timeFlag
	consumer := fs.String("consumer", "", "the consumer `ID` (the job's consumer-id)")
	next := fs.Int64("next-snapshot", 0, "the snapshot `N` the consumer reads next (must exist)")
	fs.Var(&at, "at", "bind to the snapshot a streaming read from `TIME` starts at (RFC 3339, \"2006-01-02 15:04:05\" UTC, unix ms, or -15m)")
	execute := fs.Bool("execute", false, "write the consumer file (without it: dry run)")
	var expect expectFlag
	fs.Var(&expect, "expect-previous", "with --execute: the consumer's current nextSnapshot `N` as the dry run printed it (none: no consumer file); refuse if it moved")
	force := fs.Bool("force", false, "with --execute: write even if the consumer file changed within the last minute or changes while watched (a running job would undo the reset)")
	branch := fs.String("branch", "", "the table's branch (default main)")
	asJSON := fs.Bool("json", false, "print JSON")
	timeout := addTimeout(fs, DefaultTimeout)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	raw, err := onePositional("reset-consumer", pos)
	if err != nil {
		return err
	}
	nextSet := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "next-snapshot" {
			nextSet = true
		}
	})
	switch {
	case *consumer == "":
		return usagef("paimon reset-consumer: --consumer is required")
	case nextSet == at.set:
		return usagef("paimon reset-consumer: give exactly one of --next-snapshot and --at")
	case nextSet && (*next <= 0 || *next > paimon.MaxID):
		return usagef("paimon reset-consumer: --next-snapshot %d: want a snapshot id (1 to 2^62)", *next)
	case !*execute && (expect.set || *force):
		return usagef("paimon reset-consumer: --expect-previous and --force apply to --execute only")
	}
	if err := paimon.ValidateID("consumer", *consumer); err != nil {
		return usagef("paimon reset-consumer: %v", err)
	}
	ctx, cancel := e.context(timeout.d)
	defer cancel()
	t, closeFn, err := openPaimon(ctx, e, raw, *branch)
	if err != nil {
		return err
	}
	defer closeFn()
	var note string
	if at.set {
		st, err := t.StreamingStartAt(ctx, at.t)
		if err != nil {
			return err
		}
		if st.Next > st.Latest {
			return fmt.Errorf("paimon reset-consumer: every snapshot is older than %s (latest is %d): nothing to bind yet; a job with this consumer-id and no consumer file starts at the next commit", at.t.UTC().Format(time.RFC3339), st.Latest)
		}
		*next = st.Next
		if st.Before != nil {
			note = fmt.Sprintf("snapshot %d is the first committed at or after %s (snapshot %d was committed at %s)", st.Next, at.t.UTC().Format(time.RFC3339Nano), st.Before.ID, st.Before.Time.Format(time.RFC3339Nano))
		} else {
			note = fmt.Sprintf("every retained snapshot is at or after %s: the earliest, %d", at.t.UTC().Format(time.RFC3339Nano), st.Next)
			if st.Earliest.ID > 1 {
				note += fmt.Sprintf(" (snapshots 1..%d expired: records committed after the time in them are lost)", st.Earliest.ID-1)
			}
		}
	}
	var plan *paimon.ResetPlan
	if *execute {
		ro := &paimon.ResetOptions{Force: *force, ExpectAbsent: expect.set && expect.none}
		if expect.set && !expect.none {
			ro.ExpectPrevious = &expect.n
		}
		plan, err = t.ResetConsumer(ctx, *consumer, *next, ro)
		if plan != nil && plan.Written && err != nil {
			// Written, but the snapshot expired meanwhile: say what was
			// written, then fail.
			fmt.Fprintf(e.stdout, "wrote %s: nextSnapshot %d\n", plan.Key, plan.NextSnapshot)
			return withExit(ExitFailed, err)
		}
	} else {
		plan, err = t.PlanResetConsumer(ctx, *consumer, *next)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, struct {
			*paimon.ResetPlan
			DryRun bool   `json:"dry_run"`
			Note   string `json:"note,omitempty"`
		}{plan, !*execute, note})
	}
	if note != "" {
		fmt.Fprintln(e.stdout, note)
	}
	prev := "none (the consumer is new)"
	if plan.Previous != nil {
		prev = fmt.Sprint(*plan.Previous)
	}
	verb := "would write"
	if *execute {
		verb = "wrote"
	}
	fmt.Fprintf(e.stdout, "consumer %s of %s: nextSnapshot %s -> %d (snapshot %d committed at %s)\n", plan.ConsumerID, t.SQLName(), prev, plan.NextSnapshot, plan.NextSnapshot, plan.Snapshot.Time.Format(time.RFC3339Nano))
	fmt.Fprintf(e.stdout, "%s %s:\n%s\n", verb, plan.Key, indent(plan.Content))
	fmt.Fprintf(e.stdout, "same as: %s\n", plan.SQL)
	// scan.snapshot-id is a free fallback: the consumer file wins while it
	// exists, and the option starts the job at the same snapshot if expiry
	// deletes the consumer first.
	fmt.Fprintf(e.stdout, "start the job with: /*+ OPTIONS(%s) */\n", resume.HintOptions(map[string]string{
		"consumer-id": plan.ConsumerID, paimon.OptScanSnapshotID: fmt.Sprint(plan.NextSnapshot)}))
	for _, w := range plan.Warnings {
		fmt.Fprintf(e.stdout, "warning: %s [%s]\n", oneLine(w.Text), w.Code)
	}
	if !*execute {
		expectArg := "none"
		if plan.Previous != nil {
			expectArg = fmt.Sprint(*plan.Previous)
		}
		fmt.Fprintf(e.stdout, "dry run: nothing written; run again with --execute --expect-previous %s to write (refused if the consumer moves meanwhile)\n", expectArg)
	}
	return nil
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

// expectFlag is --expect-previous: a snapshot id, or "none" for no consumer
// file.
type expectFlag struct {
	set, none bool
	n         int64
}

func (f *expectFlag) String() string {
	switch {
	case f == nil || !f.set:
		return ""
	case f.none:
		return "none"
	}
	return strconv.FormatInt(f.n, 10)
}

func (f *expectFlag) Set(s string) error {
	if s == "none" {
		f.set, f.none = true, true
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > paimon.MaxID {
		return fmt.Errorf("want a snapshot id (1 to 2^62) or none, got %s", redact.Quote(s))
	}
	f.set, f.none, f.n = true, false, n
	return nil
}
