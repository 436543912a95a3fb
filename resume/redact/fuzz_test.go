package redact_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/resume/redact"
)

// plantable reports whether a fuzzed secret can be told apart in a URL at
// all: a value with white space, a quote, "&", "?" or "#" in it, raw, is
// ambiguous to any URL parser (the SDK's included).
func plantable(s string) bool {
	return len(s) >= 4 && !strings.ContainsAny(s, " \t\r\n\"'`<>\\&?#;=:") && !strings.Contains(s, "://") && strings.ToValidUTF8(s, "") == s
}

// FuzzURL plants fuzzed secrets as a password and as a token value in a URL
// and in an error message quoting it: they never come out; Text is
// idempotent and never panics.
func FuzzURL(f *testing.F) {
	f.Add("AKIA", "wJalr/XUtnF@EMI", "x/y@z", "s3")
	f.Add("u", "p@ss/w0rd", "tok", "gs")
	f.Add("", "", "", "")
	f.Fuzz(func(t *testing.T, user, pass, tok, scheme string) {
		raw := scheme + "://" + user + ":" + pass + "@bucket/wh?region=eu&token=" + tok
		msg := `open bucket "` + raw + `": failed`
		if !plantable(scheme+"x") || !plantable(user+"xxxx") || strings.ContainsAny(user, "/@") {
			return // a raw "/" or "@" in a user name makes it no user name for any parser
		}
		// What may be printed: the scheme, the mask and the fixed parts.
		public := scheme + "://" + redact.Mask + `@bucket/wh?region=eu&token=` + redact.Mask + `open bucket "": failed`
		for _, sec := range []string{pass, tok} {
			if !plantable(sec) || strings.Contains(public, sec) || strings.Contains(user, sec) ||
				(!plantable(pass) && strings.Contains(pass, sec)) || (!plantable(tok) && strings.Contains(tok, sec)) {
				continue // nothing to tell it apart from what may be printed
			}
			outs := []string{redact.URL(raw)}
			if plantable(pass) && plantable(tok) {
				// In free text a URL ends at white space or a quote.
				outs = append(outs, redact.Text(msg))
			}
			for _, got := range outs {
				if strings.Contains(got, sec) {
					t.Fatalf("secret %q leaks from %q: %q", sec, raw, got)
				}
			}
			if len(sec) >= redact.MinKnownSecret {
				// Known secrets are masked outside URLs too.
				if got := redact.New(raw).String(msg + " " + sec); strings.Contains(got, sec) {
					t.Fatalf("known secret %q leaks: %q", sec, got)
				}
			}
		}
		once := redact.Text(msg)
		if redact.Text(once) != once {
			t.Fatalf("Text is not idempotent on %q", msg)
		}
	})
}

// FuzzText: any text, no panic, idempotent.
func FuzzText(f *testing.F) {
	f.Add(`parse "s3://a:b/c@d/e?token=f&g=h": invalid port`)
	f.Add("?key=&&;sig=x://y@z?")
	f.Fuzz(func(t *testing.T, s string) {
		once := redact.Text(s)
		if redact.Text(once) != once {
			t.Fatalf("Text(%q) = %q is not stable", s, once)
		}
	})
}

// FuzzSecretPlacement plants a fuzzed secret in each place a storage URL
// carries one — the password, a secret-named query value, the password and
// a query value of a URL given as a query value (an S3 endpoint), raw and
// percent-encoded — around a fuzzed scheme, host and path, and checks that
// URL, Text and a Redactor of the URL never print it.
func FuzzSecretPlacement(f *testing.F) {
	f.Add("s3", "bucket", "wh/db.db/t", "token", "wJalrXUt/nFEMI@K7MDENG/bPxRfiCY", uint8(0))
	f.Add("s3", "bucket", "p", "X-Amz-Signature", "x/y@z00", uint8(1))
	f.Add("s3", "b", "p", "token", "pw@h0st/x", uint8(2))
	f.Add("s3", "b", "p", "token", "pw@h0st/x", uint8(3))
	f.Add("mem", "", "", "token", "a@bcd/efg", uint8(4))
	f.Add("000", "0", "", "token", "@00/", uint8(1))
	f.Fuzz(func(t *testing.T, scheme, host, path, name, sec string, where uint8) {
		if !plantable(scheme+"x") || !plantable(sec) || !redact.IsSecretParam(name) || !plantable(name+"xxxx") ||
			strings.ContainsAny(name, "/@%+") || strings.ContainsAny(host+path, " \t\r\n\"'`<>\\&?#;=%") ||
			strings.Contains(host+path, "://") || strings.ToValidUTF8(host+path, "") != host+path {
			return
		}
		build := func(sec string) string {
			auth, query := host, "region=eu"
			switch where % 5 {
			case 0:
				auth = "AKIA:" + sec + "@" + host
			case 1:
				query += "&" + name + "=" + sec
			case 2:
				query += "&endpoint=http://u:" + sec + "@127.0.0.1:9000"
			case 3:
				query += "&endpoint=" + url.QueryEscape("http://u:"+sec+"@127.0.0.1:9000")
			case 4:
				query += "&endpoint=http://127.0.0.1:9000/x?" + name + "=" + sec
			}
			return scheme + "://" + auth + "/" + path + "?" + query
		}
		raw := build(sec)
		// What may be printed: the URL around the secret, and the mask.
		public := build(redact.Mask) + build("") + "open : failed"
		forms := []string{sec, url.QueryEscape(sec)}
		for _, form := range forms {
			if strings.Contains(public, form) || strings.Contains(url.QueryEscape(public), form) {
				return // nothing to tell it apart from what may be printed
			}
		}
		outs := []string{redact.URL(raw), redact.Text("open " + raw + ": failed")}
		// A URL in the query with user information is refused, and the
		// refusal quotes none of it.
		nestedErr := redact.CheckNested(raw)
		if where%5 == 2 || where%5 == 3 {
			if nestedErr == nil {
				t.Fatalf("CheckNested(%q) accepted an endpoint with user information", raw)
			}
		}
		if nestedErr != nil {
			outs = append(outs, nestedErr.Error())
		}
		if len(sec) >= redact.MinKnownSecret {
			outs = append(outs, redact.New(raw).String("open "+raw+": failed; "+sec))
		}
		for _, got := range outs {
			for _, form := range forms {
				if strings.Contains(got, form) {
					t.Fatalf("secret %q leaks from %q: %q", form, raw, got)
				}
			}
		}
	})
}
