package main

import (
	"context"
	"errors"
	"flag"
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
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/script")

// TestMain makes the test binary double as resumectl: the scripts run it as
// a real subprocess, through every command and exit status.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"resumectl": func() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txtar. Custom commands:
//
//	status N cmd args...   run cmd and expect exit status N (stdout/stderr kept for later checks)
//	build paimon|flink DIR build the demo's Paimon table or checkpoint tree in DIR
//	kafka                  start the demo's Kafka (kfake on 127.0.0.1), set $BROKERS
//	kafka-retention        delete partition 2 below offset 54 on that Kafka
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			// Never let the AWS SDK look for credentials off this machine
			// (instance metadata): the scripts touch loopback only.
			env.Setenv("AWS_EC2_METADATA_DISABLED", "true")
			env.Setenv("AWS_ACCESS_KEY_ID", "resumekit-test")
			env.Setenv("AWS_SECRET_ACCESS_KEY", "resumekit-test")
			return nil
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
		ts.Fatalf("usage: build paimon|flink DIR")
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
