package flinkckpt

import (
	"context"
	"errors"
	"sync"
)

// errPanicked stops the other workers of parallel once one panicked.
var errPanicked = errors.New("flinkckpt: a storage call panicked")

// parallel runs f(0..n-1) with at most limit calls at once and returns the
// first error (or ctx.Err() once ctx is done); after an error no new calls
// start. min(limit, n) workers take the indices in order: a goroutine per
// call would grow a fresh stack for each of thousands of attribute calls.
func parallel(ctx context.Context, n, limit int, f func(i int) error) error {
	limit = max(1, min(limit, n))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		first    error
		next     int
		panicked bool
		pv       any
	)
	// take returns the next index to run, or false once all ran, a call
	// failed or ctx is done.
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = ctx.Err()
		}
		if first != nil || next >= n {
			return 0, false
		}
		next++
		return next - 1, true
	}
	for range limit {
		wg.Go(func() {
			// A panic (a driver bug) is raised again in the caller's
			// goroutine, where the chain recovers it, instead of ending
			// the process from this one.
			defer func() {
				if v := recover(); v != nil {
					mu.Lock()
					if !panicked {
						panicked, pv = true, v
					}
					if first == nil {
						first = errPanicked
					}
					mu.Unlock()
				}
			}()
			for {
				i, ok := take()
				if !ok {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if panicked {
		panic(pv)
	}
	return first
}
