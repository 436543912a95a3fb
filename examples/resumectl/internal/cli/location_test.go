package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenLocation(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, raw := range []string{dir, "file://" + dir, "file://localhost" + dir, "FILE://" + dir, "file:" + dir} {
		l, err := openLocation(ctx, nil, raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if err := l.Bucket.WriteAll(ctx, l.Prefix+"x", []byte("1"), nil); err != nil {
			t.Fatal(err)
		}
		if l.Prefix != "" || l.Root != dir || l.Display != dir {
			t.Errorf("%s: prefix %q root %q display %q", raw, l.Prefix, l.Root, l.Display)
		}
		l.Close(ctx)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err != nil {
		t.Errorf("the write did not land in the directory: %v", err)
	}
	// A chk-<n> dir opened for Flink is confined to its job dir.
	chk := filepath.Join(dir, "job", "chk-7")
	if err := os.MkdirAll(chk, 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := openLocationAt(ctx, nil, chk, true)
	if err != nil || l.Prefix != "chk-7/" || l.Root != filepath.Dir(chk) {
		t.Fatalf("chk dir: %+v, %v", l, err)
	}
	l.Close(ctx)
	l, err = openLocation(ctx, nil, "mem://")
	if err != nil || l.Prefix != "" {
		t.Fatalf("mem://: %v %q", err, l.Prefix)
	}
	l.Close(ctx)
	for _, raw := range []string{"nosuch://user:pw-K7MDENG@b/x", "file://host/data", "file://u:pw-K7MDENG@localhost/data", "s3://AKIA:pw-K7MDENG/x@b/ck",
		"file://" + dir + "?token=pw-K7MDENG", "s3://b/ck?endpoint=http://u:pw-K7MDENG@127.0.0.1:1"} {
		_, err = openLocation(ctx, nil, raw)
		if err == nil || strings.Contains(err.Error(), "K7MDENG") {
			t.Errorf("%s: err %v (must fail without the password)", raw, err)
		}
	}
}

// TestDemoKeepTakesALocalDirectory: demo --keep with a storage URL is a usage
// error; it used to build the demo under a local directory named after the
// URL (s3:/AKIA:…@b/x), credentials and all.
func TestDemoKeepTakesALocalDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, keep := range []string{"s3://AKIA:pw-K7MDENG@b/x", "file://nas/demo"} {
		code, out, errs := runPaimonCLI("demo", "--keep", keep)
		if code != ExitUsage || out != "" || strings.Contains(errs, "K7MDENG") {
			t.Errorf("--keep %s: exit %d\n%s%s", keep, code, out, errs)
		}
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("created %v", entries)
	}
}
