package cli

import (
	"encoding/json"
	"io"

	"github.com/resumekit/resumekit/resume"
)

// writeReport prints the text report of a decision: resume.Decision.Explain,
// the one implementation a Go deploy tool prints too, wrapped at width (0:
// one fact per line).
func writeReport(w io.Writer, d *resume.Decision, width int) {
	io.WriteString(w, d.ExplainWidth(width))
}

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
