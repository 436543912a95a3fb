package blobtest_test

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/resume/resumetest"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// newestCheckpoint stands for a deploy tool's own code: it opens the
// checkpoint store from a URL in its configuration and is not changed for
// the test.
func newestCheckpoint(ctx context.Context, storeURL string) (string, error) {
	b, err := blob.OpenBucket(ctx, storeURL)
	if err != nil {
		return "", err
	}
	defer b.Close()
	newest := ""
	for id := 1; ; id++ {
		key := fmt.Sprintf("ck/chk-%d/_metadata", id)
		ok, err := b.Exists(ctx, key)
		if err != nil {
			return "", fmt.Errorf("checking %s: %w", key, err)
		}
		if !ok {
			return newest, nil
		}
		newest = key
	}
}

// Mount makes a bucket reachable by URL for code that opens its storage from
// configuration, with counts and faults.
func ExampleMount() {
	// In a test, pass t; resumetest.Run gives this Example a TB.
	err := resumetest.Run(func(t resumetest.TB) {
		ctx := context.Background()
		mem := memblob.OpenBucket(nil)
		t.Cleanup(func() { mem.Close() })
		for _, k := range []string{"ck/chk-1/_metadata", "ck/chk-2/_metadata"} {
			if err := mem.WriteAll(ctx, k, []byte("…"), nil); err != nil {
				t.Fatalf("%v", err)
			}
		}

		u, rec := blobtest.Mount(t, mem, nil)
		got, err := newestCheckpoint(ctx, u)
		fmt.Println(got, err, rec.Count(blobtest.OpAttributes), "attribute calls")

		// The store fails on chk-2: the tool must say so, not settle for chk-1.
		u, _ = blobtest.Mount(t, mem, &blobtest.Options{Fault: blobtest.FailKeys(regexp.MustCompile(`chk-2/`))})
		_, err = newestCheckpoint(ctx, u)
		fmt.Println(err)
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// ck/chk-2/_metadata <nil> 3 attribute calls
	// checking ck/chk-2/_metadata: blob (key "ck/chk-2/_metadata") (code=Unknown): blobtest: attributes "ck/chk-2/_metadata" (call 2): injected: key matches chk-2/
}

// Wrap counts calls and pins modification times on a bucket a test holds.
func ExampleWrap() {
	ctx := context.Background()
	mem := memblob.OpenBucket(nil)
	defer mem.Close()
	b, rec := blobtest.Wrap(mem, nil)
	defer b.Close() // closes the wrapper only
	if err := b.WriteAll(ctx, "consumer/consumer-job", []byte(`{"nextSnapshot":7}`), nil); err != nil {
		fmt.Println(err)
	}
	rec.SetModTime("consumer/consumer-job", t0) // memblob would say "now"
	a, err := b.Attributes(ctx, "consumer/consumer-job")
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println(a.ModTime.Format(time.RFC3339), rec)
	// Output:
	// 2026-11-29T10:00:00Z list=0 read=0 attributes=1 write=1 copy=0 delete=0 listed=0
}

// Waves counts the round trips code under test waits for one after
// another: with a latency per call, its time is about Waves × latency.
// Three reads in turn are three waves; three at once, one.
func ExampleRecorder_Waves() {
	ctx := context.Background()
	mem := memblob.OpenBucket(nil)
	defer mem.Close()
	for _, k := range []string{"a", "b", "c"} {
		mem.WriteAll(ctx, k, []byte(k), nil)
	}
	b, rec := blobtest.Wrap(mem, &blobtest.Options{Latency: 50 * time.Millisecond})
	defer b.Close()
	for _, k := range []string{"a", "b", "c"} {
		b.ReadAll(ctx, k)
	}
	fmt.Println("in turn:", rec.Waves(), "waves")

	rec.Reset()
	var wg sync.WaitGroup
	for _, k := range []string{"a", "b", "c"} {
		wg.Go(func() { b.ReadAll(ctx, k) })
	}
	wg.Wait()
	fmt.Println("together:", rec.Waves(), "wave")
	// Output:
	// in turn: 3 waves
	// together: 1 wave
}

// After observes every call as it ends, with its error: a log of the
// storage calls code under test makes (resumectl's --verbose is built on
// it).
func ExampleOptions_after() {
	ctx := context.Background()
	mem := memblob.OpenBucket(nil)
	defer mem.Close()
	mem.WriteAll(ctx, "ck/chk-1/_metadata", []byte("…"), nil)
	b, _ := blobtest.Wrap(mem, &blobtest.Options{After: func(c blobtest.Call, err error) {
		fmt.Printf("call %d: %s %q: %v\n", c.All, c.Op, c.Key, gcerrors.Code(err))
	}})
	defer b.Close()
	b.ReadAll(ctx, "ck/chk-1/_metadata")
	b.Exists(ctx, "ck/chk-2/_metadata")
	// Output:
	// call 1: read "ck/chk-1/_metadata": OK
	// call 2: attributes "ck/chk-2/_metadata": NotFound
}
