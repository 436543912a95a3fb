package blobtest_test

import (
	"context"
	"errors"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

func seed(t *testing.T, keys ...string) *blob.Bucket {
	t.Helper()
	mem := memblob.OpenBucket(nil)
	t.Cleanup(func() { mem.Close() })
	for _, k := range keys {
		if err := mem.WriteAll(context.Background(), k, []byte("data of "+k), nil); err != nil {
			t.Fatal(err)
		}
	}
	return mem
}

func TestCountsEveryOperation(t *testing.T) {
	ctx := context.Background()
	mem := seed(t, "a/1", "a/2", "b/1")
	b, rec := blobtest.Wrap(mem, nil)
	defer b.Close()

	it := b.List(&blob.ListOptions{Prefix: "", Delimiter: "/"})
	var dirs []string
	for {
		o, err := it.Next(ctx)
		if err != nil {
			break
		}
		dirs = append(dirs, o.Key)
	}
	if _, err := b.ReadAll(ctx, "a/1"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Attributes(ctx, "a/2"); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteAll(ctx, "c", []byte("x"), nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Copy(ctx, "d", "c", nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	want := map[blobtest.Op]int{blobtest.OpList: 1, blobtest.OpRead: 1, blobtest.OpAttributes: 1, blobtest.OpWrite: 1, blobtest.OpCopy: 1, blobtest.OpDelete: 1}
	if diff := cmp.Diff(want, rec.Counts()); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a/", "b/"}, dirs); diff != "" {
		t.Errorf("listing (-want +got):\n%s", diff)
	}
	if rec.Listed() != 2 || rec.Total() != 6 {
		t.Errorf("listed=%d total=%d, want 2 and 6", rec.Listed(), rec.Total())
	}
	if ok, _ := mem.Exists(ctx, "c"); !ok {
		t.Error("write did not reach the wrapped bucket")
	}
	b.Close()
	if _, err := mem.ReadAll(ctx, "a/1"); err != nil {
		t.Errorf("closing the wrapper closed the wrapped bucket: %v", err)
	}
}

func TestFaults(t *testing.T) {
	ctx := context.Background()
	mem := seed(t, "ok", "chk-1/_metadata", "gone")
	t.Run("KeyPattern", func(t *testing.T) {
		b, _ := blobtest.Wrap(mem, &blobtest.Options{Fault: blobtest.FailKeys(regexp.MustCompile(`_metadata$`))})
		defer b.Close()
		_, err := b.ReadAll(ctx, "chk-1/_metadata")
		var fe *blobtest.FaultError
		if !errors.As(err, &fe) || fe.Call.Key != "chk-1/_metadata" {
			t.Fatalf("err = %v, want a FaultError for the key", err)
		}
		if _, err := b.ReadAll(ctx, "ok"); err != nil {
			t.Errorf("unmatched key failed: %v", err)
		}
	})
	t.Run("NotFoundAfterList", func(t *testing.T) {
		b, _ := blobtest.Wrap(mem, &blobtest.Options{Fault: blobtest.NotFoundKeys(regexp.MustCompile(`^gone$`))})
		defer b.Close()
		_, err := b.ReadAll(ctx, "gone")
		if gcerrors.Code(err) != gcerrors.NotFound {
			t.Errorf("code = %v, want NotFound", gcerrors.Code(err))
		}
	})
	t.Run("EveryKth", func(t *testing.T) {
		b, _ := blobtest.Wrap(mem, &blobtest.Options{Fault: blobtest.FailEvery(3)})
		defer b.Close()
		var failed []int
		for i := 1; i <= 7; i++ {
			if _, err := b.ReadAll(ctx, "ok"); err != nil {
				failed = append(failed, i)
			}
		}
		if diff := cmp.Diff([]int{3, 6}, failed); diff != "" {
			t.Errorf("failed calls (-want +got):\n%s", diff)
		}
	})
	t.Run("Nth", func(t *testing.T) {
		b, _ := blobtest.Wrap(mem, &blobtest.Options{Fault: blobtest.FailNth(blobtest.OpRead, 2)})
		defer b.Close()
		var failed []int
		for i := 1; i <= 3; i++ {
			if _, err := b.ReadAll(ctx, "ok"); err != nil {
				failed = append(failed, i)
			}
		}
		if diff := cmp.Diff([]int{2}, failed); diff != "" {
			t.Errorf("failed calls (-want +got):\n%s", diff)
		}
	})
	t.Run("LatencyHonoursContext", func(t *testing.T) {
		b, rec := blobtest.Wrap(mem, &blobtest.Options{Latency: time.Hour})
		defer b.Close()
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := b.ReadAll(cctx, "ok")
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if rec.Count(blobtest.OpRead) != 1 {
			t.Errorf("the call was not counted")
		}
	})
}

func TestTransformAndModTime(t *testing.T) {
	ctx := context.Background()
	mem := seed(t, "consumer/consumer-a")
	pinned := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	b, rec := blobtest.Wrap(mem, &blobtest.Options{Transform: func(c blobtest.Call, data []byte) []byte {
		if c.N <= 2 {
			return nil // Paimon's non-atomic rewrite: empty for the first reads
		}
		return data
	}})
	defer b.Close()
	rec.SetModTime("consumer/consumer-a", pinned)
	var got []string
	for i := 0; i < 3; i++ {
		data, err := b.ReadAll(ctx, "consumer/consumer-a")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(data))
	}
	if diff := cmp.Diff([]string{"", "", "data of consumer/consumer-a"}, got); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
	a, err := b.Attributes(ctx, "consumer/consumer-a")
	if err != nil {
		t.Fatal(err)
	}
	if !a.ModTime.Equal(pinned) {
		t.Errorf("attributes mod time %v, want %v", a.ModTime, pinned)
	}
	objs, _, err := b.ListPage(ctx, blob.FirstPageToken, 10, &blob.ListOptions{Prefix: "consumer/"})
	if err != nil || len(objs) != 1 || !objs[0].ModTime.Equal(pinned) {
		t.Errorf("listed %v (err %v), want one object with the pinned time", objs, err)
	}
}

// TestWaves: calls one after another are a wave each; calls under way
// together (held by Before until all have started) are one wave, and a call
// after them starts the next.
func TestWaves(t *testing.T) {
	ctx := context.Background()
	mem := seed(t, "a", "b", "c")
	const together = 5
	var started sync.WaitGroup
	started.Add(together)
	hold := make(chan struct{})
	concurrent := false
	var mu sync.Mutex
	b, rec := blobtest.Wrap(mem, &blobtest.Options{Before: func(ctx context.Context, c blobtest.Call, _ *blob.Bucket) {
		mu.Lock()
		c2 := concurrent
		mu.Unlock()
		if c2 {
			started.Done()
			<-hold
		}
	}})
	defer b.Close()
	for _, k := range []string{"a", "b", "c"} {
		if _, err := b.Attributes(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	if got := rec.Waves(); got != 3 {
		t.Fatalf("3 calls in turn: %d waves, want 3", got)
	}
	rec.Reset()
	mu.Lock()
	concurrent = true
	mu.Unlock()
	var done sync.WaitGroup
	for range together {
		done.Go(func() { b.Attributes(ctx, "a") })
	}
	started.Wait()
	close(hold)
	done.Wait()
	mu.Lock()
	concurrent = false
	mu.Unlock()
	if got := rec.Waves(); got != 1 {
		t.Fatalf("%d calls together: %d waves, want 1", together, got)
	}
	if _, err := b.ReadAll(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if got, max := rec.Waves(), rec.MaxInFlight(); got != 2 || max != together {
		t.Fatalf("then one more: %d waves (want 2), %d in flight at most (want %d)", got, max, together)
	}
}

// TestAfterObservesEveryCall: After sees each operation once as it ends,
// in order, with its error: nil, the wrapped bucket's NotFound, and an
// injected fault (a call that never reached the bucket still ends).
func TestAfterObservesEveryCall(t *testing.T) {
	ctx := context.Background()
	mem := seed(t, "a/1")
	type seen struct {
		op   blobtest.Op
		key  string
		code gcerrors.ErrorCode
	}
	var got []seen
	var mu sync.Mutex
	b, rec := blobtest.Wrap(mem, &blobtest.Options{
		Fault: blobtest.FailKeys(regexp.MustCompile(`^bad$`)),
		After: func(c blobtest.Call, err error) {
			mu.Lock()
			defer mu.Unlock()
			s := seen{op: c.Op, key: c.Key, code: gcerrors.OK}
			if err != nil {
				s.code = gcerrors.Code(err)
				var fe *blobtest.FaultError
				if errors.As(err, &fe) {
					s.code = gcerrors.Internal // marks the injected one
				}
			}
			got = append(got, s)
		},
	})
	defer b.Close()
	if _, err := b.ReadAll(ctx, "a/1"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Attributes(ctx, "missing"); gcerrors.Code(err) != gcerrors.NotFound {
		t.Fatalf("attributes of a missing key: %v", err)
	}
	if err := b.Delete(ctx, "bad"); err == nil {
		t.Fatal("the fault did not fail the delete")
	}
	if err := b.WriteAll(ctx, "c", []byte("x"), nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Copy(ctx, "d", "c", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.List(&blob.ListOptions{Prefix: "a/"}).Next(ctx); err != nil {
		t.Fatal(err)
	}
	want := []seen{
		{op: blobtest.OpRead, key: "a/1", code: gcerrors.OK},
		{op: blobtest.OpAttributes, key: "missing", code: gcerrors.NotFound},
		{op: blobtest.OpDelete, key: "bad", code: gcerrors.Internal},
		{op: blobtest.OpWrite, key: "c", code: gcerrors.OK},
		{op: blobtest.OpCopy, key: "c", code: gcerrors.OK},
		{op: blobtest.OpList, key: "a/", code: gcerrors.OK},
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(seen{})); diff != "" {
		t.Errorf("After saw (-want +got):\n%s", diff)
	}
	if rec.Total() != len(want) {
		t.Errorf("%d calls counted, After saw %d", rec.Total(), len(got))
	}
}
