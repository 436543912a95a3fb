package flinkckpt

import (
	"strings"
	"testing"
)

func TestCanonicalURI(t *testing.T) {
	dfs := defaultFS{scheme: "hdfs", authority: "ns"}
	for _, tc := range []struct{ in, want string }{
		{"file:/data/ck/j/shared/a", "file:///data/ck/j/shared/a"},
		{"file:///data/ck", "file:///data/ck"},
		{"file://localhost/data/ck", "file:///data/ck"},
		{"FILE:/data", "file:///data"},
		{"hdfs:/flink/ck", "hdfs://ns/flink/ck"},
		{"hdfs:///flink/ck", "hdfs://ns/flink/ck"},
		{"hdfs://other/flink/ck", "hdfs://other/flink/ck"},
		{"s3a://bucket/ck", "s3a://bucket/ck"},
		{"s3a:/ck", "s3a:///ck"},
		{"relative/path", "relative/path"},
		{"mailto:x", "mailto:x"},
		{"1abc:/x", "1abc:/x"},
		{"", ""},
	} {
		if got := canonicalURI(tc.in, dfs); got != tc.want {
			t.Errorf("canonicalURI(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := canonicalURI("hdfs:/flink", defaultFS{}); got != "hdfs:///flink" {
		t.Errorf("without a default FS: %q", got)
	}
}

// FuzzCanonicalURI: canonicalURI never panics, is idempotent, and keeps
// the path: a URI it changes still ends with what followed its scheme's
// slashes.
func FuzzCanonicalURI(f *testing.F) {
	for _, s := range []string{"file:/data/ck", "hdfs:///flink", "file://localhost/x", "s3a://b/k", "x:y", ":/", "a:", "FILE:/A"} {
		f.Add(s, "hdfs://ns")
	}
	f.Fuzz(func(t *testing.T, u, dfsRaw string) {
		dfs, err := parseDefaultFS(dfsRaw)
		if err != nil {
			dfs = defaultFS{}
		}
		c := canonicalURI(u, dfs)
		if again := canonicalURI(c, dfs); again != c {
			t.Fatalf("not idempotent: %q → %q → %q", u, c, again)
		}
		if c != u {
			i := strings.IndexByte(u, ':')
			rest := strings.TrimLeft(u[i+1:], "/")
			if strings.HasPrefix(strings.ToLower(u[i+1:]), "//localhost/") && strings.EqualFold(u[:i], "file") {
				rest = strings.TrimLeft(u[i+1+len("//localhost"):], "/")
			}
			if !strings.HasSuffix(c, rest) {
				t.Fatalf("%q → %q lost the path %q", u, c, rest)
			}
		}
	})
}

// TestAnchorOnlyLayoutShaped (issue 22 item 1): a reference anchors the
// snapshot's root only where it is shaped like the snapshot's own layout.
func TestAnchorOnlyLayoutShaped(t *testing.T) {
	const job = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1"
	other := "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2"
	dir := "ck/" + job + "/chk-7/"
	for _, tc := range []struct {
		uri  string
		want *mapping
	}{
		{"s3a://b/ck/" + job + "/shared/x", &mapping{root: "s3a://b/"}},
		{"s3a://b/ck/" + job + "/taskowned/x", &mapping{root: "s3a://b/"}},
		{"s3a://b/ck/" + job + "/chk-7/x", &mapping{root: "s3a://b/"}},
		{"s3a://b/ck/" + job + "/chk-5/x", &mapping{root: "s3a://b/"}},
		{"s3a://b/ck/" + other + "/shared/x", &mapping{root: "s3a://b/"}},
		{"s3a://b/Xa1/ck/" + job + "/shared/x", &mapping{root: "s3a://b/Xa1/"}},
		{"s3a://b/old/" + job + "/shared/x", &mapping{root: "s3a://b/old/", keyPrefix: "ck/"}}, // a copy reading
		{"s3a://b/dstl/" + job + "/dstl/0a1b", nil},
		{"s3a://b/ck/" + job + "/dstl/0a1b", nil},
		{"s3a://b/ck/" + job + "/chk-x/y", nil},
		{"s3a://b/ck/" + job + "/sharedx", nil},
		{"s3a://b/ck/" + job, nil},
	} {
		got := anchor(dir, tc.uri)
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("anchor(%q) = %+v, want %+v", tc.uri, got, tc.want)
		}
	}
	// Without job dirs (create-subdir false): shared/ under the root.
	if got := anchor("ck/chk-7/", "s3a://b/ck/shared/x"); got == nil || got.root != "s3a://b/" {
		t.Errorf("no job dirs: %+v", got)
	}
}
