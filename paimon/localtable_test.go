package paimon_test

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume/localblob"
	"github.com/resumekit/resumekit/resume/redact"
)

// localTable builds a 5-snapshot table with consumer "job" at 3 in a
// temporary directory and returns its path.
func localTable(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	b, err := localblob.OpenBucket(dir, &localblob.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	paimontest.New(t, b, "wh/db1.db/orders").CommitEvery(5, t0, time.Minute).Consumer("job", 3)
	return filepath.Join(dir, "wh", "db1.db", "orders")
}

// linkConsumer moves the table's consumer/ folder to dir and leaves a link
// to it in its place; it returns the link's path.
func linkConsumer(t *testing.T, table, dir string) string {
	t.Helper()
	consumer := filepath.Join(table, "consumer")
	if err := os.Rename(consumer, dir); err != nil {
		t.Fatal(err)
	}
	target := dir
	if filepath.Dir(dir) == table {
		target = filepath.Base(dir) // a relative link inside the table
	}
	if err := os.Symlink(target, consumer); err != nil {
		t.Fatal(err)
	}
	return consumer
}

func openLocal(t *testing.T, path string) *paimon.Table {
	t.Helper()
	o := fastOpts()
	tbl, err := paimon.OpenTable(bg, path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tbl.Close() })
	return tbl
}

// TestOpenTableConfinesToTheTable: a consumer/ folder linked out of a local
// table is not followed: listing, reading and resetting consumers fail with
// localblob.ErrOutside, and nothing is written outside.
func TestOpenTableConfinesToTheTable(t *testing.T) {
	table := localTable(t)
	outside := t.TempDir()
	linkConsumer(t, table, filepath.Join(outside, "consumer"))
	tbl := openLocal(t, table)
	if tbl.Name() != "db1.orders" || tbl.String() != table {
		t.Errorf("name %q, location %q", tbl.Name(), tbl.String())
	}
	if _, err := tbl.Consumers(bg); !errors.Is(err, localblob.ErrOutside) {
		t.Errorf("Consumers: %v, want ErrOutside", err)
	}
	if _, err := tbl.Consumer(bg, "job"); !errors.Is(err, localblob.ErrOutside) {
		t.Errorf("Consumer: %v, want ErrOutside", err)
	}
	r, _ := paimon.NewResolver(tbl, "job", nil)
	if _, err := r.Resolve(bg); !errors.Is(err, localblob.ErrOutside) {
		t.Errorf("Resolve: %v, want ErrOutside", err)
	}
	if _, err := tbl.ResetConsumer(bg, "intruder", 2, &paimon.ResetOptions{Force: true}); !errors.Is(err, localblob.ErrOutside) {
		t.Errorf("ResetConsumer: %v, want ErrOutside", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "consumer", "consumer-intruder")); err == nil {
		t.Error("consumer-intruder was written outside the table")
	}
}

// TestOpenTableRefusesAFIFO: a named pipe named like a consumer file is
// reported, never waited on.
func TestOpenTableRefusesAFIFO(t *testing.T) {
	table := localTable(t)
	if err := syscall.Mkfifo(filepath.Join(table, "consumer", "consumer-pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	tbl := openLocal(t, table)
	cs, err := tbl.Consumers(bg)
	if !errors.Is(err, localblob.ErrNotRegular) || len(cs) != 2 || cs[1].ID != "pipe" || cs[1].Err == nil || cs[0].NextSnapshot != 3 {
		t.Errorf("Consumers = %+v, %v; want job at 3 and pipe refused", cs, err)
	}
	if _, err := tbl.Consumer(bg, "pipe"); !errors.Is(err, localblob.ErrNotRegular) {
		t.Errorf("Consumer(pipe): %v, want ErrNotRegular", err)
	}
}

// TestOpenTableFileURLs: file:// URLs with a host or user information are
// refused (the credentials not quoted); localhost and plain paths work.
func TestOpenTableFileURLs(t *testing.T) {
	table := localTable(t)
	for _, u := range []string{"file://" + table, "file://localhost" + table, table} {
		tbl, err := paimon.OpenTable(bg, u, fastOpts())
		if err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		if l, err := tbl.LatestSnapshotID(bg); err != nil || l != 5 {
			t.Errorf("%s: latest %d, %v", u, l, err)
		}
		tbl.Close()
	}
	for _, u := range []string{"file://fileserver" + table, "file://admin:" + plantedSecret + "@localhost" + table, "file://" + table + "?token=" + plantedSecret} {
		_, err := paimon.OpenTable(bg, u, nil)
		if err == nil {
			t.Errorf("%s: opened", u)
			continue
		}
		if leaks(err.Error()) {
			t.Errorf("%s: the error quotes the password: %v", u, err)
		}
	}
}

// plantedSecret has the characters that defeat a regular expression over
// URLs ("/" and "@").
const plantedSecret = "wJalrXUt/nFEMI@K7MDENG/bPxRfiCY"

// leaks reports whether s holds any part of plantedSecret.
func leaks(s string) bool {
	for _, part := range []string{"wJalrXUt", "nFEMI", "K7MDENG", "bPxRfiCY"} {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}

// TestOpenTableNeverQuotesSecrets: URLs that url.Parse refuses and URLs the
// driver refuses carry secrets; no error quotes them.
func TestOpenTableNeverQuotesSecrets(t *testing.T) {
	for _, u := range []string{
		"s3://AKIAEXAMPLE:" + plantedSecret + "@bucket/wh/db.db/t?region=eu-west-1",
		"s3://bucket/wh/db.db/t?region=eu-west-1&token=" + plantedSecret,
		"nosuchscheme://user:" + plantedSecret + "@host/t",
		"s3://bucket/wh/db.db/t?region=eu-west-1&awssdk=v9&secret=" + plantedSecret,
		"s3://bucket/%zz?password=" + plantedSecret,
	} {
		_, err := paimon.OpenTable(bg, u, nil)
		if err == nil {
			continue // opened (no network call yet): nothing printed
		}
		if leaks(err.Error()) {
			t.Errorf("OpenTable(%q): error quotes the secret: %v", u, err)
		}
	}
}

// TestOpenTableFileURLsInAnyCase: gocloud lower-cases a URL's scheme, so a
// FILE:// or File:// URL left to blob.OpenBucket would reach fileblob
// (linked into this test binary), which follows a consumer/ folder linked
// out of the table. OpenTable opens every spelling of a local table —
// also Flink's file:/dir — with localblob, confined to the table.
func TestOpenTableFileURLsInAnyCase(t *testing.T) {
	table := localTable(t)
	outside := t.TempDir()
	linkConsumer(t, table, filepath.Join(outside, "consumer"))
	for _, u := range []string{"FILE://" + table, "File://localhost" + table, "file:" + table} {
		tbl := openLocal(t, u)
		if l, err := tbl.LatestSnapshotID(bg); err != nil || l != 5 {
			t.Errorf("%s: latest %d, %v", u, l, err)
		}
		if _, err := tbl.Consumer(bg, "job"); !errors.Is(err, localblob.ErrOutside) {
			t.Errorf("%s: Consumer: %v, want ErrOutside (opened with fileblob?)", u, err)
		}
	}
}

// TestResetConsumerWithALinkSwappedInALoop: consumer/ is swapped between a
// link to a folder inside the table and one to a folder outside it, in a
// tight loop, while ResetConsumer runs on a table opened with OpenTable:
// every reset writes inside or is refused with ErrOutside, and nothing is
// ever written outside. (Before localblob, a link swapped between
// resumectl's check and fileblob's rename won in under 20 tries.)
func TestResetConsumerWithALinkSwappedInALoop(t *testing.T) {
	table := localTable(t)
	outside := t.TempDir()
	consumer := linkConsumer(t, table, filepath.Join(table, "consumer.real"))
	tbl := openLocal(t, table)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tmp := filepath.Join(table, "consumer.swap")
		for i := 0; !stop.Load(); i++ {
			target := "consumer.real"
			if i%2 == 1 {
				target = outside
			}
			os.Remove(tmp)
			if os.Symlink(target, tmp) == nil {
				os.Rename(tmp, consumer)
			}
		}
	}()
	var ok, refused, i int
	for i = 0; i < 50_000 && (ok < 10 || refused < 10); i++ {
		_, err := tbl.ResetConsumer(bg, "job", 2, &paimon.ResetOptions{Force: true})
		switch {
		case err == nil:
			ok++
		case errors.Is(err, localblob.ErrOutside):
			refused++
		default:
			t.Fatalf("reset %d: %v", i, err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if ok < 10 || refused < 10 {
		t.Errorf("after %d resets the race was not run both ways: %d written, %d refused", i, ok, refused)
	}
	if got, _ := os.ReadDir(outside); len(got) != 0 {
		t.Errorf("written outside the table: %v", got)
	}
	entries, _ := os.ReadDir(filepath.Join(table, "consumer.real"))
	for _, e := range entries {
		if e.Name() != "consumer-job" {
			t.Errorf("left behind in the consumer folder: %q", e.Name())
		}
	}
}

// TestOpenTableRefusesCredentialsInAnEndpoint: the S3 SDK parses an endpoint
// late and quotes it whole in the error of every call; OpenTable refuses an
// endpoint with user information up front, quoting no part of it.
func TestOpenTableRefusesCredentialsInAnEndpoint(t *testing.T) {
	for _, u := range []string{
		"s3://data/wh/db.db/t?region=us-east-1&endpoint=http://u:" + url.PathEscape(plantedSecret) + "@127.0.0.1:1",
		"s3://data/wh/db.db/t?region=us-east-1&endpoint=http://u:" + plantedSecret + "@127.0.0.1:1", // does not parse
		"s3://data/wh/db.db/t?region=us-east-1&endpoint=" + url.QueryEscape("http://u:"+plantedSecret+"@127.0.0.1:1"),
	} {
		tbl, err := paimon.OpenTable(bg, u, nil)
		if err == nil {
			tbl.Close()
			t.Errorf("%s: opened", u)
			continue
		}
		var ue *url.Error
		if !errors.Is(err, redact.ErrNestedCredentials) && !errors.As(err, &ue) || leaks(err.Error()) {
			t.Errorf("%s: %v", u, err)
		}
	}
}
