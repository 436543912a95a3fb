package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
)

// writeReport prints the short text report of a decision: the choice, what
// to run, its reasons and warnings, then one line per other resolver saying
// why it lost.
func writeReport(w io.Writer, d *resume.Decision) {
	if c := d.Chosen; c != nil {
		fmt.Fprintf(w, "CHOSEN  %s: %s\n", c.Resolver, oneLine(c.Position.String()))
		at := "time unknown"
		if !c.At.IsZero() {
			at = "input position at " + c.At.UTC().Format("2006-01-02T15:04:05Z07:00")
		}
		fmt.Fprintf(w, "        %s, %s\n", c.Guarantee, at)
		writeRun(w, c.Position)
		for _, r := range c.Reasons {
			fmt.Fprintf(w, "  why:     %s\n", oneLine(r))
		}
		for _, x := range c.Warnings {
			fmt.Fprintf(w, "  warning: %s [%s]\n", oneLine(x.Text), x.Code)
		}
	} else {
		fmt.Fprintln(w, "CHOSEN  nothing acceptable")
	}
	var others []resume.Outcome
	for _, o := range d.Considered {
		if o.Verdict != resume.VerdictChosen {
			others = append(others, o)
		}
	}
	if len(others) == 0 {
		return
	}
	fmt.Fprintln(w, "OTHERS")
	width := 0
	for _, o := range others {
		width = max(width, len(o.Resolver))
	}
	for _, o := range others {
		why := o.Why
		if o.Err != nil && why == "" {
			why = o.Err.Error()
		}
		g := ""
		if o.Candidate != nil {
			g = " (" + o.Candidate.Guarantee.String() + ")"
		}
		fmt.Fprintf(w, "  %-*s  %s%s: %s\n", width, o.Resolver, o.Verdict, g, oneLine(why))
		if d.Chosen == nil && o.Candidate != nil {
			// Nothing was chosen: show what the rejected offer would have
			// meant, so that a person can decide whether to accept it.
			fmt.Fprintf(w, "  %-*s  offered %s\n", width, "", oneLine(o.Candidate.Position.String()))
			for _, r := range o.Candidate.Reasons {
				fmt.Fprintf(w, "  %-*s  why: %s\n", width, "", oneLine(r))
			}
		}
	}
}

// writeRun prints what to run for a position: the flink run line with its -D
// keys, SQL hint options, and for Paimon the reset_consumer call; for combined
// positions, each part's.
func writeRun(w io.Writer, p resume.Position) {
	if all, err := resume.PositionAs[resume.Positions](p, resume.KindAll); err == nil {
		for _, part := range all.Parts {
			fmt.Fprintf(w, "  %s:\n", part.Resolver)
			writeRun(w, part.Position)
		}
		return
	}
	l := p.Launch()
	if len(l.Args) > 0 {
		line := "flink run " + strings.Join(l.Args, " ")
		for _, k := range slices.Sorted(maps.Keys(l.Config)) {
			line += " -D" + k + "=" + l.Config[k]
		}
		fmt.Fprintf(w, "  run:     %s\n", line)
	} else if len(l.Config) > 0 {
		for _, k := range slices.Sorted(maps.Keys(l.Config)) {
			fmt.Fprintf(w, "  config:  -D%s=%s\n", k, l.Config[k])
		}
	}
	if pp, err := paimon.PositionOf(p); err == nil {
		if pp.SQLHint != "" {
			fmt.Fprintf(w, "  sql:     %s\n", pp.SQLHint)
		}
		if pp.ResetConsumerSQL != "" {
			fmt.Fprintf(w, "  bind:    %s\n", pp.ResetConsumerSQL)
		}
		return
	}
	if len(l.Options) > 0 {
		fmt.Fprintf(w, "  options: %s\n", resume.HintOptions(l.Options))
	}
}

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
