package cli

import (
	"context"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"s3://AKIA:secret@bucket/ck", "s3://REDACTED@bucket/ck"},
		{"s3://b/ck?region=eu&endpoint=http://h:9000&secret_access_key=xyz", "s3://b/ck?region=eu&endpoint=http://h:9000&secret_access_key=REDACTED"},
		{"azblob://c/p?sig=abc&sv=1", "azblob://c/p?sig=REDACTED&sv=1"},
		{"file:///data/ck", "file:///data/ck"},
	} {
		if got := redact(tc.in); got != tc.want {
			t.Errorf("redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestOpenLocation(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, raw := range []string{dir, "file://" + dir} {
		l, err := openLocation(ctx, raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if err := l.Bucket.WriteAll(ctx, l.Prefix+"x", []byte("1"), nil); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(l.Prefix, "/") || l.Local != dir {
			t.Errorf("%s: prefix %q local %q", raw, l.Prefix, l.Local)
		}
		l.Close()
	}
	l, err := openLocation(ctx, "mem://")
	if err != nil || l.Prefix != "" {
		t.Fatalf("mem://: %v %q", err, l.Prefix)
	}
	l.Close()
	_, err = openLocation(ctx, "nosuch://user:pw@b/x")
	if err == nil || strings.Contains(err.Error(), "pw") {
		t.Errorf("unknown scheme: err %v (must fail without the password)", err)
	}
}
