package timeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/examples/internal/scenario"
	"github.com/resumekit/resumekit/examples/resumectl/internal/timeline"
	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/localblob"
)

// situation is one of the demo's restarts, resolved.
type situation struct {
	name string
	doc  []byte // its resumekit.decision/v1 document
	// label is the text the page must show for the chosen candidate.
	label string
}

// demoDecisions builds the demo's situations as resumectl demo does — a
// Paimon job whose savepoint was lost, a Flink job after a JobManager
// crash, a stateless Kafka job redeployed (and the same after retention
// deleted part of a partition) — and resolves each as of the story's now.
func demoDecisions(t *testing.T) []situation {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	lb, err := localblob.OpenBucket(dir, &localblob.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lb.Close() })
	var root *os.Root
	lb.As(&root)
	env := &scenario.Env{Bucket: lb, Root: "file://" + filepath.ToSlash(dir) + "/", Touch: func(key string, at time.Time) error {
		return root.Chtimes(filepath.FromSlash(key), at, at)
	}}
	policy := resume.Policy{Now: func() time.Time { return scenario.Now }}
	resolve := func(name string, rs ...resume.Resolver) situation {
		t.Helper()
		d, _ := (&resume.Chain{Resolvers: rs, Policy: policy}).Resolve(ctx)
		doc, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		s := situation{name: name, doc: doc, label: "nothing acceptable"}
		if d.Chosen != nil {
			s.label = d.Chosen.Position.String()
		}
		return s
	}
	var out []situation

	p, err := scenario.BuildPaimon(env, "")
	if err != nil {
		t.Fatal(err)
	}
	table, err := paimon.NewTable(lb, p.TablePath, &paimon.TableOptions{Now: policy.Now})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := paimon.NewResolver(table, p.Consumer, nil)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, resolve("1-paimon-lost-savepoint", pr))

	f, err := scenario.BuildFlink(env, "")
	if err != nil {
		t.Fatal(err)
	}
	fr, err := flinkckpt.NewResolver(lb, f.Checkpoints, &flinkckpt.Options{FlinkRoot: env.Root,
		Locations: []flinkckpt.Location{{Bucket: lb, Prefix: f.Savepoints, FlinkRoot: env.Root}}})
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, resolve("2-flink-jobmanager-crash", fr))

	k, err := scenario.BuildKafka(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Close)
	committed := func() resume.Resolver {
		r, err := kafkaoffset.NewResolver(k.Client, []string{k.Topic}, &kafkaoffset.Options{Name: "kafka-committed", Group: k.Group, Now: policy.Now})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	rw, err := kafkaoffset.NewResolver(k.Client, []string{k.Topic}, &kafkaoffset.Options{Name: "kafka-rewind", At: k.Rewind, Now: policy.Now})
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, resolve("3-kafka-redeploy", committed(), rw))
	if err := k.Retention(ctx); err != nil {
		t.Fatal(err)
	}
	out = append(out, resolve("3b-kafka-after-retention", committed()))
	return out
}

// chromium returns the headless browser, or skips (fails under CI=true)
// when it is not installed.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (CI=true: .ci/run installs it with apt-get install chromium)")
	}
	t.Skip("chromium is not installed: apt-get install chromium to render the timelines")
	return ""
}

// browse runs headless chromium on the file with args and returns its
// standard output and the console and load errors it logged.
func browse(t *testing.T, bin, page string, args ...string) (string, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	home := t.TempDir()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-extensions", "--no-first-run", "--user-data-dir=" + filepath.Join(home, "profile"),
		"--enable-logging=stderr", "--v=0"}, args...)
	cmd := exec.CommandContext(ctx, bin, append(all, "file://"+page)...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_CACHE_HOME="+home)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), pageErrors(stderr.String())
}

// pageErrors picks out of chromium's log what the page caused: console
// messages (CONSOLE), refused loads (Content-Security-Policy) and failed
// resources.
var pageErrorRE = regexp.MustCompile(`(?i)CONSOLE|Content Security Policy|Refused to|Failed to load|net::ERR_`)

func pageErrors(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if pageErrorRE.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// TestBrowserRendersDemoTimelines renders each demo situation's timeline in
// headless Chromium: the page loads with no console or load error, the
// dumped DOM holds the chosen candidate's label (in the verdict and on the
// chart), and a screenshot is written (to RESUMEKIT_TIMELINE_PNGS when set,
// for people to look at).
func TestBrowserRendersDemoTimelines(t *testing.T) {
	bin := chromium(t)
	pngs := os.Getenv("RESUMEKIT_TIMELINE_PNGS")
	if pngs == "" {
		pngs = t.TempDir()
	} else if err := os.MkdirAll(pngs, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, s := range demoDecisions(t) {
		t.Run(s.name, func(t *testing.T) {
			var html bytes.Buffer
			if err := timeline.Render(&html, s.doc); err != nil {
				t.Fatal(err)
			}
			page := filepath.Join(dir, s.name+".html")
			if err := os.WriteFile(page, html.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			dom, errs := browse(t, bin, page, "--dump-dom")
			if len(errs) > 0 {
				t.Errorf("the page logged errors:\n%s", strings.Join(errs, "\n"))
			}
			label := `<span id="chosen-label">` + htmlText(s.label) + `</span>`
			if !strings.Contains(dom, label) {
				t.Errorf("the DOM has no %s", label)
			}
			if s.label != "nothing acceptable" && !regexp.MustCompile(`<g class="hover" id="chosen-mark">`).MatchString(dom) {
				t.Errorf("the chart marks no chosen candidate")
			}
			if !strings.Contains(dom, "</svg>") || !strings.Contains(dom, `<table id="outcomes">`) {
				t.Errorf("the DOM lacks the chart or the table")
			}
			png := filepath.Join(pngs, s.name+".png")
			os.Remove(png)
			_, errs = browse(t, bin, page, "--screenshot="+png, "--window-size=1200,"+windowHeight(html.String()), "--hide-scrollbars")
			if len(errs) > 0 {
				t.Errorf("the page logged errors while drawn:\n%s", strings.Join(errs, "\n"))
			}
			if fi, err := os.Stat(png); err != nil || fi.Size() < 10_000 {
				t.Errorf("screenshot %s: %v (want a PNG of the page)", png, err)
			}
			t.Logf("screenshot: %s", png)
		})
	}
}

// TestBrowserReportsLoadErrors: the check above does catch a page that
// tries to load something (the policy refuses it and Chromium logs it).
func TestBrowserReportsLoadErrors(t *testing.T) {
	bin := chromium(t)
	page := filepath.Join(t.TempDir(), "bad.html")
	bad := `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head><body><img src="http://127.0.0.1:9/x.png"><p>x</p></body></html>`
	if err := os.WriteFile(page, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs := browse(t, bin, page, "--dump-dom"); len(errs) == 0 {
		t.Fatal("a refused image load was not reported")
	}
}

// windowHeight sizes the screenshot to the page: a rough count of its
// rows, so that the whole page is in the picture.
func windowHeight(html string) string {
	h := 560 + 62*strings.Count(html, `class="track"`) + 44*strings.Count(html, "<tr>") + 40*strings.Count(html, "<li>")
	return itoa(min(h, 6000))
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// htmlText escapes s as html/template does in text.
func htmlText(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;")
	return r.Replace(s)
}
