package paimon_test

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// t0 is the commit time of the first snapshot in built tables.
var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// tNow is the tests' clock: every write to a memBucket is stamped with it
// and openTable's tables take it as Now. memblob would stamp the machine's
// clock, and a machine whose clock is behind the built commit times (t0
// on) would see each consumer file written before the snapshots it had
// consumed: a rollback, and other grades. Three months after t0, so that
// every built table (up to 100,000 snapshots a minute apart) is older.
var tNow = t0.AddDate(0, 3, 0)

// fastOpts makes consumer and hint retries immediate; Now is tNow.
func fastOpts() *paimon.TableOptions {
	return &paimon.TableOptions{ConsumerRetries: 3, ConsumerRetryInterval: -1, HintRetryInterval: -1, Wait: noWait, Now: clock}
}

// clock is a TableOptions.Now that returns tNow.
func clock() time.Time { return tNow }

// noWait is a TableOptions.Wait that does not wait.
func noWait(ctx context.Context, _ time.Duration) error { return ctx.Err() }

func ptr64(n int64) *int64 { return &n }

// memBucket returns a memblob bucket whose writes are stamped tNow, as if
// the file was written just now by tNow's clock.
func memBucket(t testing.TB) *blob.Bucket {
	mem := memblob.OpenBucket(nil)
	var rec *blobtest.Recorder
	b, rec := blobtest.Wrap(mem, &blobtest.Options{Before: func(_ context.Context, c blobtest.Call, _ *blob.Bucket) {
		if c.Op == blobtest.OpWrite {
			rec.SetModTime(c.Key, tNow)
		}
	}})
	t.Cleanup(func() { b.Close(); mem.Close() })
	return b
}

// newTable builds n snapshots one minute apart at wh/default.db/t.
func newTable(t testing.TB, n int, opts map[string]string) (*blob.Bucket, *paimontest.Table) {
	b := memBucket(t)
	tb := paimontest.New(t, b, "wh/default.db/t")
	if opts != nil {
		tb.Schema(opts)
	}
	tb.CommitEvery(n, t0, time.Minute)
	return b, tb
}

func openTable(t testing.TB, b *blob.Bucket, path string, o *paimon.TableOptions) *paimon.Table {
	t.Helper()
	if o == nil {
		o = fastOpts()
	}
	if o.Now == nil {
		c := *o
		c.Now = clock
		o = &c
	}
	tbl, err := paimon.NewTable(b, path, o)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// fixtureDir finds ../shared/fixtures from the module root, or
// $RESUMEKIT_FIXTURES; when it is absent the test skips, or under CI=true
// fails (fixtureMissing).
func fixtureDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("RESUMEKIT_FIXTURES"); d != "" {
		if _, err := os.Stat(d); err != nil {
			fixtureMissing(t, "fixtures not found at RESUMEKIT_FIXTURES=%s: %v", d, err)
		}
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			f := filepath.Join(d, "..", "shared", "fixtures")
			if _, err := os.Stat(f); err != nil {
				fixtureMissing(t, "fixtures not found at %s (set RESUMEKIT_FIXTURES): %v", f, err)
			}
			return f
		}
		if filepath.Dir(d) == d {
			fixtureMissing(t, "module root not found; set RESUMEKIT_FIXTURES")
		}
	}
}

// fixtureMissing skips a test whose fixtures are absent, and under CI=true
// fails it: CI runs with a copy of shared/ beside the clone.
func fixtureMissing(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+"; under CI=true the shared fixtures are required (CI runs with a copy of shared/ beside the clone)", args...)
	}
	t.Skipf(format, args...)
}

// extractFixture extracts the Paimon fixture tarball into a temp dir and
// returns a fileblob bucket rooted there.
func extractFixture(t testing.TB) *blob.Bucket {
	t.Helper()
	tarball := filepath.Join(fixtureDir(t), "paimon", "pk_global_index_golden.tar.gz")
	f, err := os.Open(tarball)
	if err != nil {
		fixtureMissing(t, "fixture %s absent: %v", tarball, err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Clean(h.Name)
		if strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			t.Fatalf("fixture entry %q escapes", h.Name)
		}
		p := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

var bg = context.Background()

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func openLocalBucket(t testing.TB, root string) *blob.Bucket {
	b, err := fileblob.OpenBucket(root, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}
