package resumetest_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/resume/resumetest"
)

// The testing types are TBs.
var (
	_ resumetest.TB = (*testing.T)(nil)
	_ resumetest.TB = (*testing.B)(nil)
	_ resumetest.TB = (*testing.F)(nil)
)

func TestRun(t *testing.T) {
	t.Run("Returns", func(t *testing.T) {
		var log []string
		err := resumetest.Run(func(tb resumetest.TB) {
			tb.Helper()
			tb.Cleanup(func() { log = append(log, "first registered") })
			tb.Cleanup(func() { log = append(log, "second registered") })
			log = append(log, "body")
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"body", "second registered", "first registered"}, log); diff != "" {
			t.Errorf("order (-want +got):\n%s", diff)
		}
	})
	t.Run("FatalfEndsTheBodyAndRunsCleanups", func(t *testing.T) {
		var log []string
		err := resumetest.Run(func(tb resumetest.TB) {
			tb.Cleanup(func() { log = append(log, "cleanup") })
			tb.Fatalf("broken: %d", 42)
			log = append(log, "after Fatalf")
		})
		if err == nil || err.Error() != "broken: 42" {
			t.Errorf("err = %v, want the Fatalf message", err)
		}
		if diff := cmp.Diff([]string{"cleanup"}, log); diff != "" {
			t.Errorf("log (-want +got):\n%s", diff)
		}
	})
	t.Run("CleanupThatFailsDoesNotStopTheOthers", func(t *testing.T) {
		var log []string
		err := resumetest.Run(func(tb resumetest.TB) {
			tb.Cleanup(func() { log = append(log, "a") })
			tb.Cleanup(func() { tb.Fatalf("cleanup b failed") })
			tb.Cleanup(func() { log = append(log, "c") })
		})
		if err == nil || err.Error() != "cleanup b failed" {
			t.Errorf("err = %v", err)
		}
		if diff := cmp.Diff([]string{"c", "a"}, log); diff != "" {
			t.Errorf("log (-want +got):\n%s", diff)
		}
	})
	t.Run("PanicReachesTheCallerAfterCleanups", func(t *testing.T) {
		cleaned := false
		defer func() {
			if v := recover(); v != "boom" || !cleaned {
				t.Errorf("recovered %v, cleaned %v; want boom after the cleanup", v, cleaned)
			}
		}()
		_ = resumetest.Run(func(tb resumetest.TB) {
			tb.Cleanup(func() { cleaned = true })
			panic("boom")
		})
		t.Error("Run returned after a panic")
	})
}

// Run gives code that is not a test — this Example, a demo program — a TB
// for the test helpers: Fatalf ends the function with an error, and cleanups
// run when it ends.
func ExampleRun() {
	err := resumetest.Run(func(t resumetest.TB) {
		t.Cleanup(func() { fmt.Println("cleaned up") })
		fmt.Println("building fixtures")
		t.Fatalf("fixture %q: %s", "ck/chk-1/_metadata", "write failed")
		fmt.Println("never printed")
	})
	fmt.Println("error:", err)
	// Output:
	// building fixtures
	// cleaned up
	// error: fixture "ck/chk-1/_metadata": write failed
}
