package timeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/examples/resumectl/internal/timeline"
	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
)

const hostile = `"><script>alert(1)</script><img src=x onerror=alert(2)></title><svg onload=alert(3)>`

// hostileDecision is a decision whose every storage-derived string is
// markup: the resolver name, a snapshot key and name, the reasons.
func hostileDecision() *resume.Decision {
	at := time.Date(2026, 11, 29, 11, 41, 0, 0, time.UTC)
	pos := flinkckpt.Position{Path: "s3a://b/ck/" + hostile, Key: hostile + "/", CheckpointID: 41,
		Considered: []flinkckpt.ConsideredSnapshot{{Name: hostile, Key: hostile + "/", Outcome: flinkckpt.ConsideredBroken, At: at.Add(time.Minute), Why: "broken: " + hostile},
			{Name: "chk-43", Key: "chk-43/", Outcome: hostile, Why: hostile}}}
	c := &resume.Candidate{Resolver: hostile, Position: pos, Guarantee: resume.ExactlyOnce, At: at, Reasons: []string{hostile},
		Warnings: []resume.Warning{{Code: hostile, Text: hostile}}}
	rejected := &resume.Candidate{Resolver: "r2" + hostile, Position: &resume.RawPosition{PositionKind: hostile, Summary: hostile}, Guarantee: resume.Replay, At: at.Add(-time.Hour)}
	return &resume.Decision{Chosen: c, DecidedAt: at.Add(19 * time.Minute), Version: hostile, Considered: []resume.Outcome{
		{Resolver: hostile, Candidate: c, Verdict: resume.VerdictChosen, Why: hostile},
		{Resolver: "r2" + hostile, Candidate: rejected, Verdict: resume.VerdictRejected, Why: hostile},
	}}
}

// TestEscapesEverything: markup in any string of the document comes out as
// text; the page has no element but its own.
func TestEscapesEverything(t *testing.T) {
	var b bytes.Buffer
	if err := timeline.RenderDecision(&b, hostileDecision()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "<img", "<svg onload", `class="x"`, `" onerror`} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the hostile text is not shown escaped")
	}
	if strings.Count(page, "<svg") != 1 {
		t.Errorf("%d <svg elements, want the timeline's one", strings.Count(page, "<svg"))
	}
}

// TestRefusesBadDocuments: what is not a decision document is an error,
// and nothing is written.
func TestRefusesBadDocuments(t *testing.T) {
	for _, doc := range []string{``, `[]`, `{"schema":"other"}`, `{"schema":"resumekit.decision/v1","considered":[{"resolver":"x"}]}`} {
		var b bytes.Buffer
		if err := timeline.Render(&b, []byte(doc)); err == nil {
			t.Errorf("%q: no error", doc)
		}
		if b.Len() > 0 {
			t.Errorf("%q: wrote %d bytes", doc, b.Len())
		}
	}
}

// TestValidUntil: a candidate's valid_until (recorded by newer resumekit
// versions) is drawn and tabled; a document without it draws without.
func TestValidUntil(t *testing.T) {
	doc, err := json.Marshal(hostileDecision())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	const until = "2026-11-30T06:00:00Z"
	m["chosen"].(map[string]any)["valid_until"] = until
	m["considered"].([]any)[0].(map[string]any)["candidate"].(map[string]any)["valid_until"] = until
	with, _ := json.Marshal(m)
	var b bytes.Buffer
	if err := timeline.Render(&b, with); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), "valid until "+until); got < 3 {
		t.Errorf("valid until shown %d times, want in the verdict, the chart and the table", got)
	}
	b.Reset()
	if err := timeline.Render(&b, doc); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "valid until 2") {
		t.Error("valid until drawn without one recorded")
	}
}

// FuzzRender: any input either fails to decode or renders a page with no
// markup of its own making; never a panic.
func FuzzRender(f *testing.F) {
	doc, _ := json.Marshal(hostileDecision())
	f.Add(doc)
	seeds, _ := filepath.Glob("../../testdata/script/*.txtar")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			if i := bytes.Index(b, []byte("-- decision.golden.json --\n")); i >= 0 {
				f.Add(b[i+len("-- decision.golden.json --\n"):])
			}
		}
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var b bytes.Buffer
		if err := timeline.Render(&b, doc); err != nil {
			return
		}
		if strings.Contains(b.String(), "<script") || strings.Count(b.String(), "<svg") > 1+strings.Count(b.String(), `role="img" aria-label="`) {
			t.Fatalf("markup from the document in the page")
		}
	})
}

// TestRecordBesideStorage: the decision's record section is drawn beside
// storage: a row per record with a diamond at its snapshot's time, red when
// the record's snapshot is broken, and the records table; markup in a
// record is shown as text.
func TestRecordBesideStorage(t *testing.T) {
	d := hostileDecision()
	at := time.Date(2026, 11, 29, 11, 43, 0, 0, time.UTC)
	d.Record = &resume.Record{Sources: []resume.RecordSource{
		{Kind: resume.RecordFlinkHA, Source: "ha.json", CheckpointID: 42, Path: "s3a://b/ck/j/chk-42", At: at,
			Says: "HA recovery restores checkpoint 42", Storage: "broken: 1 of 17 referenced files missing",
			Warnings: []resume.Warning{{Code: "record.broken", Text: "HA recovery fails " + hostile}}},
		{Kind: resume.RecordFlinkREST, Source: "http://jm:8081", Err: os.ErrDeadlineExceeded},
	}}
	var b bytes.Buffer
	if err := timeline.RenderDecision(&b, d); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<table id="records">`,
		"HA recovery restores checkpoint 42",
		"storage: broken: 1 of 17 referenced files missing",
		`class="lbl broken">record: 42</text>`,
		"unreadable: i/o timeout",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") {
		t.Error("markup in a record is not escaped")
	}
}

// TestStateLostInLossColour (issue 33 item 15): a source whose state was
// found and lost (exit 4) was drawn as a grey no-position under "Chosen:
// nothing acceptable"; it is drawn in the loss colour, named state lost,
// with what was lost.
func TestStateLostInLossColour(t *testing.T) {
	lost := resumetest.Failing("flink-checkpoints", fmt.Errorf("flinkckpt: every snapshot that completed is broken: %w", errors.Join(resume.ErrNoPosition, resume.ErrRefused)))
	d, _ := (&resume.Chain{Resolvers: []resume.Resolver{lost}}).Resolve(context.Background())
	var b bytes.Buffer
	if err := timeline.RenderDecision(&b, d); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"nothing: the job&#39;s state was found and is lost (exit 4)", "state lost: flinkckpt: every snapshot that completed is broken", `class="note failed"`, `<span class="tag failed">state lost (no-position)</span>`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "no-position: flinkckpt") {
		t.Errorf("still drawn as a plain no-position")
	}
}
