package flinkckpt_test

import (
	"context"
	"strings"
	"testing"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// TestVerificationListingPanicReachesTheCaller: the snapshot's own dir is
// listed in a goroutine of its own, beside the attribute calls; a driver's
// panic there is raised again in the caller's goroutine.
func TestVerificationListingPanicReachesTheCaller(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", &blobtest.Options{Before: func(_ context.Context, c blobtest.Call, _ *blob.Bucket) {
		if c.Op == blobtest.OpList && strings.HasSuffix(c.Key, "/chk-3/") {
			panic("driver bug listing " + c.Key)
		}
	}})
	e.chk(jobA, 3, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
	r, err := flinkckpt.NewResolver(e.bucket, "ck/", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got any
	func() {
		defer func() { got = recover() }()
		_, _ = r.Resolve(context.Background())
	}()
	if s, _ := got.(string); !strings.HasPrefix(s, "driver bug listing ck/") {
		t.Errorf("recovered %v", got)
	}
}
