package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

const k8sUsage = `patch DECISION.json [--k8s-nonce N] [--fail-on-warning CODE[,CODE]] [--timeout DUR]`

// maxDecisionSize bounds a stored decision document read by k8s patch.
const maxDecisionSize = 64 << 20

// runK8s runs resumectl k8s patch: the merge patch of a stored
// resumekit.decision/v1 document (resolve --json), so that a gate resolves
// once and patches from the record it kept. The exit statuses are
// resolve's: 0 the patch is printed; 1, 3, 4, 5 the document chose nothing
// (as resolve exited); 6 its choice is stateless; 7 --fail-on-warning.
func runK8s(e *env, args []string) error {
	if len(args) == 0 || args[0] != "patch" {
		if len(args) > 0 && isHelp(args[0]) {
			return groupHelp(e, "k8s", k8sUsage)
		}
		return usagef("k8s: want a subcommand: resumectl k8s %s", k8sUsage)
	}
	fs := newFlags(e, "k8s patch", subUsage("k8s", k8sUsage, "patch"))
	var nonce int64
	var failOn string
	fs.Int64Var(&nonce, "k8s-nonce", 0, "savepointRedeployNonce (default: derived from the chosen position, the same as resolve --format k8s gave)")
	fs.StringVar(&failOn, "fail-on-warning", "", "exit 7 without a patch when the chosen candidate carries one of these warning codes (`CODE[,CODE]`)")
	timeout := addTimeout(fs, DefaultTimeout)
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	if err := checkWarningCodes("k8s patch", failOn); err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("k8s patch: want one decision document (a file written by resolve --json, or - for standard input), got %d arguments", len(pos))
	}
	ctx, cancel := e.context(timeout.d)
	defer cancel()
	_ = ctx // the read below is local; Main ends the command at the deadline
	var in io.Reader
	name := pos[0]
	if name == "-" {
		in, name = e.stdin(), "standard input"
	} else {
		fi, err := os.Stat(name)
		if err != nil {
			return fmt.Errorf("k8s patch: %w", err)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("k8s patch: %s is not a regular file", redact.Quote(name))
		}
		file, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("k8s patch: %w", err)
		}
		defer file.Close()
		in = file
	}
	data, err := io.ReadAll(io.LimitReader(in, maxDecisionSize+1))
	if err != nil {
		return fmt.Errorf("k8s patch: read %s: %w", name, err)
	}
	if len(data) > maxDecisionSize {
		return fmt.Errorf("k8s patch: %s is larger than %d bytes: not a decision document", name, maxDecisionSize)
	}
	var d resume.Decision
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&d); err != nil {
		return fmt.Errorf("k8s patch: %s: not a resumekit.decision/v1 document: %w", name, err)
	}
	code, why := decisionExit(&d, resume.Classify(&d, nil), nil, splitComma(failOn))
	if code != ExitOK {
		return withExit(code, fmt.Errorf("k8s patch: %s: %w", name, why))
	}
	return writeK8sPatch(e, &d, nonce)
}
