// Package cli implements resumectl's commands. main stays thin so that the
// end-to-end tests can run every command in-process as well as through the
// built binary.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit statuses, as DESIGN.md specifies; resolve takes them from
// resume.Classify (resume.Result.ExitCode), so that a Go deploy tool branches
// the same way.
const (
	ExitOK      = 0 // a position was chosen and nothing failed
	ExitFailed  = 1 // something failed (a document is still printed where there is one)
	ExitUsage   = 2 // bad flags or arguments
	ExitNothing = 3 // nothing acceptable
)

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
}

type command struct {
	name, summary string
	run           func(e *env, args []string) error
}

func commands() []command {
	return []command{
		{"resolve", "choose the safest start position among checkpoints, Paimon consumers and Kafka offsets", runResolve},
		{"flink", "list checkpoints and savepoints, inspect one _metadata, check it against the new job, read its source positions (flink list|inspect|compat|sources)", runFlink},
		{"paimon", "Paimon consumers, snapshots and reset-consumer (paimon consumers|snapshots|reset-consumer)", runPaimon},
		{"kafka", "Kafka start offsets from a group or a time (kafka offsets)", runKafka},
		{"demo", "build the three restart situations locally and resolve each", runDemo},
	}
}

// Main runs resumectl with args (without the program name) and returns the
// exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return exitStatus(stderr, c.run(e, args[1:]))
		}
	}
	fmt.Fprintf(stderr, "resumectl: unknown command %q (run resumectl help)\n", args[0])
	return ExitUsage
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: resumectl <command> [flags]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Storage URLs: a local path, file:///dir, mem://, s3://bucket/path?region=&endpoint=, gs://bucket/path, azblob://container/path.")
	fmt.Fprintln(w, "Exit status: 0 chosen, 1 something failed, 2 usage, 3 nothing acceptable.")
}

func exitStatus(stderr io.Writer, err error) int {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "resumectl: %s\n", redact(ue.msg))
		return ExitUsage
	}
	var ee exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.Error() != "" {
			fmt.Fprintf(stderr, "resumectl: %s\n", oneLine(redact(ee.Error())))
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "resumectl: %s\n", oneLine(redact(err.Error())))
	return ExitFailed
}

// newFlags returns a flag set that reports errors as usage errors instead of
// exiting.
func newFlags(e *env, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: resumectl %s %s\n", name, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, allowing flags after positional arguments (as
// people type them: "flink inspect DIR --json"), and returns the positionals.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%s: %v", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}
