package redact_test

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/resume/redact"
)

// secret has the characters a regular expression over URLs trips on.
const secret = "wJalrXUt/nFEMI@K7MDENG/bPxRfiCY"

func TestURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"s3://bucket/path?region=eu-west-1", "s3://bucket/path?region=eu-west-1"},
		{"s3://AKIA:" + secret + "@bucket/wh", "s3://REDACTED@bucket/wh"},
		{"s3://AKIA:" + url.QueryEscape(secret) + "@bucket/wh", "s3://REDACTED@bucket/wh"},
		{"s3://bucket/wh?region=eu&token=" + secret + "&x=1", "s3://bucket/wh?region=eu&token=REDACTED&x=1"},
		{"s3://u:p@bucket/wh?Secret_Access_Key=" + secret, "s3://REDACTED@bucket/wh?Secret_Access_Key=REDACTED"},
		{"azblob://c/p?sv=2020&SAS=" + secret + "#frag", "azblob://c/p?sv=2020&SAS=REDACTED#frag"},
		{"https://h/o?X-Amz-Signature=" + secret + ";X-Amz-Credential=" + secret, "https://h/o?X-Amz-Signature=REDACTED;X-Amz-Credential=REDACTED"},
		{"gs://b/p?private_key_path=/k.json&access_id=me", "gs://b/p?private_key_path=REDACTED&access_id=me"},
		{"file:///data/wh", "file:///data/wh"},
		{"/data/wh/db.db/t", "/data/wh/db.db/t"},
		{"s3://bucket/path@v1/x", "s3://REDACTED@v1/x"}, // over-masking is the safe side
	} {
		if got := redact.URL(c.in); got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`open "s3://AKIA:` + secret + `@b/p": invalid port`, `open "s3://REDACTED@b/p": invalid port`},
		{`parse "s3://b/p?token=` + secret + `": bad`, `parse "s3://b/p?token=REDACTED": bad`},
		{"GET /b/k?X-Amz-Signature=" + secret + " HTTP/1.1", "GET /b/k?X-Amz-Signature=REDACTED HTTP/1.1"},
		{"a ?key=v1 & b", "a ?key=REDACTED & b"},
		{"no urls here: consumer-job", "no urls here: consumer-job"},
		{"two s3://u:p@a/x and gs://v:q@b/y", "two s3://REDACTED@a/x and gs://REDACTED@b/y"},
	} {
		if got := redact.Text(c.in); got != c.want {
			t.Errorf("Text(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestRedactorKnownSecrets: secrets of a URL are masked in every form an
// error may quote them, even outside any URL.
func TestRedactorKnownSecrets(t *testing.T) {
	raw := "s3://AKIAEXAMPLE1:" + url.PathEscape(secret) + "@bucket/wh?token=" + url.QueryEscape(secret+"&<tok>")
	r := redact.New(raw)
	for _, text := range []string{
		"the SDK said: " + secret,
		fmt.Sprintf("quoted %q", secret),
		`json "` + strings.ReplaceAll(secret, "/", `\/`) + `"`,
		"decoded " + secret + "&<tok>",
		`json \u0026 "` + secret + `\u0026\u003ctok\u003e"`,
		"user AKIAEXAMPLE1 denied",
	} {
		got := r.String(text)
		for _, leak := range []string{"wJalrXUt", "nFEMI", "K7MDENG", "bPxRfiCY", "AKIAEXAMPLE1"} {
			if strings.Contains(got, leak) {
				t.Errorf("String(%q) = %q leaks %q", text, got, leak)
			}
		}
	}
	err := r.Error(fmt.Errorf("open %s: %w", raw, fs.ErrNotExist))
	if !errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "nFEMI") {
		t.Errorf("Error: %v (Is ErrNotExist %v)", err, errors.Is(err, fs.ErrNotExist))
	}
	if redact.New().Error(nil) != nil {
		t.Error("Error(nil) is not nil")
	}
}

func TestIsSecretParam(t *testing.T) {
	for name, want := range map[string]bool{
		"secret": true, "AWS_SECRET_ACCESS_KEY": true, "token": true, "Password": true, "credential": true,
		"X-Amz-Signature": true, "sas_token": true, "sig": true, "region": false, "endpoint": false, "use_path_style": false,
	} {
		if got := redact.IsSecretParam(name); got != want {
			t.Errorf("IsSecretParam(%q) = %v", name, got)
		}
	}
}

func Example() {
	fmt.Println(redact.URL("s3://AKIA:wJalr/XUtnF@EMI@bucket/wh?region=eu&token=x/y@z"))
	r := redact.New("s3://bucket/wh?secret=s3cr3t/v@lue")
	fmt.Println(r.String("the SDK said: access denied for s3cr3t/v@lue"))
	// Output:
	// s3://REDACTED@bucket/wh?region=eu&token=REDACTED
	// the SDK said: access denied for REDACTED
}

func TestParseError(t *testing.T) {
	raw := "s3://AKIA:" + secret + "@bucket/p"
	_, err := url.Parse(raw)
	got := redact.ParseError(err)
	var ue *url.Error
	if strings.Contains(got.Error(), "wJalr") || !errors.As(got, &ue) || got.Error() != "invalid port after host" {
		t.Errorf("ParseError = %q", got)
	}
	plain := errors.New("x")
	if redact.ParseError(plain) != plain {
		t.Error("ParseError changed a non-URL error")
	}
}

// TestURLPasswordWithQuestionMark: a raw "?" in a password ends the
// authority for URL parsers; the password is masked all the same (found by
// FuzzURL).
func TestURLPasswordWithQuestionMark(t *testing.T) {
	for in, want := range map[string]string{
		"s3://AKIA:wJal?rXUt@bucket/wh?region=eu&token=x@y": "s3://" + redact.Mask + "@bucket/wh?region=eu&token=" + redact.Mask,
		"s3://AKIA:?@bucket/wh":                             "s3://" + redact.Mask + "@bucket/wh",
		"s3://AKIA:pa/ss?word@bucket/wh?region=eu":          "s3://" + redact.Mask + "@bucket/wh?region=eu", // a "/" before the "?"
		"http://host:8080/p?email=a@b.example":              "http://host:8080/p?email=a@b.example",
		"s3://bucket?token=a@b.example":                     "s3://bucket?token=" + redact.Mask, // an e-mail in a value is no user information
	} {
		if got := redact.URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestURLInAQueryValue: a URL given as a query value (an S3 endpoint) has
// its own credentials, raw or percent-encoded; and a query value with an
// "@host/" in it, on a URL without a host, is masked whole (it leaked its
// part after the "@" before).
func TestURLInAQueryValue(t *testing.T) {
	for in, want := range map[string]string{
		"s3://b/p?endpoint=http://u:" + secret + "@127.0.0.1:9000&region=x":            "s3://b/p?endpoint=http://" + redact.Mask + "@127.0.0.1:9000&region=x",
		"s3://b/p?endpoint=" + url.QueryEscape("http://u:"+secret+"@h/") + "&region=x": "s3://b/p?endpoint=" + redact.Mask + "&region=x",
		"s3://b/p?endpoint=http://h:9000/x?token=" + secret:                            "s3://b/p?endpoint=http://h:9000/x?token=" + redact.Mask,
		"s3://b/p?endpoint=http%3A%2F%2F127.0.0.1%3A9000":                              "s3://b/p?endpoint=http%3A%2F%2F127.0.0.1%3A9000", // nothing secret in it
		"mem://?token=" + secret:                     "mem://" + redact.Mask,
		"s3://b?endpoint=http://u:" + secret + "@h/": "s3://" + redact.Mask + "@h/",
	} {
		if got := redact.URL(in); got != want {
			t.Errorf("URL(%q)\n = %q\nwant %q", in, got, want)
		}
		if got := redact.Text("open " + in + ": failed"); strings.Contains(got, "nFEMI") {
			t.Errorf("Text leaks: %q", got)
		}
	}
	got := redact.Secrets("s3://b/p?endpoint=http://u:" + secret + "@127.0.0.1:9000")
	if !slices.Contains(got, secret) || !slices.Contains(got, "u") {
		t.Errorf("Secrets = %q, want the endpoint's password and user", got)
	}
}

// TestCheckNested: a URL in a query value with user information (raw,
// percent-encoded, with a raw "/" in the password) or that does not parse is
// refused without quoting the password; endpoints without credentials and
// URLs without any are fine.
func TestCheckNested(t *testing.T) {
	for _, ok := range []string{
		"s3://b/p?endpoint=http://127.0.0.1:9000&region=x",
		"s3://b/p?endpoint=" + url.QueryEscape("https://minio.local:9000/") + "&region=x",
		"s3://AKIA:" + secret + "@b/p?region=x", // the URL's own user information is not nested
		"gs://b/p", "/data/wh", "mem://",
	} {
		if err := redact.CheckNested(ok); err != nil {
			t.Errorf("CheckNested(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{
		"s3://b/p?endpoint=http://u:pw0rd1234@127.0.0.1:9000&region=x",
		"s3://b/p?region=x&endpoint=" + url.QueryEscape("http://u:"+secret+"@127.0.0.1:9000"),
		"s3://b/p?endpoint=http://u:" + secret + "@127.0.0.1:9000",
		"s3://b/p?endpoint=http://u:pw0rd1234/@127.0.0.1:9000", // net/url: host u:pw0rd1234, path /@127.0.0.1:9000
	} {
		err := redact.CheckNested(bad)
		if err == nil {
			t.Errorf("CheckNested(%q) accepted it", bad)
			continue
		}
		if strings.Contains(err.Error(), "pw0rd1234") || strings.Contains(err.Error(), "nFEMI") || strings.Contains(err.Error(), "wJalr") {
			t.Errorf("CheckNested(%q) quotes the password: %v", bad, err)
		}
		var ue *url.Error
		if !errors.Is(err, redact.ErrNestedCredentials) && !errors.As(err, &ue) {
			t.Errorf("CheckNested(%q): %v, want ErrNestedCredentials or a *url.Error", bad, err)
		}
	}
}

// TestRedactorMasksPartsAParserQuotes: an SDK that parses an endpoint with a
// password holding a raw "/" quotes the part before it ("invalid port
// \":wJalrXUt\" after host"); a Redactor masks every such part of a known
// secret, not only the whole.
func TestRedactorMasksPartsAParserQuotes(t *testing.T) {
	raw := "s3://b/p?endpoint=http://u:" + secret + "@127.0.0.1:1"
	_, perr := url.Parse("http://u:" + secret + "@127.0.0.1:1")
	r := redact.New(raw)
	for _, msg := range []string{
		`failed to parse endpoint URL: parse "http://REDACTED@127.0.0.1:1": ` + perr.(*url.Error).Err.Error(),
		"suffix K7MDENG/bPxRfiCY and bPxRfiCY@127 and nFEMI@K7MDENG",
	} {
		got := r.String(msg)
		for _, part := range []string{"wJalrXUt", "K7MDENG", "bPxRfiCY"} {
			if strings.Contains(got, part) {
				t.Errorf("String(%q) = %q leaks %q", msg, got, part)
			}
		}
	}
}

// TestRedactorMasksOverlappingSecrets: two known secrets that overlap in the
// text are masked as one, with no tail of either left.
func TestRedactorMasksOverlappingSecrets(t *testing.T) {
	r := redact.New("s3://b/p?token=12345678&secret=345678901234")
	if got := r.String("x 1234567890123456 y"); got != "x "+redact.Mask+"56 y" {
		t.Errorf("String = %q", got)
	}
}

// TestListParamsAreNoSecrets: an S3 error quoting a ListObjectsV2 URL keeps
// max-keys and the cursor readable (they are limits, not secrets), and
// still masks a real secret beside them.
func TestListParamsAreNoSecrets(t *testing.T) {
	in := "GET https://b.s3.amazonaws.com/?list-type=2&max-keys=1000&prefix=ck%2F&continuation-token=abc&X-Amz-Signature=s3cr3tvalue"
	want := "GET https://b.s3.amazonaws.com/?list-type=2&max-keys=1000&prefix=ck%2F&continuation-token=abc&X-Amz-Signature=REDACTED"
	if got := redact.URL(strings.TrimPrefix(in, "GET ")); "GET "+got != want {
		t.Errorf("URL = %s\nwant  %s", got, strings.TrimPrefix(want, "GET "))
	}
	for _, name := range []string{"max-keys", "Max-Keys", "key-marker", "continuation-token", "pageToken"} {
		if redact.IsSecretParam(name) {
			t.Errorf("IsSecretParam(%q) = true", name)
		}
	}
	for _, name := range []string{"key", "access_key", "X-Amz-Security-Token", "sig", "private_key_path"} {
		if !redact.IsSecretParam(name) {
			t.Errorf("IsSecretParam(%q) = false", name)
		}
	}
}

// AddSecrets registers values that are no URL (a DSN's parsed password):
// masked from then on, while other goroutines print (go test -race).
func TestAddSecrets(t *testing.T) {
	r := redact.New()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			_ = r.String("password hunter2hunter2 in a driver error")
		}
	}()
	r.AddSecrets("hunter2hunter2")
	<-done
	if got := r.String(`dial "root:hunter2hunter2" refused`); strings.Contains(got, "hunter2hunter2") {
		t.Errorf("not masked: %s", got)
	}
}
