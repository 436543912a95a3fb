// Package cli implements resumectl's commands. main stays thin so that the
// end-to-end tests can run every command in-process as well as through the
// built binary.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

// Exit statuses, one meaning each (resume.ExitChosen …): resolve takes the
// first six from resume.Classify (resume.Result.ExitCode), so that a Go
// deploy tool branches the same way.
const (
	ExitOK             = resume.ExitChosen           // 0: a position was chosen
	ExitFailed         = resume.ExitFailed           // 1: a source failed (or an input is missing), nothing chosen
	ExitUsage          = resume.ExitUsage            // 2: bad flags or arguments
	ExitNothing        = resume.ExitNothingToRestore // 3: every source answered, empty
	ExitRefused        = resume.ExitRefused          // 4: candidates exist, all refused for data loss (or by the policy)
	ExitIncompatible   = resume.ExitIncompatible     // 5: candidates exist, none fits the new job
	ExitFormat         = resume.ExitFormat           // 6: chosen, but the output format cannot express it
	ExitWarningRefused = resume.ExitWarning          // 7: chosen with a warning named by --fail-on-warning
)

// exitHelp documents the exit statuses in help.
const exitHelp = `Exit status: 0 chosen; 1 a source failed (store down, permission, a missing path: named), nothing chosen;
2 usage (a bad flag); 3 nothing to restore (every source answered, empty: a first deploy or a mistyped prefix);
4 candidates exist but all were refused for data loss (or age, or --min-guarantee), or every snapshot there is
broken (the state is lost: never 3); 5 candidates exist but none
fits the new job (flink compat: state would be dropped); 6 chosen, but --format cannot express it (k8s for a
stateless start); 7 chosen with a warning named by --fail-on-warning CODE[,CODE].`

// errUsage marks an error as a usage error (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// usagef returns a usage error (exit status 2).
func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// exitError carries an explicit exit status with its message; an empty
// message prints nothing more.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}
func (e exitError) Unwrap() error { return e.err }

// withExit attaches an exit status to err.
func withExit(code int, err error) error { return exitError{code: code, err: err} }

// env is what every command gets.
type env struct {
	stdout, stderr io.Writer
	// flags is the flag set of the command being run (nil before it made
	// one): a usage error prints its usage lines.
	flags *flagSet
	// paths are the command's local locations: their keys are shown as
	// absolute paths, on stderr and on stdout unless rawStdout (JSON).
	paths localPaths
	hooks *hooks
	// red masks secrets in everything written (both outputs share it);
	// a command registers more (a DSN's password) as it learns them.
	red *redact.Redactor
	// stdoutTerm and stderrTerm say whether they are terminals.
	stdoutTerm, stderrTerm bool
	// errOut is stderr's output, for the live progress line.
	errOut *output
	// trace follows every storage call (the timeout names the ones still
	// waiting; --verbose prints each); prog is resolve's progress line, nil
	// when off.
	trace *tracer
	prog  *progress
	// expired is closed when the command's deadline passed (plus a short
	// grace); Main then returns without waiting for the command.
	expired  chan struct{}
	deadline sync.Once
	timeout  time.Duration
	hard     *time.Timer // closes expired; stopped when the command returns
}

// hooks let tests reach into a run without package-level knobs.
type hooks struct {
	// bucket, when set, wraps every bucket a command opens (a blobtest
	// wrapper that blocks a call, say).
	bucket func(*blob.Bucket) *blob.Bucket
	// wait, when set, replaces the pauses of Paimon tables
	// (paimon.TableOptions.Wait): retries and the reset's observation.
	wait func(ctx context.Context, d time.Duration) error
	// grace, when positive, replaces the grace after the deadline before
	// Main abandons a command: a test of a command that honours its
	// context sets it long, so that the outcome never depends on the
	// machine's speed.
	grace time.Duration
	// stdin, when set, replaces os.Stdin (--plan -).
	stdin io.Reader
	// flinkWait, when set, replaces the pause of --flink-observe
	// (flinkckpt.Options.Wait) on the restore and the salvage path.
	flinkWait func(ctx context.Context, d time.Duration) error
	// terminal, when set, replaces the check whether stdout or stderr is
	// a terminal (the report's wrapping, the progress line).
	terminal func(w io.Writer) bool
	// progressNow shows the progress line at once and redraws it on every
	// event (no delay, no throttle): tests count what it drew.
	progressNow bool
}

// isTerminal reports whether w is a terminal (a character device): the
// report is then wrapped and a slow resolve shows its progress.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// reportWidth is the width the text report wraps at: the terminal's
// ($COLUMNS, else resume.ReportWidth) when stdout is one, none when it is
// a pipe or a file (one fact per line, for grep and logs).
func (e *env) reportWidth() int {
	if !e.stdoutTerm {
		return 0
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 40 {
		return n
	}
	return resume.ReportWidth
}

// stdin returns the standard input of a run.
func (e *env) stdin() io.Reader {
	if e.hooks != nil && e.hooks.stdin != nil {
		return e.hooks.stdin
	}
	return os.Stdin
}

// tableWait is the paimon.TableOptions.Wait of a run.
func (e *env) tableWait() func(context.Context, time.Duration) error {
	if e.hooks == nil {
		return nil
	}
	return e.hooks.wait
}

// flinkWait is the flinkckpt.Options.Wait of a run.
func (e *env) flinkWait() func(context.Context, time.Duration) error {
	if e.hooks == nil {
		return nil
	}
	return e.hooks.flinkWait
}

// DefaultTimeout is the default --timeout of every command.
const DefaultTimeout = 5 * time.Minute

// addTimeout registers --timeout on a command's flags.
func addTimeout(fs *flagSet, def time.Duration) *durationFlag {
	d := &durationFlag{d: def}
	fs.Var(d, "timeout", "give up after this long (`DUR`; 0: never); the command ends at the deadline even when a storage or Kafka call hangs")
	return d
}

// context returns the command's context, ending after d (never when d is
// 0), and arms the hard deadline: when the command has not returned a short
// grace after ctx ended — a storage call that ignores its context — Main
// returns without it.
func (e *env) context(d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(context.Background())
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	e.deadline.Do(func() {
		e.timeout = d
		grace := min(max(d/10, 10*time.Millisecond), 2*time.Second)
		if e.hooks != nil && e.hooks.grace > 0 {
			grace = e.hooks.grace
		}
		e.hard = time.AfterFunc(d+grace, func() { close(e.expired) })
	})
	return ctx, cancel
}

// onEvent passes a resolver's or the chain's event to the progress line.
func (e *env) onEvent(ev resume.Event) {
	e.prog.event(ev)
}

// errTimedOut is the error of a command abandoned at its deadline.
var errTimedOut = errors.New("timed out")

type command struct {
	name, summary string
	// usage is the synopsis after "resumectl <name> "; a group's further
	// lines start with "resumectl <name> <sub> ".
	usage string
	run   func(e *env, args []string) error
}

const (
	demoUsage    = "[--keep DIR] [--timeout DUR]"
	versionUsage = "[--timeout DUR]"
	helpUsage    = "[COMMAND [SUBCOMMAND]] [--timeout DUR]"
)

func commands() []command {
	return []command{
		{"resolve", "choose the safest start position among checkpoints, Paimon consumers and Kafka offsets", resolveUsage, runResolve},
		{"flink", "list checkpoints and savepoints, inspect one _metadata, check it against the new job, read its source positions (flink list|inspect|compat|sources)", flinkUsage, runFlink},
		{"paimon", "Paimon consumers, snapshots and reset-consumer (paimon consumers|snapshots|reset-consumer)", paimonUsage, runPaimon},
		{"kafka", "Kafka start offsets from a group or a time (kafka offsets)", kafkaUsage, runKafka},
		{"timeline", "draw a stored decision document (resolve --json) as an HTML timeline of every candidate", timelineUsage, runTimeline},
		{"k8s", "the flink-kubernetes-operator merge patch of a stored decision document (k8s patch DECISION.json)", k8sUsage, runK8s},
		{"demo", "build the three restart situations locally and resolve each", demoUsage, runDemo},
		{"version", "print resumectl's version", versionUsage, runVersion},
		{"help", "print this help, or a command's (resumectl help resolve = resumectl resolve -h)", helpUsage, nil},
	}
}

// Main runs resumectl with args (without the program name) and returns the
// exit status. Help goes to stdout with status 0; usage errors go to stderr
// with status 2.
func Main(args []string, stdout, stderr io.Writer) int {
	return runHooked(args, stdout, stderr, nil)
}

// runHooked is Main with test hooks. Everything written goes through output
// (secrets masked, control characters escaped), and through the key rewriting
// of localPaths before it.
func runHooked(args []string, stdout, stderr io.Writer, h *hooks) int {
	red := redact.New(urlArgs(args)...)
	out, errOut := newOutput(stdout, red, 0), newOutput(stderr, red, maxErrLine)
	defer out.close()
	defer errOut.close()
	e := &env{hooks: h, red: red, expired: make(chan struct{})}
	term := isTerminal
	if h != nil && h.terminal != nil {
		term = h.terminal
	}
	e.stdoutTerm, e.stderrTerm = term(stdout), term(stderr)
	e.errOut, e.trace = errOut, newTracer()
	e.stdout = &pathWriter{w: out, e: e, stdout: true}
	e.stderr = &pathWriter{w: errOut, e: e}
	if len(args) == 0 {
		fmt.Fprintln(e.stderr, "resumectl: want a command")
		printUsage(e.stderr)
		return ExitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[0] == "help" {
			newFlags(e, "help", helpUsage) // for the synopsis of a usage error
			path, err := withoutTimeout(args[1:])
			if err != nil {
				return e.exitStatus(err)
			}
			if len(path) > 0 {
				// resumectl help flink list = resumectl flink list -h
				return runHooked(append(path, "-h"), stdout, stderr, h)
			}
		}
		printUsage(e.stdout)
		return ExitOK
	case "-version", "--version":
		args = append([]string{"version"}, args[1:]...)
	}
	for _, c := range commands() {
		if c.name != args[0] || c.run == nil {
			continue
		}
		rest := args[1:]
		if len(rest) > 0 && rest[0] == "help" {
			rest = append([]string{"-h"}, rest[1:]...)
		}
		done := make(chan error, 1)
		go func() {
			defer func() {
				if v := recover(); v != nil {
					done <- fmt.Errorf("internal error (panic): %v", v)
				}
			}()
			done <- c.run(e, rest)
		}()
		select {
		case err := <-done:
			if e.hard != nil {
				e.hard.Stop()
			}
			return e.exitStatus(err)
		case <-e.expired:
			// Do not wait for the command, nor for Bucket.Close behind
			// it: a blocked call holds the bucket.
			out.close()
			if w := e.trace.waiting(); w != "" {
				return e.exitStatus(fmt.Errorf("%s: %w after %s (--timeout): still waiting for %s", c.name, errTimedOut, e.timeout, w))
			}
			return e.exitStatus(fmt.Errorf("%s: %w after %s (--timeout): a call or the read of an input did not return (no storage call or Kafka request was waiting)", c.name, errTimedOut, e.timeout))
		}
	}
	fmt.Fprintf(e.stderr, "resumectl: unknown command %s (run resumectl help)\n", redact.Quote(args[0]))
	return ExitUsage
}

// withoutTimeout returns the arguments of "resumectl help" without
// --timeout DUR (-timeout, =DUR): help accepts it, as every command does, and
// ignores it, since it does no I/O; a value that is no duration is still a
// usage error.
func withoutTimeout(args []string) ([]string, error) {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, v, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "timeout" {
			out = append(out, a)
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				return nil, usagef("help: flag needs an argument: -timeout")
			}
			i++
			v = args[i]
		}
		if err := new(durationFlag).Set(v); err != nil {
			return nil, usagef("help: invalid value %s for flag -timeout: %v", redact.Quote(v), err)
		}
	}
	return out, nil
}

// printUsage prints the synopsis of every command and what the arguments
// mean.
func printUsage(w io.Writer) {
	fmt.Fprintln(w, "resumectl decides where a restarted Flink job should start reading, and why.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage:")
	for _, c := range commands() {
		for _, l := range synopsis(c.name, c.usage) {
			fmt.Fprintln(w, "  "+l)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Storage URLs: a local path, file:///dir, mem://, s3://bucket/path?region=&endpoint=, gs://bucket/path, azblob://container/path.")
	fmt.Fprintln(w, "Local paths are confined to the directory named (a chk-<n> dir to its job dir): links leading out are refused.")
	fmt.Fprintln(w, "TIME: RFC 3339, \"2026-11-29 10:00:00\" (UTC), unix milliseconds, or -15m (before now). DUR: 90m, 1h30m, 7d.")
	fmt.Fprintln(w, "Every command takes --timeout DUR (default 5m; 0: never) and ends at the deadline; version and help do no I/O and ignore it.")
	fmt.Fprintln(w, exitHelp)
	fmt.Fprintln(w, "Run 'resumectl COMMAND -h' for a command's flags.")
}

// synopsis turns a command's usage into whole lines, each starting with
// "resumectl": a group's lines name their subcommand, continuation lines are
// indented under the line they continue.
func synopsis(name, usage string) []string {
	var out []string
	for i, l := range strings.Split(usage, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case i == 0:
			out = append(out, strings.TrimSpace("resumectl "+name+" "+t))
		case strings.HasPrefix(t, "resumectl "):
			out = append(out, t)
		default:
			out = append(out, "    "+t)
		}
	}
	return out
}

// subUsage returns the usage of one subcommand of a group: the part after
// "<sub> " of the group usage's line for it, with its continuation lines
// ("" when there is none).
func subUsage(group, usage, sub string) string {
	var out []string
	for _, l := range synopsis(group, usage) {
		if len(out) > 0 {
			if !strings.HasPrefix(l, " ") {
				break
			}
			out = append(out, strings.TrimSpace(l))
			continue
		}
		if rest, ok := strings.CutPrefix(l, "resumectl "+group+" "+sub); ok && (rest == "" || rest[0] == ' ') {
			out = append(out, strings.TrimSpace(rest))
		}
	}
	return strings.Join(out, "\n")
}

func (e *env) exitStatus(err error) int {
	if err == nil || errors.Is(err, errHelp) {
		return ExitOK
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(e.stderr, "resumectl: %s\n", oneLine(ue.msg))
		if fs := e.flags; fs != nil {
			fs.printSynopsis(e.stderr)
			fmt.Fprintf(e.stderr, "Run 'resumectl %s -h' for every flag.\n", fs.Name())
		}
		return ExitUsage
	}
	var ee exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.Error() != "" {
			fmt.Fprintf(e.stderr, "resumectl: %s\n", oneLine(ee.Error()))
		}
		return ee.code
	}
	fmt.Fprintf(e.stderr, "resumectl: %s\n", oneLine(err.Error()))
	return ExitFailed
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// groupHelp prints the usage of a command with subcommands to stdout.
func groupHelp(e *env, group, usage string) error {
	for i, l := range synopsis(group, usage) {
		if i == 0 {
			fmt.Fprintln(e.stdout, "usage: "+l)
		} else {
			fmt.Fprintln(e.stdout, "       "+l)
		}
	}
	fmt.Fprintf(e.stdout, "\nRun 'resumectl %s SUBCOMMAND -h' for the flags of one.\n", group)
	return errHelp
}

// errHelp is returned after a command printed its help (exit status 0).
var errHelp = flag.ErrHelp

// flagSet is a command's flags with its usage: -h prints both to stdout, a
// usage error prints the usage to stderr.
type flagSet struct {
	*flag.FlagSet
	e     *env
	usage string // the synopsis after "resumectl <name> "
}

// newFlags returns the flag set of command name ("resolve", "flink list")
// whose usage line(s) follow "resumectl <name> ". Every flag it defines must
// appear in usage (TestUsageNamesEveryFlag).
func newFlags(e *env, name, usage string) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), e: e, usage: usage}
	// The flag package would print errors and the defaults to its output
	// itself: exitStatus reports errors once, and help goes to stdout.
	fs.SetOutput(io.Discard)
	fs.FlagSet.Usage = func() {}
	e.flags = fs
	return fs
}

// printSynopsis prints "usage: resumectl <name> <usage>".
func (fs *flagSet) printSynopsis(w io.Writer) {
	for i, l := range synopsis(fs.Name(), fs.usage) {
		if i == 0 {
			fmt.Fprintln(w, "usage: "+l)
		} else {
			fmt.Fprintln(w, "       "+l)
		}
	}
}

// printHelp prints the synopsis and every flag with its meaning and default.
func (fs *flagSet) printHelp(w io.Writer) {
	fs.printSynopsis(w)
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			fmt.Fprintln(w)
			fmt.Fprintln(w, "flags:")
			first = false
		}
		arg, usage := flag.UnquoteUsage(f)
		if m := synopsisArg(fs.usage, f.Name); m != "" && !strings.Contains(f.Usage, "`") {
			arg = m // the synopsis's name for the value: ID or text|json, not "string"
		}
		line := "  --" + f.Name
		if arg != "" {
			line += " " + arg
		}
		switch f.DefValue {
		case "", "0", "false", "0s":
		default:
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, usage)
	})
}

// synopsisArg returns the value the synopsis usage gives flag name: a name
// (--flink-job-id ID) or the values it takes (--format text|json|k8s); ""
// when it shows none.
func synopsisArg(usage, name string) string {
	for _, re := range []string{` ([A-Z][A-Z0-9_]*)\b`, ` ([a-z0-9_.-]+(?:\|[a-z0-9_.-]+)+)`} {
		if m := regexp.MustCompile(`--` + regexp.QuoteMeta(name) + re).FindStringSubmatch(usage); m != nil {
			return m[1]
		}
	}
	return ""
}

// parseFlags parses args, allowing flags after positional arguments (as
// people type them: "flink inspect DIR --json"), and returns the positionals.
// With -h or --help it prints the command's help to stdout and returns
// errHelp.
func parseFlags(fs *flagSet, args []string) ([]string, error) {
	var pos []string
	onlyOnce(fs.FlagSet) // a single-value flag given twice is a usage error
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.printHelp(fs.e.stdout)
				return nil, errHelp
			}
			return nil, usagef("%s: %v", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			fs.e.noteFormat(fs)
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// nameText escapes the line breaks of a name read from storage (a uid, an
// operator name, a consumer file's name) for the text writers: a name
// holding "\n" or "\r" cannot start a forged line of a report.
func nameText(s string) string {
	if !strings.ContainsAny(s, "\n\r") {
		return s
	}
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}
