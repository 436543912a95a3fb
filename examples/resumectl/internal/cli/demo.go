package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/resumekit/resumekit/examples/internal/scenario"
	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/localblob"
	"github.com/resumekit/resumekit/resume/redact"
)

// runDemo builds the three restart situations of DESIGN.md in a temporary
// directory and an in-process Kafka, resolves each, and prints the reports.
// Every time in the story is fixed, so the output changes only with the
// directory and the Kafka port.
func runDemo(e *env, args []string) error {
	fs := newFlags(e, "demo", demoUsage)
	keep := fs.String("keep", "", "build in `DIR` and leave the files there, to run the other commands on them")
	timeout := addTimeout(fs, DefaultTimeout)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("demo takes no arguments, got %s", redact.Quote(strings.Join(pos, " ")))
	}
	// The deadline covers building the files too.
	ctx, cancel := e.context(timeout.d)
	defer cancel()
	dir := *keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "resumekit-demo-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else {
		abs, local, err := localblob.LocalPath(dir)
		switch {
		case err != nil:
			return usagef("demo --keep: %v", err)
		case !local:
			return usagef("demo --keep %s: want a local directory, not a storage URL", redact.URL(dir))
		}
		dir = abs
		// A second run into the same dir failed halfway (the first run's
		// files were in the way): only an empty or new dir is taken.
		if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
			return usagef("demo --keep %s: the directory is not empty (%d entries, e.g. %s): give a new or empty directory (remove the last demo's with rm -r)",
				redact.Quote(dir), len(entries), redact.Quote(entries[0].Name()))
		} else if err != nil && !errors.Is(err, os.ErrNotExist) {
			return usagef("demo --keep %s: %v", redact.Quote(dir), err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	// Keys are relative to the demo dir, as resumectl's are to a local path;
	// the reports show them as paths (localPaths), as the commands printed
	// here do. Everything, modification times included, goes through the
	// dir's os.Root: a --keep DIR holding links out of it is not written
	// through.
	lb, err := localblob.OpenBucket(dir, &localblob.Options{NoSync: true, OnKey: e.paths.dir(dir)})
	if err != nil {
		return err
	}
	defer lb.Close()
	var root *os.Root
	lb.As(&root)
	b := lb
	if e.hooks != nil && e.hooks.bucket != nil {
		b = e.hooks.bucket(lb) // tests: a storage call that blocks
		defer b.Close()
	}
	d := &demo{
		e:     e,
		w:     e.stdout,
		width: e.reportWidth(),
		ctx:   ctx,
		dir:   dir,
		env: &scenario.Env{Bucket: b, Root: "file://" + filepath.ToSlash(dir) + "/", Touch: func(key string, t time.Time) error {
			return root.Chtimes(filepath.FromSlash(key), t, t)
		}},
		policy: resume.Policy{Now: func() time.Time { return scenario.Now }},
	}
	fmt.Fprintf(d.w, "resumekit demo: three restarts, built in %s; \"now\" is %s\n", dir, scenario.Now.Format(time.RFC3339))
	for _, step := range []func() error{d.paimon, d.flink, d.kafka} {
		if err := step(); err != nil {
			return err
		}
	}
	if *keep != "" {
		fmt.Fprintf(d.w, "\nThe files are in %s: run the resumectl commands above on them (Kafka stopped with the demo).\n", dir)
	} else {
		fmt.Fprintf(d.w, "\n%s is deleted now that the demo ends, and its Kafka stopped: the commands above no longer run; to run them yourself, build the files to keep with resumectl demo --keep DIR.\n", dir)
	}
	return nil
}

type demo struct {
	e      *env // for the resumectl commands the demo runs in-process
	w      io.Writer
	width  int // the report's wrap width (0: none)
	ctx    context.Context
	dir    string // the bucket's directory
	env    *scenario.Env
	policy resume.Policy
}

func (d *demo) section(title string) { fmt.Fprintf(d.w, "\n== %s\n", title) }

// cmd prints the resumectl command that gives the report that follows;
// resolve runs as of the story's "now", as the demo does.
func (d *demo) cmd(args ...string) {
	comment := ""
	if last := args[len(args)-1]; strings.HasPrefix(last, "#") {
		args, comment = args[:len(args)-1], "   "+last
	}
	if args[0] == "resolve" {
		args = append(args, "--now", scenario.Now.Format(time.RFC3339))
	}
	fmt.Fprintf(d.w, "$ resumectl %s%s\n", strings.Join(args, " "), comment)
}

func (d *demo) local(key string) string { return filepath.Join(d.dir, filepath.FromSlash(key)) }

func (d *demo) resolve(rs ...resume.Resolver) (*resume.Decision, error) {
	dec, err := (&resume.Chain{Resolvers: rs, Policy: d.policy}).Resolve(d.ctx)
	writeReport(d.w, dec, d.width)
	if err != nil && len(dec.Failed()) > 0 {
		return dec, err
	}
	return dec, nil
}

func (d *demo) paimon() error {
	p, err := scenario.BuildPaimon(d.env, "")
	if err != nil {
		return err
	}
	table, err := paimon.NewTable(d.env.Bucket, p.TablePath, &paimon.TableOptions{Now: d.policy.Now})
	if err != nil {
		return err
	}
	d.section("1a. Paimon streaming job, savepoint lost in a refactor; it used consumer-id " + p.Consumer)
	d.cmd("resolve", "--paimon-table", d.local(p.TablePath), "--paimon-consumer", p.Consumer)
	r, err := paimon.NewResolver(table, p.Consumer, nil)
	if err != nil {
		return err
	}
	if _, err := d.resolve(r); err != nil {
		return err
	}

	from := p.StoppedAbout.Add(-5 * time.Minute)
	d.section("1b. The same job without a consumer-id: start by time, then bind a consumer before starting")
	d.cmd("resolve", "--paimon-table", d.local(p.TablePath), "--paimon-consumer", p.NewConsumer, "--paimon-from", from.Format(time.RFC3339))
	r, err = paimon.NewResolver(table, p.NewConsumer, &paimon.Options{StartTime: from})
	if err != nil {
		return err
	}
	dec, err := d.resolve(r)
	if err != nil {
		return err
	}
	pp, err := paimon.PositionOf(dec.Chosen.Position)
	if err != nil {
		return err
	}
	d.cmd("paimon", "reset-consumer", d.local(p.TablePath), "--consumer", p.NewConsumer, "--next-snapshot", fmt.Sprint(pp.NextSnapshot), "--execute")
	plan, err := table.ResetConsumer(d.ctx, p.NewConsumer, pp.NextSnapshot, &paimon.ResetOptions{ExpectAbsent: true, Observe: -1})
	if err != nil {
		return err
	}
	fmt.Fprintf(d.w, "wrote %s: nextSnapshot %d; the job now starts with %s\n", plan.Key, plan.NextSnapshot, resume.HintOptions(map[string]string{"consumer-id": p.NewConsumer, paimon.OptScanSnapshotID: fmt.Sprint(plan.NextSnapshot)}))
	return nil
}

func (d *demo) flink() error {
	f, err := scenario.BuildFlink(d.env, "")
	if err != nil {
		return err
	}
	d.section("2. Flink CDC job after a JobManager crash: the HA pointer is gone")
	d.cmd("resolve", "--flink-checkpoints", d.local(f.Checkpoints), "--flink-savepoints", d.local(f.Savepoints))
	// As resolve does: one resolver over both locations.
	r, err := flinkckpt.NewResolver(d.env.Bucket, f.Checkpoints, &flinkckpt.Options{FlinkRoot: d.env.Root,
		Locations: []flinkckpt.Location{{Bucket: d.env.Bucket, Prefix: f.Savepoints, FlinkRoot: d.env.Root}}})
	if err != nil {
		return err
	}
	_, err = d.resolve(r)
	return err
}

func (d *demo) kafka() error {
	k, err := scenario.BuildKafka(d.ctx)
	if err != nil {
		return err
	}
	defer k.Close()
	brokers := strings.Join(k.Brokers, ",")
	committed := func() (resume.Resolver, error) {
		return kafkaoffset.NewResolver(k.Client, []string{k.Topic}, &kafkaoffset.Options{Name: "kafka-committed", Group: k.Group, Now: d.policy.Now})
	}
	d.section("3a. Stateless Kafka job redeployed: committed offsets or a 30-minute rewind?")
	// The command line and its own table: the group's commits, and the
	// offsets at the rewind's time for comparison.
	offsets := []string{"kafka", "offsets", "--brokers", brokers, "--topic", k.Topic, "--group", k.Group, "--at", k.Rewind.Format(time.RFC3339), "--now", scenario.Now.Format(time.RFC3339)}
	d.cmd(offsets...)
	if err := runKafka(d.e, offsets[1:]); err != nil {
		return err
	}
	fmt.Fprintln(d.w, "\n(in Go, two kafkaoffset resolvers in one chain decide between the group's commits and the 30-minute rewind:)")
	rc, err := committed()
	if err != nil {
		return err
	}
	rw, err := kafkaoffset.NewResolver(k.Client, []string{k.Topic}, &kafkaoffset.Options{Name: "kafka-rewind", At: k.Rewind, Now: d.policy.Now})
	if err != nil {
		return err
	}
	if _, err := d.resolve(rc, rw); err != nil {
		return err
	}

	if err := k.Retention(d.ctx); err != nil {
		return err
	}
	d.section("3b. The same job after retention deleted partition 2 below offset 54 while it was down")
	d.cmd("resolve", "--kafka-brokers", brokers, "--kafka-topic", k.Topic, "--kafka-group", k.Group, "# exit status 4: refused for data loss")
	if rc, err = committed(); err != nil {
		return err
	}
	_, err = d.resolve(rc)
	fmt.Fprintln(d.w, "(--min-guarantee data-loss accepts the loss and starts partition 2 at its log start)")
	return err
}
