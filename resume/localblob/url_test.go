package localblob_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/resumekit/resumekit/resume/localblob"
)

// TestLocalPath: plain paths and file URLs in every spelling (any case of
// the scheme, Flink's file:/dir) are local; FILE:// is not left to gocloud
// (which lower-cases it and would reach fileblob); file URLs naming a host,
// user information, a query or a fragment are refused without quoting the
// password.
func TestLocalPath(t *testing.T) {
	wd, _ := os.Getwd()
	for raw, want := range map[string]string{
		"/data/wh":                     "/data/wh",
		"wh/t":                         filepath.Join(wd, "wh/t"),
		"file:///data/wh":              "/data/wh",
		"FILE:///data/wh":              "/data/wh",
		"File://localhost/data/wh":     "/data/wh",
		"file:/data/wh":                "/data/wh", // Flink's Path.toString()
		"file:///data/my%20wh":         "/data/my wh",
		"file:///data/wh/../other/./x": "/data/other/x",
	} {
		got, local, err := localblob.LocalPath(raw)
		if err != nil || !local || got != filepath.FromSlash(want) {
			t.Errorf("LocalPath(%q) = %q, %v, %v; want %q", raw, got, local, err, want)
		}
	}
	for _, raw := range []string{"s3://b/p", "mem://", "gs://b", "azblob://c/p?sv=1"} {
		if got, local, err := localblob.LocalPath(raw); local || err != nil || got != "" {
			t.Errorf("LocalPath(%q) = %q, %v, %v; want not local", raw, got, local, err)
		}
	}
	for _, raw := range []string{
		"file://fileserver/data/wh",
		"FILE://admin:wJalrXUt/nFEMI@K7MDENG/bPxRfiCY@localhost/data/wh",
		"file://admin:wJalrXUt%2FnFEMI@localhost/data/wh",
		"file:///data/wh?token=wJalrXUt",
		"file:///data/wh#frag",
		"file://",
		"file:///data/%zz",
		"",
	} {
		_, local, err := localblob.LocalPath(raw)
		if err == nil || !local {
			t.Errorf("LocalPath(%q): %v, local %v; want an error", raw, err, local)
			continue
		}
		if strings.Contains(err.Error(), "wJalrXUt") {
			t.Errorf("LocalPath(%q) quotes the secret: %v", raw, err)
		}
		if parses := !strings.Contains(raw, "%zz") && !strings.Contains(raw, "nFEMI@"); strings.Contains(raw, "://") && parses && !errors.Is(err, localblob.ErrNotLocal) {
			t.Errorf("LocalPath(%q): %v, want ErrNotLocal", raw, err)
		}
	}
}

// TestOpenFile: a file named by the user is opened through links (the user
// chose the path), but only if it is a regular file: a FIFO, a directory
// or a device is refused at once, never waited on.
func TestOpenFile(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(plan, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "plan-link.json")
	if err := os.Symlink(plan, link); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{plan, link} {
		f, err := localblob.OpenFile(name)
		if err != nil {
			t.Errorf("OpenFile(%s): %v", name, err)
			continue
		}
		f.Close()
	}
	fifo := filepath.Join(dir, "plan-fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	fifoLink := filepath.Join(dir, "fifo-link")
	if err := os.Symlink(fifo, fifoLink); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{fifo, fifoLink, dir, "/dev/null"} {
		f, err := localblob.OpenFile(name)
		if err == nil {
			f.Close()
			t.Errorf("OpenFile(%s) opened it", name)
			continue
		}
		if !errors.Is(err, localblob.ErrNotRegular) || !strings.Contains(err.Error(), name) {
			t.Errorf("OpenFile(%s): %v, want ErrNotRegular naming it", name, err)
		}
	}
	if _, err := localblob.OpenFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenFile(missing): %v", err)
	}
}
