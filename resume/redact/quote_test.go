package redact_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/resume/redact"
)

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"orders", `"orders"`},
		{"\x1b[31mred", `"\x1b[31mred"`},
		{strings.Repeat("a", 64), `"` + strings.Repeat("a", 64) + `"`},
		{strings.Repeat("a", 65), `"` + strings.Repeat("a", 64) + `"… (65 bytes)`},
		// A rune across byte 64 is not cut in half.
		{strings.Repeat("a", 63) + "é" + "z", `"` + strings.Repeat("a", 63) + `"… (66 bytes)`},
		{strings.Repeat("x", 1<<20), `"` + strings.Repeat("x", 64) + `"… (1048576 bytes)`},
	} {
		if got := redact.Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%.20q…) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func ExampleQuote() {
	fmt.Println(redact.Quote("orders\x1b[2J"))
	fmt.Println(redact.Quote(strings.Repeat("t", 100)))
	// Output:
	// "orders\x1b[2J"
	// "tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt"… (100 bytes)
}

func TestQuoteKey(t *testing.T) {
	long := strings.Repeat("k/", 512) // 1024 bytes: a key S3 accepts
	for _, tc := range []struct{ in, want string }{
		{"ck/job/chk-7/_metadata", `"ck/job/chk-7/_metadata"`},
		{"consumer/consumer-\x1b[2J", `"consumer/consumer-\x1b[2J"`},
		{long, `"` + long + `"`},
		{long + "x", `"` + long[:64] + `"… (1025 bytes)`},
		{strings.Repeat("x", 1<<20), `"` + strings.Repeat("x", 64) + `"… (1048576 bytes)`},
	} {
		if got := redact.QuoteKey(tc.in); got != tc.want {
			t.Errorf("QuoteKey(%.20q…) = %.80s, want %.80s", tc.in, got, tc.want)
		}
	}
}
