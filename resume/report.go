package resume

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Fact is one labelled line a position adds to the text report beside its
// launch: "sql" (a ready SQL hint), "bind" (a statement to run first),
// "loss" (what a start there never reads: "orders/1: 2 records (offsets
// 52..53)").
type Fact struct {
	Label string
	Text  string
}

// FactLoss is the label of a fact saying what a start never reads.
const FactLoss = "loss"

// Facter is an optional interface of a [Position]: the facts the report
// ([Decision.Explain]) prints beside its launch. paimon, kafkaoffset and
// salvage positions implement it; a position read back from a document
// ([RawPosition]) does not, and its report shows the launch only.
type Facter interface {
	Facts() []Fact
}

// SourceTabler is an optional interface of a [Position]: the source table
// (or topic) whose SQL hint its launch options belong to. [Positions] names
// each part's options by it in [Launch.Sources].
type SourceTabler interface {
	SourceTable() string
}

// ReportWidth is the width the report wraps reasons and warnings at; a
// word longer than the line (a path) is never cut.
const ReportWidth = 100

// Explain returns the report a person reads, as resumectl prints it: the
// choice, its guarantee and input time, what to run (the flink run line,
// the SQL hint options of each source table, the position's facts), its
// reasons and warnings; then, under OTHERS, every other resolver once with
// its verdict and why, the loss of a rejected candidate that would lose
// input, and, when nothing was chosen, what each rejected candidate
// offered. Long reasons are wrapped at [ReportWidth] under their label.
func (d *Decision) Explain() string { return d.ExplainWidth(ReportWidth) }

// ExplainWidth returns the report of [Decision.Explain] with reasons and
// warnings wrapped at width columns; width 0 (or less) wraps nothing, one
// fact per line, for logs and grep.
func (d *Decision) ExplainWidth(width int) string {
	b := &report{width: width}
	if c := d.Chosen; c != nil {
		fmt.Fprintf(b, "CHOSEN  %s: %s\n", c.Resolver, positionSummary(c.Position))
		fmt.Fprintf(b, "        %s, %s\n", c.Guarantee, atText(c.At))
		if !c.ValidUntil.IsZero() {
			// When the first input position may leave retention (the
			// reason naming the source and the rule is among the whys).
			assumed := ""
			if c.ValidUntilAssumed {
				assumed = " (assumed: nothing answered for it)"
			}
			fmt.Fprintf(b, "        valid until: %s%s\n", c.ValidUntil.UTC().Format(time.RFC3339), assumed)
		}
		writeRun(b, c.Position)
		for _, f := range facts(c.Position) {
			writeLine(b, "  ", f.Label, f.Text)
		}
		for _, r := range c.Reasons {
			writeLine(b, "  ", "why", r)
		}
		for _, x := range c.Warnings {
			writeLine(b, "  ", "warning", x.Text+" ["+string(x.Code)+"]")
		}
	} else {
		b.WriteString("CHOSEN  nothing acceptable\n")
	}
	var others []Outcome
	nameWidth := 0
	for _, o := range d.Considered {
		if o.Verdict != VerdictChosen {
			others = append(others, o)
			nameWidth = max(nameWidth, len(o.Resolver))
		}
	}
	if len(others) == 0 {
		writeRecord(b, d.Record)
		return b.b.String()
	}
	b.WriteString("OTHERS\n")
	pad := "  " + strings.Repeat(" ", nameWidth) + "  "
	for _, o := range others {
		g := ""
		if o.Candidate != nil {
			g = " (" + o.Candidate.Guarantee.String() + ")"
		}
		if o.StateLost() {
			// Not "nothing there": the state was found and is lost.
			wrap(b, fmt.Sprintf("  %-*s  state lost (%s, exit 4): ", nameWidth, o.Resolver, o.Verdict), pad+"  ", o.why())
			continue
		}
		wrap(b, fmt.Sprintf("  %-*s  %s%s: ", nameWidth, o.Resolver, o.Verdict, g), pad+"  ", o.why())
		c := o.Candidate
		if c == nil {
			continue
		}
		if d.Chosen == nil {
			// Nothing was chosen: show what the rejected offer would have
			// meant, so that a person can decide whether to accept it.
			wrap(b, pad+"offered ", pad+"  ", positionSummary(c.Position))
		}
		for _, f := range facts(c.Position) {
			if f.Label == FactLoss || d.Chosen == nil {
				wrap(b, pad+f.Label+": ", pad+"  ", f.Text)
			}
		}
		if d.Chosen == nil {
			for _, r := range c.Reasons {
				wrap(b, pad+"why: ", pad+"  ", r)
			}
		}
	}
	writeRecord(b, d.Record)
	return b.b.String()
}

// writeLine writes "  label:   text", the text starting in column 11 and
// wrapped under itself.
func writeLine(b *report, indent, label, text string) {
	head := fmt.Sprintf("%s%-9s", indent, label+":")
	if len(label) >= 8 {
		head = indent + label + ": "
	}
	wrap(b, head, strings.Repeat(" ", len(head)), text)
}

// report is a report being written, and the width it wraps at.
type report struct {
	b     strings.Builder
	width int
}

func (r *report) WriteString(s string)   { r.b.WriteString(s) }
func (r *report) WriteByte(c byte) error { return r.b.WriteByte(c) }
func (r *report) Write(p []byte) (int, error) {
	return r.b.Write(p)
}

// wrap writes text after head, folded into lines of at most b.width
// columns at spaces, continuation lines starting with cont; a word longer
// than a line stays whole.
func wrap(b *report, head, cont, text string) {
	words := strings.Fields(oneLine(text))
	b.WriteString(head)
	col := utf8.RuneCountInString(head)
	start := col
	for i, w := range words {
		n := utf8.RuneCountInString(w)
		if i > 0 {
			if b.width > 0 && col+1+n > b.width && col > start {
				b.WriteString("\n")
				b.WriteString(cont)
				col = utf8.RuneCountInString(cont)
				start = col
			} else {
				b.WriteByte(' ')
				col++
			}
		}
		b.WriteString(w)
		col += n
	}
	b.WriteString("\n")
}

// writeRun writes what to run for a position: the flink run line with its
// -D keys, the SQL hint options of each source table; for combined
// positions ([Positions]), each part's under its resolver's name. Command
// lines are never wrapped: they are copied whole.
func writeRun(b *report, p Position) {
	if p == nil {
		return
	}
	if all, err := PositionAs[Positions](p, KindAll); err == nil {
		for _, part := range all.Parts {
			table := ""
			if t := sourceTable(part.Position); t != "" {
				table = " (" + t + ")"
			}
			fmt.Fprintf(b, "  %s%s:\n", part.Resolver, table)
			writeRun(b, part.Position)
			for _, f := range facts(part.Position) {
				writeLine(b, "  ", f.Label, f.Text)
			}
		}
		return
	}
	l := p.Launch()
	if len(l.Args) > 0 {
		fmt.Fprintf(b, "  run:     %s\n", RunLine(l))
	} else {
		for _, k := range slices.Sorted(maps.Keys(l.Config)) {
			fmt.Fprintf(b, "  config:  -D%s=%s\n", k, l.Config[k])
		}
	}
	if hasFact(p, "sql") {
		return // the position's own hint says it better (Paimon)
	}
	switch {
	case len(l.Sources) > 0:
		for _, so := range l.Sources {
			fmt.Fprintf(b, "  options for %s: %s\n", so.Table, HintOptions(so.Options))
		}
	case len(l.Options) > 0:
		fmt.Fprintf(b, "  options: %s\n", HintOptions(l.Options))
	}
}

// facts returns the position's facts, none when it has no Facts method or
// the method panics.
func facts(p Position) (out []Fact) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	if f, ok := p.(Facter); ok {
		return f.Facts()
	}
	return nil
}

func hasFact(p Position, label string) bool {
	for _, f := range facts(p) {
		if f.Label == label {
			return true
		}
	}
	return false
}

// sourceTable returns the position's source table, "" when it names none.
func sourceTable(p Position) (t string) {
	defer func() {
		if recover() != nil {
			t = ""
		}
	}()
	if s, ok := p.(SourceTabler); ok {
		return s.SourceTable()
	}
	return ""
}

func atText(t time.Time) string {
	if t.IsZero() {
		return "time unknown"
	}
	return "input position at " + t.UTC().Format(time.RFC3339)
}
