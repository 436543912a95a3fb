package flinkckpt

import (
	"context"

	"golang.org/x/sync/semaphore"
)

// MetadataReadBudget bounds the bytes of _metadata held while being read at
// once, by every Resolver, List and Inspect of the process together: with
// Options.Concurrency's hundreds of calls in flight, the files read at once
// are bounded by their size instead of their number (a root of 200 job
// dirs whose heads are 10 MB each reads 100 of them at a time, small ones
// all together). A file larger than the budget is read alone.
const MetadataReadBudget = 1 << 30

var readBudget = semaphore.NewWeighted(MetadataReadBudget)

// acquireRead waits until size bytes (at most the whole budget) are free,
// or ctx ends; the returned func releases them.
func acquireRead(ctx context.Context, size int64) (func(), error) {
	n := min(max(size, 1), MetadataReadBudget)
	if err := readBudget.Acquire(ctx, n); err != nil {
		return nil, err
	}
	return func() { readBudget.Release(n) }, nil
}
