package resumetest

import (
	"fmt"
	"runtime"
	"sync"
)

// TB is the part of testing.TB that every resumekit test helper takes
// (resumetest, blobtest, s3test, paimontest, kafkaoffsettest): a *testing.T
// or *testing.B satisfies it, and so does the TB that [Run] passes to code
// that is not a test (an Example, resumectl's demo, the example programs).
// Fatalf must not return; Cleanup functions run when the test (or Run) ends,
// last registered first.
//
// blobtest, which must not depend on package resume, declares the same
// three methods as its own TB; a value of either type satisfies the other.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Run calls f with a TB for code that is not a test — an Example, a demo
// program, a command that builds fixtures — so that the test helpers work
// there too:
//
//	err := resumetest.Run(func(t resumetest.TB) {
//		srv := s3test.NewServer(t) // stopped when f returns
//		...
//	})
//
// It returns nil when f returns, or an error with the message of the Fatalf
// that ended f. Cleanup functions run when f has returned or called Fatalf,
// last registered first, as they do in a test. As with testing.T.Fatalf,
// Fatalf must be called from the goroutine running f: it ends that goroutine
// (runtime.Goexit), and Run waits for it. A panic in f reaches Run's caller
// after the cleanups ran.
func Run(f func(t TB)) error {
	r := &runner{}
	done := make(chan struct{})
	var (
		panicked bool
		value    any
	)
	go func() {
		defer close(done)
		defer r.cleanup()
		defer func() {
			// recover returns nil during runtime.Goexit: Fatalf is not a
			// panic.
			if v := recover(); v != nil {
				panicked, value = true, v
			}
		}()
		f(r)
	}()
	<-done
	if panicked {
		panic(value)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// runner is the TB of Run.
type runner struct {
	mu       sync.Mutex
	err      error
	cleanups []func()
}

func (r *runner) Helper() {}

func (r *runner) Fatalf(format string, args ...any) {
	r.mu.Lock()
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *runner) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// cleanup runs the newest cleanup function, then (deferred, so that a
// cleanup that calls Fatalf does not stop the rest) the others.
func (r *runner) cleanup() {
	r.mu.Lock()
	if len(r.cleanups) == 0 {
		r.mu.Unlock()
		return
	}
	f := r.cleanups[len(r.cleanups)-1]
	r.cleanups = r.cleanups[:len(r.cleanups)-1]
	r.mu.Unlock()
	defer r.cleanup()
	f()
}
