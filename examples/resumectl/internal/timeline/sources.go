package timeline

import (
	"fmt"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
)

// The bars' geometry.
const (
	barX0      = labelWidth
	barX1      = svgWidth - 60
	barPitch   = 66.0
	barTop     = 14.0
	maxBars    = 64
	barSection = 20.0
)

// scale maps [lo, hi] onto the bar area.
type scale struct{ lo, hi float64 }

func (s scale) x(v int64) float64 {
	if s.hi <= s.lo {
		return (barX0 + barX1) / 2
	}
	return barX0 + (barX1-barX0)*(float64(v)-s.lo)/(s.hi-s.lo)
}

func span(vals ...int64) scale {
	lo, hi := vals[0], vals[0]
	for _, v := range vals[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	pad := float64(hi-lo) * 0.04
	if pad < 0.5 {
		pad = 0.5
	}
	return scale{float64(lo) - pad, float64(hi) + pad}
}

// paimonSource draws the consumer's start against the table's retained
// snapshots (earliest..latest; long-lived changelogs below when decoupled).
func paimonSource(o resume.Outcome, p *paimon.Position) sourceView {
	sv := sourceView{Title: fmt.Sprintf("%s — Paimon table %s, consumer %s", o.Resolver, p.TableName, p.ConsumerID), Sub: o.Verdict.String(), Class: o.Verdict.String()}
	vals := []int64{p.Earliest, p.Latest, p.NextSnapshot}
	if p.ConsumerNextSnapshot > 0 {
		vals = append(vals, p.ConsumerNextSnapshot)
	}
	if p.EarliestChangelog > 0 {
		vals = append(vals, p.EarliestChangelog)
	}
	if p.ReplayFrom > 0 {
		vals = append(vals, p.ReplayFrom)
	}
	sc := span(vals...)
	y := barTop + barSection
	b := barView{Y: y, TextY: y + 4, Label: "snapshots", X0: sc.x(p.Earliest), X1: sc.x(p.Latest),
		Lo: fmt.Sprintf("earliest %d", p.Earliest), Hi: fmt.Sprintf("latest %d", p.Latest)}
	if p.EarliestChangelog > 0 && p.EarliestChangelog < p.Earliest {
		b.Marks = append(b.Marks, barMark{X: sc.x(p.EarliestChangelog), Y: y, LabelY: y + 24, Class: "horizon", Shape: "tick",
			Label: fmt.Sprintf("changelog %d", p.EarliestChangelog), Title: fmt.Sprintf("earliest long-lived changelog %d (decoupled: %v)", p.EarliestChangelog, p.ChangelogDecoupled)})
	}
	if p.ConsumerNextSnapshot > 0 && p.ConsumerNextSnapshot != p.NextSnapshot {
		b.Marks = append(b.Marks, barMark{X: sc.x(p.ConsumerNextSnapshot), Y: y, LabelY: y - 12, Class: "broken", Shape: "dot",
			Label: fmt.Sprintf("consumer file %d", p.ConsumerNextSnapshot), Title: fmt.Sprintf("the consumer file says nextSnapshot %d; the start is %d", p.ConsumerNextSnapshot, p.NextSnapshot)})
	}
	if p.ReplayFrom > 0 {
		b.Marks = append(b.Marks, barMark{X: sc.x(p.ReplayFrom), Y: y, LabelY: y - 12, Class: "incompatible", Shape: "dot",
			Label: fmt.Sprintf("replay from %d", p.ReplayFrom), Title: fmt.Sprintf("snapshots from %d were committed again after the consumer's last progress (a rollback)", p.ReplayFrom)})
	}
	label := fmt.Sprintf("start %d", p.NextSnapshot)
	if p.NextSnapshot > p.Latest {
		label = fmt.Sprintf("start %d (next to commit)", p.NextSnapshot)
	}
	b.Marks = append(b.Marks, barMark{X: sc.x(p.NextSnapshot), Y: y, LabelY: y + 24, Class: o.Verdict.String(), Shape: "start", Label: label,
		Title: fmt.Sprintf("%s: reads from snapshot %d (mode %s)", p.String(), p.NextSnapshot, p.Mode)})
	sv.Bars = append(sv.Bars, b)
	sv.Height = y + barPitch - 10
	return sv
}

// kafkaSource draws each partition's start against its log start and end:
// the committed offset, the by-time offset and the chosen one.
func kafkaSource(o resume.Outcome, p *kafkaoffset.Position) sourceView {
	title := fmt.Sprintf("%s — Kafka", o.Resolver)
	if p.Group != "" {
		title += ", group " + p.Group
	}
	sv := sourceView{Title: title, Sub: o.Verdict.String(), Class: o.Verdict.String()}
	y := barTop + barSection
	for i, pt := range p.Partitions {
		if i == maxBars {
			sv.Bars = append(sv.Bars, barView{Y: y, TextY: y + 4, Label: fmt.Sprintf("… %d more partitions", len(p.Partitions)-maxBars), X0: barX0, X1: barX0})
			y += barPitch
			break
		}
		vals := []int64{pt.Start, pt.End, pt.Offset}
		if pt.Committed != nil {
			vals = append(vals, *pt.Committed)
		}
		if pt.ByTime != nil {
			vals = append(vals, *pt.ByTime)
		}
		sc := span(vals...)
		b := barView{Y: y, TextY: y + 4, Label: fmt.Sprintf("%s/%d", pt.Topic, pt.Partition), X0: sc.x(pt.Start), X1: sc.x(pt.End),
			Lo: fmt.Sprintf("log start %d", pt.Start), Hi: fmt.Sprintf("end %d", pt.End)}
		if pt.LastStable != nil && *pt.LastStable < pt.End {
			b.Marks = append(b.Marks, barMark{X: sc.x(*pt.LastStable), Y: y, LabelY: y - 12, Class: "horizon", Shape: "tick",
				Label: fmt.Sprintf("last stable %d", *pt.LastStable), Title: "last stable offset: an open transaction above it"})
		}
		if pt.Committed != nil {
			c := *pt.Committed
			m := barMark{X: sc.x(c), Y: y, LabelY: y - 12, Class: "committed", Shape: "dot", Label: fmt.Sprintf("committed %d", c),
				Title: fmt.Sprintf("group %s committed %d", p.Group, c)}
			if c < pt.Start {
				m.Class = "broken"
				m.Label = fmt.Sprintf("committed %d: %d lost", c, pt.Start-c)
				m.Title += fmt.Sprintf(": below the log start %d, records %d..%d were deleted", pt.Start, c, pt.Start-1)
				b.Note, b.NoteClass = fmt.Sprintf("%d records lost", pt.Start-c), "broken"
			}
			b.Marks = append(b.Marks, m)
		}
		if pt.ByTime != nil && (pt.Committed == nil || *pt.ByTime != *pt.Committed) {
			b.Marks = append(b.Marks, barMark{X: sc.x(*pt.ByTime), Y: y, LabelY: y - 26, Class: "bytime", Shape: "tri",
				Label: fmt.Sprintf("by time %d", *pt.ByTime), Title: fmt.Sprintf("the first offset at or after %s", fmtMillis(p.TimestampMillis))})
		}
		b.Marks = append(b.Marks, barMark{X: sc.x(pt.Offset), Y: y, LabelY: y + 24, Class: o.Verdict.String(), Shape: "start",
			Label: fmt.Sprintf("start %d (%s)", pt.Offset, pt.From), Title: pt.Reason})
		sv.Bars = append(sv.Bars, b)
		y += barPitch
	}
	sv.Height = y - 10
	return sv
}

func fmtMillis(ms int64) string {
	if ms == 0 {
		return "the start time"
	}
	return fmtTime(timeFromMillis(ms))
}
