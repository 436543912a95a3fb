package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/examples/internal/scenario"
	"github.com/resumekit/resumekit/examples/resumectl/internal/cli"
	"github.com/resumekit/resumekit/resume"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/script")

// TestMain makes the test binary double as resumectl: the scripts run it as
// a real subprocess, through every command and exit status.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"resumectl": func() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txtar, with $COMPAT (flinkckpt/jobgraph's
// testdata/compat), $CONFORMANCE (the frozen real Flink export,
// flinkckpt/testdata/conformance), $CONFORMANCE2X (the Flink 2.x one,
// flinkckpt/testdata/conformance-2.x) and $FIXTURES (the shared fixtures folder, which may be
// absent) set. Custom commands:
//
//	status N cmd args...   run cmd and expect exit status N (stdout/stderr kept for later checks)
//	build paimon|flink|sources DIR build the demo's Paimon table, checkpoint tree or sources savepoint in DIR
//	kafka                  start the demo's Kafka (kfake on 127.0.0.1), set $BROKERS
//	kafka-retention        delete partition 2 below offset 54 on that Kafka
//
// and the condition [fixtures]: the shared fixtures are present.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			// The version the decision document records: the test binary
			// runs as resumectl, so it is this binary's (cmpenv goldens say
			// "$RESUMEKIT_VERSION").
			env.Setenv("RESUMEKIT_VERSION", resume.ModuleVersion())
			// Never let the AWS SDK look for credentials off this machine
			// (instance metadata): the scripts touch loopback only.
			env.Setenv("AWS_EC2_METADATA_DISABLED", "true")
			env.Setenv("AWS_ACCESS_KEY_ID", "resumekit-test")
			env.Setenv("AWS_SECRET_ACCESS_KEY", "resumekit-test")
			// jobgraph's generated compat plan and savepoint, and the real
			// fixtures (../shared/fixtures, absent in a plain clone: the
			// scripts that need them skip, and fail under CI=true).
			compat, err := filepath.Abs(filepath.Join("..", "..", "flinkckpt", "jobgraph", "testdata", "compat"))
			if err != nil {
				return err
			}
			env.Setenv("COMPAT", compat)
			// The frozen real Flink export (flinkckpt/testdata/conformance).
			conf, err := filepath.Abs(filepath.Join("..", "..", "flinkckpt", "testdata", "conformance"))
			if err != nil {
				return err
			}
			env.Setenv("CONFORMANCE", conf)
			// The frozen real Flink 2.x export (flinkckpt/testdata/conformance-2.x).
			conf2x, err := filepath.Abs(filepath.Join("..", "..", "flinkckpt", "testdata", "conformance-2.x"))
			if err != nil {
				return err
			}
			env.Setenv("CONFORMANCE2X", conf2x)
			env.Setenv("FIXTURES", fixturesDir())
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "fixtures" {
				dir := filepath.Join(fixturesDir(), "flink-plans")
				_, err := os.Stat(dir)
				if err != nil && os.Getenv("CI") == "true" {
					// A script that needs the fixtures must not skip in CI,
					// which runs with a copy of shared/ beside the clone.
					return false, fmt.Errorf("fixtures not found at %s: %v; under CI=true the shared fixtures are required", dir, err)
				}
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status": cmdStatus,
			"build":  cmdBuild,
			"kafka":  cmdKafka,
			"kafka-retention": func(ts *testscript.TestScript, neg bool, args []string) {
				kafkaMu.Lock()
				k := kafkas[ts.Getenv("BROKERS")]
				kafkaMu.Unlock()
				if k == nil {
					ts.Fatalf("kafka-retention: no kafka started")
				}
				ts.Check(k.Retention(context.Background()))
			},
		},
	})
}

// fixturesDir is the shared fixtures folder: $RESUMEKIT_FIXTURES, or
// ../shared/fixtures beside the module root.
func fixturesDir() string {
	fx := os.Getenv("RESUMEKIT_FIXTURES")
	if fx == "" {
		fx = filepath.Join("..", "..", "..", "shared", "fixtures")
	}
	abs, err := filepath.Abs(fx)
	if err != nil {
		return fx
	}
	return abs
}

func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N cmd args...")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}

func cmdBuild(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: build paimon|flink|sources DIR")
	}
	dir := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(dir, 0o755))
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	ts.Check(err)
	defer b.Close()
	env := &scenario.Env{Bucket: b, Root: "file://" + filepath.ToSlash(dir) + "/", Touch: func(key string, t time.Time) error {
		return os.Chtimes(filepath.Join(dir, filepath.FromSlash(key)), t, t)
	}}
	switch args[0] {
	case "paimon":
		_, err = scenario.BuildPaimon(env, "")
	case "flink":
		_, err = scenario.BuildFlink(env, "")
	case "sources":
		_, err = scenario.BuildSources(env, "")
	default:
		ts.Fatalf("build: unknown scenario %q", args[0])
	}
	ts.Check(err)
}

var (
	kafkaMu sync.Mutex // scripts run in parallel
	kafkas  = map[string]*scenario.Kafka{}
)

func cmdKafka(ts *testscript.TestScript, neg bool, args []string) {
	k, err := scenario.BuildKafka(context.Background())
	ts.Check(err)
	brokers := strings.Join(k.Brokers, ",")
	kafkaMu.Lock()
	kafkas[brokers] = k
	kafkaMu.Unlock()
	ts.Defer(func() {
		kafkaMu.Lock()
		delete(kafkas, brokers)
		kafkaMu.Unlock()
		k.Close()
	})
	ts.Setenv("BROKERS", brokers)
}
