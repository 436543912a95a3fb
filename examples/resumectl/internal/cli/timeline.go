package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/resumekit/resumekit/examples/resumectl/internal/timeline"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

const timelineUsage = "DECISION.json|- [--timeout DUR]"

// maxDecisionDocument bounds a decision document read by resumectl timeline.
const maxDecisionDocument = 64 << 20

// runTimeline implements "resumectl timeline DECISION.json": the HTML
// timeline of a stored resumekit.decision/v1 document (what resolve --json
// prints; "-" reads standard input), as resolve --format html draws it.
func runTimeline(e *env, args []string) error {
	fs := newFlags(e, "timeline", timelineUsage)
	addTimeout(fs, DefaultTimeout) // accepted like every command's
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("timeline: want one decision document (DECISION.json, or - for standard input), got %d arguments", len(pos))
	}
	doc, err := readDocument(e, pos[0])
	if err != nil {
		return err
	}
	var d resume.Decision
	if err := d.UnmarshalJSON(doc); err != nil {
		return fmt.Errorf("timeline: %s: %w", displayName(pos[0]), err)
	}
	if err := timeline.Render(e.stdout, doc); err != nil {
		return fmt.Errorf("timeline: %s: %w", displayName(pos[0]), err)
	}
	return nil
}

// readDocument reads a stored document: a file, or standard input for "-".
// A missing file is exit 1, naming it.
func readDocument(e *env, name string) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = e.stdin()
	} else {
		f, err := os.Open(name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("decision document %s does not exist", displayName(name))
		}
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	doc, err := io.ReadAll(io.LimitReader(r, maxDecisionDocument+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", displayName(name), err)
	}
	if len(doc) > maxDecisionDocument {
		return nil, fmt.Errorf("decision document %s is larger than %d MiB", displayName(name), maxDecisionDocument>>20)
	}
	if strings.TrimSpace(string(doc)) == "" {
		return nil, fmt.Errorf("decision document %s is empty", displayName(name))
	}
	return doc, nil
}

func displayName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return redact.Quote(name)
}

// writeTimeline prints the HTML timeline of d (resolve --format html).
func writeTimeline(w io.Writer, d *resume.Decision) error {
	return timeline.RenderDecision(w, d)
}
