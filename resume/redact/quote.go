package redact

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// QuoteLimit is how many bytes of its input Quote shows at the most.
const QuoteLimit = 64

// Quote quotes hostile input for an error message: Go-quoted, so control
// characters and terminal escape sequences print escaped, and cut to
// QuoteLimit bytes (at a rune boundary) with the full length said, so that
// a megabyte-long topic name or id gives a short error.
//
// Quote masks no secret: it is for names and ids, not for URLs (use URL).
func Quote(s string) string {
	if len(s) <= QuoteLimit {
		return strconv.Quote(s)
	}
	cut := QuoteLimit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}
