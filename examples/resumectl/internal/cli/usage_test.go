package cli

import (
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// commandPaths reads every command path ("resolve", "flink list") from the
// synopsis "resumectl help" prints.
func commandPaths(t *testing.T) [][]string {
	t.Helper()
	out, errOut, code := run(t, "help")
	if code != ExitOK || errOut != "" {
		t.Fatalf("help: exit %d, stderr %q", code, errOut)
	}
	var paths [][]string
	for _, l := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(l, "  resumectl ")
		if !ok {
			continue
		}
		var path []string
		for _, w := range strings.Fields(rest) {
			if !regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(w) {
				break
			}
			path = append(path, w)
		}
		if len(path) > 0 && path[0] != "help" && !slices.ContainsFunc(paths, func(p []string) bool { return slices.Equal(p, path) }) {
			paths = append(paths, path)
		}
	}
	if len(paths) < 9 {
		t.Fatalf("found only %q in the help synopsis:\n%s", paths, out)
	}
	return paths
}

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut strings.Builder
	code = Main(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// TestUsageNamesEveryFlag parses every command's help: each flag its flag set
// defines (the "flags:" list, which visits the flag set) appears in the
// usage lines above it. A flag added without a usage entry fails here.
func TestUsageNamesEveryFlag(t *testing.T) {
	for _, path := range commandPaths(t) {
		name := strings.Join(path, " ")
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			out, errOut, code := run(t, append(slices.Clone(path), "-h")...)
			if code != ExitOK || errOut != "" {
				t.Fatalf("%s -h: exit %d, stderr %q", name, code, errOut)
			}
			if !strings.HasPrefix(out, "usage: resumectl "+name) {
				t.Fatalf("%s -h does not start with its usage:\n%s", name, out)
			}
			usage, flags, _ := strings.Cut(out, "\nflags:\n")
			n := 0
			for _, m := range regexp.MustCompile(`(?m)^  --([\w-]+)`).FindAllStringSubmatch(flags, -1) {
				n++
				if !regexp.MustCompile(`--` + regexp.QuoteMeta(m[1]) + `($|[^\w-])`).MatchString(usage) {
					t.Errorf("flag --%s of %q is not in its usage lines:\n%s", m[1], name, usage)
				}
			}
			if n == 0 {
				t.Errorf("%s -h lists no flags:\n%s", name, out)
			}
		})
	}
}

// TestHelpNamesEveryValue: a flag that takes a value shows what it takes
// (ID, DUR, text|json|k8s), never the flag package's Go type ("string").
// DUR, not DURATION: the help's legend names DUR.
func TestHelpNamesEveryValue(t *testing.T) {
	generic := regexp.MustCompile(`(?m)^  --[\w-]+ (string|int|int64|uint|uint64|float|value|duration|DURATION)$`)
	for _, path := range commandPaths(t) {
		out, _, _ := run(t, append(slices.Clone(path), "-h")...)
		for _, m := range generic.FindAllString(out, -1) {
			t.Errorf("%s -h: %q shows no value name", strings.Join(path, " "), m)
		}
		usage, _, _ := strings.Cut(out, "\nflags:\n")
		if strings.Contains(usage, "DURATION") {
			t.Errorf("%s -h: the usage says DURATION, the legend DUR:\n%s", strings.Join(path, " "), usage)
		}
	}
}

// TestHelpAndUsageStreams: help goes to stdout with status 0 wherever it is
// asked for; usage errors go to stderr with status 2 and the usage lines.
func TestHelpAndUsageStreams(t *testing.T) {
	for _, args := range [][]string{
		{"help"}, {"-h"}, {"--help"}, {"help", "resolve"}, {"help", "flink", "inspect"},
		{"resolve", "help"}, {"flink", "-h"}, {"flink", "help"}, {"paimon", "--help"}, {"kafka", "-h"},
		{"paimon", "reset-consumer", "--help"}, {"kafka", "offsets", "-help"}, {"demo", "-h"}, {"version", "-h"},
		// Every command takes --timeout, help too (a no-op: no I/O).
		{"help", "--timeout", "1s"}, {"help", "--timeout=1s", "resolve"}, {"help", "flink", "list", "--timeout", "1s"},
		{"help", "version", "-timeout", "0"},
	} {
		out, errOut, code := run(t, args...)
		if code != ExitOK || errOut != "" || !strings.Contains(out, "usage:") {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want the usage on stdout and exit 0", args, code, errOut, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string // in stderr
	}{
		{nil, "want a command"},
		{[]string{"nosuch"}, `unknown command "nosuch"`},
		{[]string{"resolve", "--bogus"}, "flag provided but not defined: -bogus\nusage: resumectl resolve "},
		{[]string{"resolve"}, "or --kafka-brokers\nusage: resumectl resolve "},
		{[]string{"flink", "list"}, "want exactly one location, got 0"},
		{[]string{"flink", "inspect", "--job-id", "x", "dir"}, "flag provided but not defined: -job-id\nusage: resumectl flink inspect PATH|URL"},
		{[]string{"kafka", "offsets", "--brokers", "127.0.0.1:1"}, "--brokers and --topic are required\nusage: resumectl kafka offsets --brokers"},
		{[]string{"paimon", "snapshots"}, "want the table URL\nusage: resumectl paimon snapshots URL"},
		{[]string{"version", "extra"}, "version takes no arguments"},
		{[]string{"version", "--timeout", "soon"}, `invalid value "soon" for flag -timeout`},
		{[]string{"help", "--timeout", "soon"}, "invalid value \"soon\" for flag -timeout: duration \"soon\": want e.g. 90m, 1h30m or 7d\nusage: resumectl help "},
		{[]string{"help", "resolve", "--timeout"}, "help: flag needs an argument: -timeout"},
		// Issue 33 item 14: mistakes that used to pass silently.
		{[]string{"resolve", "--flink-checkpoints", "x", "--fail-on-warning", "flink.older-then-broken"}, `--fail-on-warning "flink.older-then-broken": no such warning code (a typo would never match, and the gate would pass everything); the codes are: chain.`},
		{[]string{"k8s", "patch", "d.json", "--fail-on-warning", "chain.source-failed,kafka.nope"}, `k8s patch: --fail-on-warning "kafka.nope": no such warning code`},
		{[]string{"resolve", "--kafka-brokers", "127.0.0.1:1", "--kafka-topic", "a", "--kafka-topic", "b", "--kafka-group", "g"}, `invalid value "b" for flag -kafka-topic: given twice ("a", then "b"): --kafka-topic takes one value`},
		{[]string{"resolve", "--flink-checkpoints", "x", "--json", "--json"}, `given twice`},
		{[]string{"resolve", "--flink-checkpoints", "x", "--json", "--format", "text"}, "--json and --format text contradict each other"},
		{[]string{"resolve", "--flink-checkpoints", "x", "--k8s-nonce", "3"}, "--k8s-nonce is the patch's savepointRedeployNonce and needs --format k8s (the format is text)"},
		{[]string{"resolve", "--flink-checkpoints", "x", "--flink-checkpoints", "y", "--flink-root", "s3a://b/ck"}, "--flink-root is the Flink URI of one location"},
		// Both locations would take a location's root: the savepoint's -s path under the checkpoint root.
		{[]string{"resolve", "--flink-checkpoints", "x/ck", "--flink-savepoints", "x/sp", "--flink-root", "file:///data/ck"}, `--flink-root "file:///data/ck" names one location's root, and both --flink-checkpoints and --flink-savepoints are given`},
		{[]string{"flink", "frobnicate", "x"}, `flink: no subcommand "frobnicate": want list, inspect, compat, sources or record`},
	} {
		out, errOut, code := run(t, tc.args...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, %q on stderr", tc.args, code, out, errOut, tc.want)
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"version", "--timeout", "1s"}, {"--version", "--timeout=0"}} {
		out, errOut, code := run(t, args...)
		if code != ExitOK || errOut != "" || !regexp.MustCompile(`^resumectl \S+`).MatchString(out) {
			t.Errorf("%q: exit %d, %q %q", args, code, out, errOut)
		}
	}
	main := func(path, version string, deps ...*debug.Module) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: path, Version: version}, Deps: deps}
	}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"Installed", main(modulePath, "v1.4.0"), "v1.4.0"},
		{"Pseudo", main(modulePath, "v0.0.0-20261129100000-0123456789ab"), "v0.0.0-20261129100000-0123456789ab"},
		{"Dependency", main("example.com/deploy", "v2.0.0", &debug.Module{Path: modulePath, Version: "v1.3.1"}), "v1.3.1"},
		{"Devel", main(modulePath, "(devel)"), "(devel)"},
		{"Unknown", main("", ""), "(devel)"},
		{"NoBuildInfo", nil, "(devel)"},
		{"DevelWithRevision", &debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, "(devel) 0123456789ab+dirty"},
	} {
		if got := versionOf(tc.bi); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
