package paimon_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume/localblob"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
	"github.com/resumekit/resumekit/resume/resumetest/s3test"
)

// TestResetExpectPreviousIsACompareAndSwap: two resets of one consumer
// with --expect-previous 6 at the same moment (issue 31 item 4). Reset B
// runs to completion between reset A's check and A's write (blobtest's
// Before hook on A's write of the consumer file): both checks saw 6, so a
// check then a write let both succeed and B's reset was lost. Now exactly
// one wins: B, and A fails naming the value B wrote. On localblob (a
// rename under the consumer directory's lock) and on S3 through gofakes3
// (a PUT with If-Match on the ETag read before the check).
func TestResetExpectPreviousIsACompareAndSwap(t *testing.T) {
	buckets := map[string]func(t *testing.T) *blob.Bucket{
		"localblob": func(t *testing.T) *blob.Bucket {
			b, err := localblob.OpenBucket(t.TempDir(), &localblob.Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return b
		},
		"s3 (gofakes3)": func(t *testing.T) *blob.Bucket {
			srv := s3test.NewServer(t)
			srv.SetTime(tNow)
			return srv.Bucket(t, "warehouse")
		},
	}
	for name, open := range buckets {
		t.Run(name, func(t *testing.T) {
			b := open(t)
			tb := paimontest.New(t, b, "t").CommitEvery(10, t0, time.Minute).Consumer("job", 6)
			var errB error
			ranB := false
			wb, _ := blobtest.Wrap(b, &blobtest.Options{
				Before: func(ctx context.Context, c blobtest.Call, inner *blob.Bucket) {
					if c.Op != blobtest.OpWrite || !strings.HasSuffix(c.Key, "consumer/consumer-job") || ranB {
						return
					}
					ranB = true
					_, errB = openTable(t, inner, tb.Path(), nil).ResetConsumer(ctx, "job", 9, &paimon.ResetOptions{ExpectPrevious: ptr64(6), Force: true})
				},
			})
			_, errA := openTable(t, wb, tb.Path(), nil).ResetConsumer(bg, "job", 8, &paimon.ResetOptions{ExpectPrevious: ptr64(6), Force: true})
			if !ranB {
				t.Fatal("reset A never wrote the consumer file: no race was staged")
			}
			if errB != nil {
				t.Fatalf("reset B (first to write): %v", errB)
			}
			if !errors.Is(errA, paimon.ErrUnexpectedPrevious) || !strings.Contains(errA.Error(), "found nextSnapshot 9") {
				t.Fatalf("reset A (second to write): %v; want ErrUnexpectedPrevious naming nextSnapshot 9, the value B wrote", errA)
			}
			data, err := b.ReadAll(bg, strings.TrimSuffix(tb.Path(), "/")+"/consumer/consumer-job")
			if err != nil {
				t.Fatal(err)
			}
			if n, err := paimon.ParseConsumer("consumer-job", data); err != nil || n != 9 {
				t.Errorf("consumer file holds %d (%v), want B's 9", n, err)
			}
		})
	}
}
