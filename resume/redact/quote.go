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

// KeyLimit is the longest storage key QuoteKey shows whole: 1024 bytes, the
// longest object key S3, Google Cloud Storage and Azure Blob Storage accept.
const KeyLimit = 1024

// QuoteKey quotes a storage key, key prefix or local path for an error
// message: whole (Go-quoted) up to KeyLimit bytes, so that every key a store
// can hold is named in full, and like Quote beyond, since a longer one is no
// key at all but hostile or mistaken input.
//
// QuoteKey masks no secret: for URLs, use URL first.
func QuoteKey(s string) string {
	if len(s) <= KeyLimit {
		return strconv.Quote(s)
	}
	return Quote(s)
}
