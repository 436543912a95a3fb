// Package timeline draws a resumekit.decision/v1 document as one
// self-contained HTML page: every candidate of the decision on one time
// axis (Flink checkpoints and savepoints per location with their state,
// Paimon and Kafka starts, each candidate's valid-until when recorded), the
// chosen one marked, each rejected one with its reason on hover; below it
// each Paimon consumer against the table's earliest and latest snapshot and
// each Kafka partition's start against its log start and end; then tables
// of every fact drawn, which are all a text browser shows.
//
// The page has inline CSS and SVG only: no script, no font, no image, and a
// Content-Security-Policy that forbids loading anything, so it works
// offline and cannot call home. Every string from storage or the document
// is escaped by html/template.
package timeline

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
)

//go:embed timeline.html.tmpl
var pageText string

// pageTmpl is parsed when first used, not at process start: every resumectl
// command links this package.
var pageTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("timeline").Funcs(template.FuncMap{
		"f":   func(v float64) string { return fmt.Sprintf("%.1f", v) },
		"sub": func(a, b float64) float64 { return max(0, a-b) },
	}).Parse(pageText))
})

// Render writes the timeline page of doc, a resumekit.decision/v1 document
// (what resumectl resolve --json prints). A document that does not decode
// is an error naming the problem; nothing is written then.
func Render(w io.Writer, doc []byte) error {
	var d resume.Decision
	if err := json.Unmarshal(doc, &d); err != nil {
		return err
	}
	var extra docExtra
	if err := json.Unmarshal(doc, &extra); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	if len(extra.Considered) != len(d.Considered) {
		return errors.New("timeline: decision document: outcomes do not match")
	}
	p := build(&d, &extra)
	var buf bytes.Buffer
	if err := pageTmpl().Execute(&buf, p); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// RenderDecision writes the timeline page of d, as Render does with its
// document.
func RenderDecision(w io.Writer, d *resume.Decision) error {
	doc, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return Render(w, doc)
}

// docExtra reads the fields of the document that resume.Decision may not
// carry (newer resumekit versions add them): each candidate's valid_until.
type docExtra struct {
	Chosen     *candExtra `json:"chosen"`
	Considered []struct {
		Candidate *candExtra `json:"candidate"`
	} `json:"considered"`
}

type candExtra struct {
	ValidUntil string `json:"valid_until"`
}

func (c *candExtra) validUntil() time.Time {
	if c == nil || c.ValidUntil == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, c.ValidUntil)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// The page's geometry (SVG user units).
const (
	svgWidth   = 1100.0
	labelWidth = 250.0
	gutter     = 90.0 // the "time unknown" column at the right
	rowHeight  = 46.0
	axisTop    = 34.0
)

type page struct {
	DecidedAt, Version, Policy string
	Chosen                     *chosenView
	Nothing                    string // when nothing was chosen: why, in one line
	Axis                       axisView
	Sources                    []sourceView
	Outcomes                   []outcomeRow
	Snapshots                  []snapshotRow
	Records                    []recordRow
}

// recordRow is one record of the decision's record section: what Flink or
// the operator will restore, beside what storage says of it.
type recordRow struct {
	Kind, Source, Says, Storage, At, Class string
	Warnings                               []string
}

type chosenView struct {
	Resolver, Summary, Guarantee, At, ValidUntil string
	Launch                                       []string
	Warnings                                     []string
}

type axisView struct {
	Height             float64
	X0, X1, NowX       float64 // the time area and "now"
	GutterX            float64
	GutterLineX        float64
	HasGutter          bool
	Ticks              []tick
	Rows               []rowView
	Lines              []vline
	AxisY, BottomY     float64
	MaxAgeX            float64
	HasMaxAge          bool
	MaxAgeLabel        string
	Scale, GutterLabel string
}

type tick struct {
	X            float64
	Label, Clock string
}

type rowView struct {
	Y, MidY      float64
	Label, Sub   string
	Marks        []mark
	Note         string
	NoteClass    string
	Stripe       bool
	ValidUntilX  float64
	HasValidTill bool
	ValidTitle   string
}

type mark struct {
	X, Y         float64
	Class, Shape string
	Title        string
	Label        string
	LabelY       float64
	Chosen       bool
	ID           string
	// TrueX is where its time is; X differs when close marks were spread.
	TrueX float64
	Moved bool
}

type vline struct {
	X          float64
	Class      string
	Label      string
	LabelX     float64
	LabelAnchr string
}

type sourceView struct {
	Title, Sub, Class string
	Bars              []barView
	Height            float64
}

type barView struct {
	Y, TextY        float64
	Label           string
	X0, X1          float64 // the retained range (log start..end, earliest..latest)
	Lo, Hi          string  // their labels
	Marks           []barMark
	Note, NoteClass string
}

type barMark struct {
	X, Y, LabelY float64
	Class, Label string
	Title        string
	Shape        string
}

type outcomeRow struct {
	Resolver, Verdict, VerdictClass, Guarantee, At, ValidUntil, Summary, Why string
	Warnings                                                                 []string
}

type snapshotRow struct {
	Resolver, Location, Name, Outcome, OutcomeClass, At, Why string
}

// point is something drawn on the time axis.
type point struct {
	t    time.Time // zero: time unknown (the gutter)
	m    mark
	row  int
	xset bool
}

func build(d *resume.Decision, ex *docExtra) *page {
	p := &page{Version: d.Version}
	now := d.DecidedAt
	if !now.IsZero() {
		p.DecidedAt = now.Format(time.RFC3339)
	}
	if pol := d.Policy; pol.MinGuarantee.Valid() {
		s := "minimum guarantee " + pol.MinGuarantee.String()
		if pol.MaxAge > 0 {
			s += ", max age " + pol.MaxAge.String()
		}
		s += ", on failure " + pol.OnFailure.String()
		p.Policy = s
	}
	if c := d.Chosen; c != nil {
		cv := &chosenView{Resolver: c.Resolver, Summary: c.Position.String(), Guarantee: c.Guarantee.String(), At: fmtTime(c.At)}
		cv.ValidUntil = fmtTime(ex.Chosen.validUntil())
		l := c.Position.Launch()
		if len(l.Args) > 0 {
			cv.Launch = append(cv.Launch, resume.RunLine(l)) // every word shell-quoted
		}
		if len(l.Options) > 0 {
			cv.Launch = append(cv.Launch, "/*+ OPTIONS("+resume.HintOptions(l.Options)+") */")
		}
		for _, w := range c.Warnings {
			cv.Warnings = append(cv.Warnings, w.Text+" ["+string(w.Code)+"]")
		}
		p.Chosen = cv
	} else {
		p.Nothing = "nothing acceptable"
	}

	var rows []rowView
	var pts []point
	addRow := func(label, sub string) int {
		rows = append(rows, rowView{Label: label, Sub: sub})
		return len(rows) - 1
	}
	for i, o := range d.Considered {
		var vu time.Time
		if i < len(ex.Considered) {
			vu = ex.Considered[i].Candidate.validUntil()
		}
		or := outcomeRow{Resolver: o.Resolver, Verdict: o.Verdict.String(), VerdictClass: o.Verdict.String(), Why: whyOf(o), ValidUntil: fmtTime(vu)}
		c := o.Candidate
		if c != nil {
			or.Guarantee, or.At, or.Summary = c.Guarantee.String(), fmtTime(c.At), c.Position.String()
			for _, w := range c.Warnings {
				or.Warnings = append(or.Warnings, string(w.Code))
			}
		}
		p.Outcomes = append(p.Outcomes, or)
		chosen := o.Verdict == resume.VerdictChosen
		verdictClass := o.Verdict.String()
		if o.StateLost() {
			// The state was found and is lost (exit 4): the loss colour,
			// never the grey of "nothing there".
			verdictClass = "failed"
			if p.Chosen == nil {
				p.Nothing = "nothing: the job's state was found and is lost (exit 4)"
			}
			p.Outcomes[len(p.Outcomes)-1].Verdict = "state lost (" + o.Verdict.String() + ")"
			p.Outcomes[len(p.Outcomes)-1].VerdictClass = verdictClass
		}
		if c == nil {
			label := o.Verdict.String()
			if o.StateLost() {
				label = "state lost"
			}
			r := addRow(o.Resolver, label)
			rows[r].Note = label + ": " + or.Why
			rows[r].NoteClass = verdictClass
			continue
		}
		title := fmt.Sprintf("%s — %s, %s, at %s", c.Position.String(), o.Verdict, c.Guarantee, fmtTime(c.At))
		if o.Why != "" {
			title += "\n" + o.Why
		}
		switch c.Position.Kind() {
		case flinkckpt.KindCheckpoint, flinkckpt.KindSavepoint:
			fp, err := flinkckpt.PositionOf(c.Position)
			if err != nil {
				break
			}
			// One row per location, in location order, named by what it holds.
			kinds := map[int][2]bool{}
			note := func(loc int, sp bool) {
				k := kinds[loc]
				if sp {
					k[1] = true
				} else {
					k[0] = true
				}
				kinds[loc] = k
			}
			note(fp.Location, fp.Savepoint)
			for _, s := range fp.Considered {
				note(s.Location, s.Savepoint)
			}
			var locs []int
			for l := range kinds {
				locs = append(locs, l)
			}
			sort.Ints(locs)
			locRows := map[int]int{}
			for _, l := range locs {
				sub := "checkpoints"
				switch k := kinds[l]; {
				case k[0] && k[1]:
					sub = "checkpoints and savepoints"
				case k[1]:
					sub = "savepoints"
				}
				locRows[l] = addRow(o.Resolver, fmt.Sprintf("location %d · %s", l, sub))
			}
			rowOf := func(loc int, _ bool) int { return locRows[loc] }
			r := rowOf(fp.Location, fp.Savepoint)
			pts = append(pts, point{t: c.At, row: r, m: mark{Class: verdictClass, Shape: "circle", Chosen: chosen, Title: title, Label: shortName(c.Position.String())}})
			for _, s := range fp.Considered {
				t := fmt.Sprintf("%s — %s, at %s\n%s", s.Name, s.Outcome, fmtTime(s.At), s.Why)
				pts = append(pts, point{t: s.At, row: rowOf(s.Location, s.Savepoint), m: mark{Class: s.Outcome, Shape: snapShape(s.Outcome), Title: t, Label: shortName(s.Name)}})
				p.Snapshots = append(p.Snapshots, snapshotRow{Resolver: o.Resolver, Location: fmt.Sprint(s.Location), Name: s.Name, Outcome: s.Outcome,
					OutcomeClass: s.Outcome, At: fmtTime(s.At), Why: s.Why})
			}
			p.Snapshots = append(p.Snapshots, snapshotRow{Resolver: o.Resolver, Location: fmt.Sprint(fp.Location), Name: c.Position.String(),
				Outcome: "offered: " + o.Verdict.String(), OutcomeClass: verdictClass, At: fmtTime(c.At), Why: whyOf(o)})
			if !vu.IsZero() {
				rows[r].HasValidTill = true
				pts = append(pts, point{t: vu, row: r, m: mark{Class: "valid-until", Shape: "bar", Title: c.Position.String() + ": valid until " + fmtTime(vu)}})
			}
			continue
		default:
			p.Sources = append(p.Sources, sourcesOf(o, c)...)
		}
		r := addRow(o.Resolver, c.Position.Kind())
		pts = append(pts, point{t: c.At, row: r, m: mark{Class: verdictClass, Shape: "circle", Chosen: chosen, Title: title, Label: markLabel(c)}})
		if !vu.IsZero() {
			pts = append(pts, point{t: vu, row: r, m: mark{Class: "valid-until", Shape: "bar", Title: c.Position.String() + ": valid until " + fmtTime(vu)}})
		}
	}
	// The record: each source on its own row, its snapshot a diamond beside
	// storage's marks.
	if d.Record != nil {
		for _, rs := range d.Record.Sources {
			rr := recordRow{Kind: string(rs.Kind), Source: rs.Source, Says: rs.Says, Storage: rs.Storage, At: fmtTime(rs.At), Class: recordClass(rs)}
			if rs.Err != nil {
				rr.Says = "unreadable: " + rs.Err.Error()
			}
			for _, w := range rs.Warnings {
				rr.Warnings = append(rr.Warnings, w.Text+" ["+string(w.Code)+"]")
			}
			p.Records = append(p.Records, rr)
			r := addRow("record", string(rs.Kind))
			if rs.Err != nil || (rs.CheckpointID == 0 && rs.Path == "") {
				rows[r].Note, rows[r].NoteClass = oneLine(rr.Says), rr.Class
				continue
			}
			title := "record " + string(rs.Kind) + ": " + rs.Says
			if rs.Storage != "" {
				title += "\nstorage: " + rs.Storage
			}
			for _, w := range rr.Warnings {
				title += "\nwarning: " + w
			}
			label := fmt.Sprintf("record: %d", rs.CheckpointID)
			if rs.CheckpointID == 0 {
				label = "record: " + shortName(rs.Path)
			}
			pts = append(pts, point{t: rs.At, row: r, m: mark{Class: rr.Class, Shape: "diamond", Title: title, Label: label}})
		}
	}
	p.Axis = layoutAxis(now, d.Policy.MaxAge, rows, pts)
	return p
}

// recordClass colours a record: broken or gone red, agreeing with the
// choice green, any other disagreement purple, unreadable grey.
func recordClass(rs resume.RecordSource) string {
	if rs.Err != nil {
		return "rejected"
	}
	cls := "chosen"
	for _, w := range rs.Warnings {
		switch w.Code {
		case "record.broken", "record.gone":
			return "broken"
		case "record.finished-cleanly":
		default:
			cls = "unverified"
		}
	}
	return cls
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func whyOf(o resume.Outcome) string {
	if o.Why != "" {
		return o.Why
	}
	if o.Err != nil {
		return o.Err.Error()
	}
	return ""
}

func snapShape(outcome string) string {
	switch outcome {
	case flinkckpt.ConsideredIncomplete:
		return "hollow"
	case flinkckpt.ConsideredBroken:
		return "cross"
	case flinkckpt.ConsideredRankedBelow:
		return "circle"
	}
	return "diamond"
}

// sourcesOf draws a Paimon or Kafka candidate against its source, and each
// part of a combined one (resume.All).
func sourcesOf(o resume.Outcome, c *resume.Candidate) []sourceView {
	switch c.Position.Kind() {
	case paimon.KindSnapshot:
		if pp, err := paimon.PositionOf(c.Position); err == nil {
			return []sourceView{paimonSource(o, pp)}
		}
	case kafkaoffset.KindOffsets:
		if kp, err := kafkaoffset.PositionOf(c.Position); err == nil {
			return []sourceView{kafkaSource(o, kp)}
		}
	case resume.KindAll:
		all, err := resume.PositionAs[resume.Positions](c.Position, resume.KindAll)
		if err != nil {
			return nil
		}
		var out []sourceView
		for i := range all.Parts {
			part := o
			part.Resolver = o.Resolver + " / " + all.Parts[i].Resolver
			out = append(out, sourcesOf(part, &all.Parts[i])...)
		}
		return out
	}
	return nil
}

// markLabel is the short label of a candidate's mark on the time axis.
func markLabel(c *resume.Candidate) string {
	switch c.Position.Kind() {
	case paimon.KindSnapshot:
		if pp, err := paimon.PositionOf(c.Position); err == nil {
			return fmt.Sprintf("snapshot %d", pp.NextSnapshot)
		}
	case kafkaoffset.KindOffsets:
		if kp, err := kafkaoffset.PositionOf(c.Position); err == nil {
			if kp.Group != "" {
				return "commits of " + kp.Group
			}
			return "by time"
		}
	}
	return shortName(c.Position.String())
}

// shortName shortens a snapshot's description for a label under its mark:
// "chk-41 of job 9f2c…" keeps "chk-41", a savepoint dir its first part.
func shortName(s string) string {
	if i := strings.Index(s, " of job "); i > 0 {
		return s[:i]
	}
	if strings.HasPrefix(s, "savepoint savepoint-") {
		s = strings.TrimPrefix(s, "savepoint ")
	}
	if len([]rune(s)) > 34 {
		return string([]rune(s)[:33]) + "…"
	}
	return s
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// layoutAxis places the rows and points: the past on a logarithmic scale of
// age before the decision (recent differences stay visible next to a
// savepoint of last week), the future (valid-until) to the right of "now",
// points without a time in the gutter.
func layoutAxis(now time.Time, maxAge time.Duration, rows []rowView, pts []point) axisView {
	ax := axisView{X0: labelWidth, GutterX: svgWidth - gutter/2, AxisY: axisTop}
	if now.IsZero() {
		// No decision time recorded: the newest point is "now".
		for _, pt := range pts {
			if pt.t.After(now) {
				now = pt.t
			}
		}
	}
	var maxPast, maxFuture time.Duration
	for _, pt := range pts {
		if pt.t.IsZero() {
			ax.HasGutter = true
			continue
		}
		if d := now.Sub(pt.t); d > maxPast {
			maxPast = d
		}
		if d := pt.t.Sub(now); d > maxFuture {
			maxFuture = d
		}
	}
	if maxAge > 0 && maxAge > maxPast && maxAge < 4*maxPast+time.Hour {
		maxPast = maxAge
	}
	// The axis starts at a round age at least a quarter older than the
	// oldest point, so that no mark sits on its edge.
	want := max(maxPast*5/4, time.Minute)
	maxPast = want
	for _, d := range niceAges {
		if d >= want {
			maxPast = d
			break
		}
	}
	right := svgWidth - gutter
	futureW := 0.0
	if maxFuture > 0 {
		futureW = 150
	}
	ax.X1 = right
	ax.GutterLineX = right + 14
	ax.NowX = right - futureW
	unit := float64(maxPast) / 400
	lg := func(d time.Duration) float64 { return math.Log1p(float64(d) / unit) }
	pastW := ax.NowX - ax.X0
	xOf := func(t time.Time) float64 {
		if t.IsZero() {
			return ax.GutterX
		}
		if d := now.Sub(t); d >= 0 {
			return ax.NowX - pastW*lg(d)/lg(maxPast)
		}
		fu := float64(maxFuture) * 1.15 / 400
		return ax.NowX + futureW*math.Log1p(float64(t.Sub(now))/fu)/math.Log1p(float64(maxFuture)*1.15/fu)
	}
	ax.Scale = "age before the decision, logarithmic"
	if ax.HasGutter {
		ax.GutterLabel = "no time"
	}
	// Ticks at round ages that fit.
	last := math.Inf(1)
	ax.Ticks = append(ax.Ticks, tick{X: ax.NowX, Label: "now", Clock: clock(now, now)})
	last = ax.NowX
	for i, d := range niceAges {
		if d > maxPast {
			break
		}
		x := xOf(now.Add(-d))
		if last-x < 62 || (x-ax.X0 < 20 && i+1 < len(niceAges) && niceAges[i+1] <= maxPast) {
			continue
		}
		ax.Ticks = append(ax.Ticks, tick{X: x, Label: "−" + fmtAge(d), Clock: clock(now.Add(-d), now)})
		last = x
	}
	if maxFuture > 0 {
		x := xOf(now.Add(maxFuture))
		ax.Ticks = append(ax.Ticks, tick{X: x, Label: "+" + fmtAge(maxFuture), Clock: clock(now.Add(maxFuture), now)})
	}
	if maxAge > 0 {
		ax.HasMaxAge = true
		ax.MaxAgeX = max(ax.X0, xOf(now.Add(-maxAge)))
		ax.MaxAgeLabel = "max age " + fmtAge(maxAge)
	}
	y := axisTop + 30
	for i := range rows {
		rows[i].Y = y
		rows[i].MidY = y + rowHeight/2
		rows[i].Stripe = i%2 == 1
		y += rowHeight
	}
	// Labels under or over their marks, alternating within a row when
	// marks are close.
	sort.SliceStable(pts, func(a, b int) bool {
		if pts[a].row != pts[b].row {
			return pts[a].row < pts[b].row
		}
		return xOf(pts[a].t) < xOf(pts[b].t)
	})
	var placed []mark
	rowOfMark := []int{}
	for _, pt := range pts {
		m := pt.m
		m.X, m.Y = xOf(pt.t), rows[pt.row].MidY
		m.TrueX = m.X
		if m.Shape == "bar" {
			rows[pt.row].ValidUntilX, rows[pt.row].ValidTitle = m.X, m.Title
			continue
		}
		if m.Chosen {
			m.ID = "chosen-mark"
		}
		placed = append(placed, m)
		rowOfMark = append(rowOfMark, pt.row)
	}
	// Marks closer than minGap in a row are spread around their mean (a
	// thin tick on the track keeps each one's true time), and their labels
	// alternate below and above.
	const minGap = 24.0
	for i := 0; i < len(placed); {
		j := i + 1
		for j < len(placed) && rowOfMark[j] == rowOfMark[i] && placed[j].TrueX-placed[j-1].TrueX < minGap {
			j++
		}
		n := j - i
		mean := 0.0
		for k := i; k < j; k++ {
			mean += placed[k].TrueX
		}
		mean /= float64(n)
		first := mean - minGap*float64(n-1)/2
		first = min(max(first, ax.X0+8), ax.X1-8-minGap*float64(n-1))
		for k := i; k < j; k++ {
			m := &placed[k]
			if n > 1 {
				m.X = first + minGap*float64(k-i)
				m.Moved = true
			}
			if (k-i)%2 == 1 {
				m.LabelY = m.Y - 13
			} else {
				m.LabelY = m.Y + 20
			}
		}
		i = j
	}
	for k, m := range placed {
		rows[rowOfMark[k]].Marks = append(rows[rowOfMark[k]].Marks, m)
	}
	ax.Rows = rows
	ax.BottomY = y
	ax.Height = y + 10
	return ax
}

// niceAges are the ages the axis ticks and starts at.
var niceAges = []time.Duration{time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 48 * time.Hour, 7 * 24 * time.Hour,
	14 * 24 * time.Hour, 30 * 24 * time.Hour, 90 * 24 * time.Hour, 365 * 24 * time.Hour, 5 * 365 * 24 * time.Hour}

func clock(t, now time.Time) string {
	if t.Year() == now.Year() && t.YearDay() == now.YearDay() {
		return t.UTC().Format("15:04")
	}
	return t.UTC().Format("Jan 2 15:04")
}

func fmtAge(d time.Duration) string {
	switch {
	case d >= 24*time.Hour && d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.Round(time.Second).String()
}

func timeFromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
