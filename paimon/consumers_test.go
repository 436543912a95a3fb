package paimon_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// TestEmptyConsumerFilesShareOneBudget: 50 consumer files stay empty (a
// writer died mid-rewrite on each). Paimon's per-file retry would pause
// 10 × 200 ms per file in sequence — 50 × 9 pauses, minutes; Consumers reads
// them in rounds and pauses 9 times in all, reading each file exactly
// ConsumerRetries times. Counted, not timed.
func TestEmptyConsumerFilesShareOneBudget(t *testing.T) {
	const n = 50
	b, tb := newTable(t, 3, nil)
	for i := range n {
		tb.Consumer(fmt.Sprintf("job-%02d", i), 2)
	}
	wb, rec := blobtest.Wrap(b, &blobtest.Options{Transform: func(c blobtest.Call, data []byte) []byte {
		if strings.Contains(c.Key, "/consumer-job-") {
			return nil // empty, every time
		}
		return data
	}})
	var waits atomic.Int64
	tbl := openTable(t, wb, tb.Path(), &paimon.TableOptions{
		Wait: func(ctx context.Context, d time.Duration) error {
			if d != paimon.DefaultConsumerRetryInterval {
				t.Errorf("waited %s", d)
			}
			waits.Add(1)
			return ctx.Err()
		},
	})
	cs, err := tbl.Consumers(bg)
	if len(cs) != n || !errors.Is(err, paimon.ErrCorrupt) || !strings.Contains(err.Error(), "still so after 10 reads") {
		t.Fatalf("%d consumers, %v", len(cs), err)
	}
	if got, want := waits.Load(), int64(paimon.DefaultConsumerRetries-1); got != want {
		t.Errorf("%d pauses, want %d (one per round, not per file)", got, want)
	}
	if got, want := rec.Count(blobtest.OpRead), n*paimon.DefaultConsumerRetries; got != want {
		t.Errorf("%d reads, want %d", got, want)
	}
	if rec.Count(blobtest.OpList) != 1 {
		t.Errorf("%d listings, want 1", rec.Count(blobtest.OpList))
	}
}

// TestConsumersRecoverInRounds: files that become readable on their second
// read are read twice; the rest once; one pause.
func TestConsumersRecoverInRounds(t *testing.T) {
	b, tb := newTable(t, 3, nil)
	for i := range 10 {
		tb.Consumer(fmt.Sprintf("job-%d", i), 3)
	}
	flaky := regexp.MustCompile(`/consumer-job-[0-4]$`)
	var mu sync.Mutex
	seen := map[string]int{}
	wb, rec := blobtest.Wrap(b, &blobtest.Options{Transform: func(c blobtest.Call, data []byte) []byte {
		mu.Lock()
		defer mu.Unlock()
		seen[c.Key]++
		if flaky.MatchString(c.Key) && seen[c.Key] == 1 {
			return []byte(`{"nextSnap`) // half-written
		}
		return data
	}})
	var waits atomic.Int64
	tbl := openTable(t, wb, tb.Path(), &paimon.TableOptions{Wait: func(ctx context.Context, _ time.Duration) error { waits.Add(1); return ctx.Err() }})
	cs, err := tbl.Consumers(bg)
	if err != nil || len(cs) != 10 {
		t.Fatalf("%d consumers, %v", len(cs), err)
	}
	for _, c := range cs {
		if c.NextSnapshot != 3 {
			t.Errorf("%s: %d", c.ID, c.NextSnapshot)
		}
	}
	if waits.Load() != 1 || rec.Count(blobtest.OpRead) != 15 {
		t.Errorf("%d pauses, %d reads; want 1 and 15", waits.Load(), rec.Count(blobtest.OpRead))
	}
}

// TestConsumersAreReadConcurrently: the first reads wait until four are in
// flight at once — a sequential reader would never get past the first —
// and no more than Concurrency ever are.
func TestConsumersAreReadConcurrently(t *testing.T) {
	b, tb := newTable(t, 3, nil)
	for i := range 20 {
		tb.Consumer(fmt.Sprintf("job-%02d", i), 2)
	}
	const together = 4
	var arrived atomic.Int64
	all := make(chan struct{})
	wb, rec := blobtest.Wrap(b, &blobtest.Options{Before: func(ctx context.Context, c blobtest.Call, _ *blob.Bucket) {
		if c.Op != blobtest.OpRead {
			return
		}
		if arrived.Add(1) == together {
			close(all)
		}
		select {
		case <-all:
		case <-ctx.Done():
		}
	}})
	tbl := openTable(t, wb, tb.Path(), &paimon.TableOptions{Concurrency: 6})
	cs, err := tbl.Consumers(bg)
	if err != nil || len(cs) != 20 {
		t.Fatalf("%d consumers, %v", len(cs), err)
	}
	if m := rec.MaxInFlight(); m < together || m > 6 {
		t.Errorf("max in flight %d, want %d..6", m, together)
	}
}

// TestConsumersShowASidecar: a consumer-<id>.attrs sidecar (gocloud
// fileblob writes one next to every object unless told not to) is listed
// as a consumer, as Paimon lists it, with an error saying that Paimon reads
// it at snapshot 0 and so stops snapshot expiry; the real consumer is read.
func TestConsumersShowASidecar(t *testing.T) {
	b, tb := newTable(t, 10, nil)
	tb.Consumer("job", 7).WriteFile("consumer/consumer-job.attrs", []byte(`{"user.cache_control":"","user.content_type":"application/octet-stream","md5":"1B2M2Y8AsgTpgAmY7PhCfg=="}`))
	cs, err := openTable(t, b, tb.Path(), nil).Consumers(bg)
	if !errors.Is(err, paimon.ErrCorrupt) || len(cs) != 2 {
		t.Fatalf("Consumers = %+v, %v", cs, err)
	}
	if cs[0].ID != "job" || cs[0].NextSnapshot != 7 || cs[0].Err != nil {
		t.Errorf("consumer job: %+v", cs[0])
	}
	if cs[1].ID != "job.attrs" || cs[1].Err == nil || !strings.Contains(cs[1].Err.Error(), "stops snapshot expiry for the whole table") {
		t.Errorf("the sidecar: %+v", cs[1])
	}
	if n, ok := paimon.MinNextSnapshot(cs); !ok || n != 7 {
		t.Errorf("MinNextSnapshot = %d, %v", n, ok)
	}
}
