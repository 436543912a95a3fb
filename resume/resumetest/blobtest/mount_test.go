package blobtest_test

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// blobtest.TB and resumetest.TB are the same interface.
var (
	_ blobtest.TB   = resumetest.TB(nil)
	_ resumetest.TB = blobtest.TB(nil)
	_ blobtest.TB   = (*testing.T)(nil)
)

func TestMountOpensTheBucketByURL(t *testing.T) {
	ctx := context.Background()
	mem := seed(t, "ck/chk-1/_metadata", "ck/chk-2/_metadata")
	u, rec := blobtest.Mount(t, mem, &blobtest.Options{Fault: blobtest.FailNth(blobtest.OpRead, 2)})
	if !strings.HasPrefix(u, "blobtest://") {
		t.Fatalf("URL %q", u)
	}
	// Two opens, as code under test may do: one bucket behind both, one
	// Recorder counting both, the fault counted across them.
	var reads []error
	for range 2 {
		b, err := blob.OpenBucket(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.ReadAll(ctx, "ck/chk-1/_metadata")
		reads = append(reads, err)
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
	var fe *blobtest.FaultError
	if reads[0] != nil || !errors.As(reads[1], &fe) {
		t.Errorf("reads %v, want the second to fail", reads)
	}
	if got := rec.Count(blobtest.OpRead); got != 2 {
		t.Errorf("%d reads counted, want 2", got)
	}
	if _, err := mem.ReadAll(ctx, "ck/chk-2/_metadata"); err != nil {
		t.Errorf("closing an opened bucket closed the mounted one: %v", err)
	}

	// gocloud's prefix= works on the URL; a path after the name does not
	// change the bucket (as with s3://bucket/path).
	b, err := blob.OpenBucket(ctx, u+"?prefix=ck/chk-2/")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if ok, err := b.Exists(ctx, "_metadata"); !ok || err != nil {
		t.Errorf("prefix=: exists %v, %v", ok, err)
	}
	rec.SetModTime("ck/chk-2/_metadata", t0)
	if a, err := b.Attributes(ctx, "_metadata"); err != nil || !a.ModTime.Equal(t0) {
		t.Errorf("pinned time through prefix=: %v, %v", a, err)
	}
}

func TestMountURLErrors(t *testing.T) {
	ctx := context.Background()
	mem := seed(t, "a")
	var u string
	t.Run("Mounted", func(t *testing.T) {
		u, _ = blobtest.Mount(t, mem, nil)
		if _, err := blob.OpenBucket(ctx, u+"?region=x"); err == nil || !strings.Contains(err.Error(), `unknown query parameter "region"`) {
			t.Errorf("query parameter: %v", err)
		}
	})
	_, err := blob.OpenBucket(ctx, u)
	if err == nil || !strings.Contains(err.Error(), "no bucket is mounted as") || !strings.Contains(err.Error(), u) {
		t.Errorf("after the test: %v, want an error naming %s", err, u)
	}
}

// TestMountParallel: parallel tests mount their own buckets and never see
// each other's.
func TestMountParallel(t *testing.T) {
	for i := range 4 {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			key := fmt.Sprintf("only-in-%d", i)
			u, rec := blobtest.Mount(t, seed(t, key), nil)
			b, err := blob.OpenBucket(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			objs, _, err := b.ListPage(ctx, blob.FirstPageToken, 10, nil)
			if err != nil || len(objs) != 1 || objs[0].Key != key {
				t.Errorf("listing %v (%v), want only %s", objs, err, key)
			}
			if rec.Count(blobtest.OpList) != 1 {
				t.Errorf("counts %s", rec)
			}
		})
	}
}

// TestMountReachesCodeThatOpensByURL: paimon.OpenTable stands for a deploy
// tool's own code, which takes a URL and is not changed for the test.
func TestMountReachesCodeThatOpensByURL(t *testing.T) {
	ctx := context.Background()
	mem := memblob.OpenBucket(nil)
	t.Cleanup(func() { mem.Close() })
	paimontest.New(t, mem, "wh/shop.db/orders").CommitEvery(10, t0, time.Minute).Consumer("job", 8)

	resolve := func(u string) (resume.Candidate, error) {
		table, err := paimon.OpenTable(ctx, u+"/wh/shop.db/orders", &paimon.TableOptions{ConsumerRetryInterval: -1})
		if err != nil {
			return resume.Candidate{}, err
		}
		defer table.Close()
		r, err := paimon.NewResolver(table, "job", nil)
		if err != nil {
			return resume.Candidate{}, err
		}
		return r.Resolve(ctx)
	}

	u, rec := blobtest.Mount(t, mem, nil)
	c, err := resolve(u)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := paimon.PositionOf(c.Position); p.NextSnapshot != 8 || c.Guarantee != resume.Replay {
		t.Errorf("resolved %+v %s, want snapshot 8, replay (snapshots 8..10 exist)", p, c.Guarantee)
	}
	if rec.Count(blobtest.OpRead) == 0 {
		t.Errorf("no reads counted: %s", rec)
	}
	if ok, _ := mem.Exists(ctx, "wh/shop.db/orders/snapshot/snapshot-10"); !ok {
		t.Error("closing the table closed the mounted bucket")
	}

	// The consumer file unreadable: the resolver fails, naming it.
	u, _ = blobtest.Mount(t, mem, &blobtest.Options{Fault: blobtest.FailKeys(regexp.MustCompile(`consumer-job$`))})
	if _, err := resolve(u); err == nil || !strings.Contains(err.Error(), "consumer-job") {
		t.Errorf("err = %v, want the consumer file named", err)
	}
}

// fixedOpener opens one given bucket, so that the test can see it closed.
type fixedOpener struct{ b *blob.Bucket }

func (o fixedOpener) OpenBucketURL(context.Context, *url.URL) (*blob.Bucket, error) { return o.b, nil }

func TestWrapOpenerOwnsWhatItOpens(t *testing.T) {
	ctx := context.Background()
	inner := memblob.OpenBucket(nil)
	o, rec := blobtest.WrapOpener(fixedOpener{inner}, nil)
	b, err := o.OpenBucketURL(ctx, &url.URL{Scheme: "x", Host: "y"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.WriteAll(ctx, "k", []byte("v"), nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := inner.WriteAll(ctx, "k2", nil, nil); err == nil {
		t.Error("the inner bucket is still open after closing the wrapper that opened it")
	}
	if rec.Count(blobtest.OpWrite) != 1 {
		t.Errorf("counts %s", rec)
	}
}

func TestRegisterOnOwnMux(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mux := new(blob.URLMux)
	rec := blobtest.Register(mux, "faulty", &fileblob.URLOpener{}, &blobtest.Options{Fault: blobtest.FailNth(blobtest.OpWrite, 1)})
	b, err := mux.OpenBucket(ctx, "faulty://"+filepath.ToSlash(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var writes []bool
	for range 2 {
		writes = append(writes, b.WriteAll(ctx, "k", []byte("v"), nil) == nil)
	}
	if diff := cmp.Diff([]bool{false, true}, writes); diff != "" {
		t.Errorf("writes ok (-want +got):\n%s", diff)
	}
	if rec.Count(blobtest.OpWrite) != 2 {
		t.Errorf("counts %s", rec)
	}
}

// TestNoResumeImport keeps blobtest independent of package resume: it
// imports nothing of the module but internal/blobfwd (the driver
// forwarding it shares with resume/blobwatch), which imports nothing of
// the module either.
func TestNoResumeImport(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fwd, err := filepath.Glob(filepath.Join("..", "..", "..", "internal", "blobfwd", "*.go"))
	if err != nil || len(fwd) == 0 {
		t.Fatalf("internal/blobfwd: %v", err)
	}
	files = append(files, fwd...)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if strings.HasPrefix(path, "github.com/resumekit/resumekit/") && path != "github.com/resumekit/resumekit/internal/blobfwd" {
				t.Errorf("%s imports %s", f, imp.Path.Value)
			}
		}
	}
}
