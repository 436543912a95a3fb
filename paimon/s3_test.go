package paimon_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/resume/localblob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/s3test"
)

// TestS3 runs the resolver, the time search and ResetConsumer against an S3
// HTTP endpoint through s3blob: the code path of a user's MinIO or AWS
// bucket, with XML listings and signed requests.
func TestS3(t *testing.T) {
	srv := s3test.NewServer(t)
	srv.SetTime(tNow) // the consumer file is written after the commits, whatever the machine's clock
	b := srv.Bucket(t, "warehouse")
	tb := paimontest.New(t, b, "wh/default.db/orders").
		Schema(map[string]string{"consumer.expiration-time": "7 d"}).
		CommitEvery(30, t0, time.Minute).
		ExpireBefore(5).
		Consumer("job", 12)
	tb.SetHint("LATEST", "20") // stale: listed
	tbl, err := paimon.OpenTable(bg, "s3://warehouse/wh/default.db/orders?"+srv.BucketURL("warehouse")[len("s3://warehouse?"):], &paimon.TableOptions{ConsumerRetryInterval: -1, Now: clock, Wait: noWait})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	if tbl.Name() != "default.orders" {
		t.Errorf("Name = %q", tbl.Name())
	}
	r, err := paimon.NewResolver(tbl, "job", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(bg)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := paimon.PositionOf(c.Position)
	if c.Guarantee != resume.Replay || p.NextSnapshot != 12 || p.Earliest != 5 || p.Latest != 30 || !c.At.Equal(at(11)) {
		t.Errorf("S3 resolve: %v %+v at %v", c.Guarantee, p, c.At)
	}
	st, err := tbl.StreamingStartAt(bg, at(17).Add(time.Second))
	if err != nil || st.Next != 18 {
		t.Errorf("StreamingStartAt = %+v, %v", st, err)
	}
	plan, err := tbl.ResetConsumer(bg, "new-job", 25, &paimon.ResetOptions{ExpectAbsent: true})
	if err != nil || len(plan.Warnings) != 0 {
		t.Fatalf("ResetConsumer: %+v %v", plan, err)
	}
	data, err := b.ReadAll(bg, tb.Key("consumer/consumer-new-job"))
	if err != nil || string(data) != "{\n  \"nextSnapshot\" : 25\n}" {
		t.Errorf("written %q, %v", data, err)
	}
	cs, err := tbl.Consumers(bg)
	if err != nil || len(cs) != 2 || cs[1].ID != "new-job" || cs[1].ModTime.IsZero() {
		t.Errorf("Consumers = %+v, %v", cs, err)
	}
	if err := tbl.DeleteConsumer(bg, "new-job"); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Consumer(bg, "new-job"); !errors.Is(err, paimon.ErrConsumerNotFound) {
		t.Errorf("after delete: %v", err)
	}
	tb.Consumer("job", 26)
	raceResetAndRead(t, b, tb.Path(), 26, 40)
}

// TestResetRacesReadersLocalblob: readers reading while ResetConsumer
// rewrites the file never see partial content (localblob writes a temporary
// file in consumer/ and renames it).
func TestResetRacesReadersLocalblob(t *testing.T) {
	b, err := localblob.OpenBucket(t.TempDir(), &localblob.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tb := paimontest.New(t, b, "default.db/t").CommitEvery(5, t0, time.Minute).Consumer("job", 1)
	raceResetAndRead(t, b, tb.Path(), 1, 200)
}

// raceResetAndRead resets consumer "job" rounds times while two readers read
// it with a single try each: any partial content would be an error.
func raceResetAndRead(t *testing.T, b *blob.Bucket, path string, lo int64, rounds int) {
	t.Helper()
	tbl := openTable(t, b, path, &paimon.TableOptions{ConsumerRetries: 1})
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for reads := 0; ; reads++ {
				select {
				case <-done:
					if reads == 0 {
						errs <- errors.New("reader never read")
					}
					return
				default:
				}
				c, err := tbl.Consumer(bg, "job")
				if err != nil {
					errs <- err
					return
				}
				if c.NextSnapshot < lo || c.NextSnapshot > lo+4 {
					errs <- fmt.Errorf("read nextSnapshot %d", c.NextSnapshot)
					return
				}
			}
		}()
	}
	for i := 0; i < rounds; i++ {
		if _, err := tbl.ResetConsumer(bg, "job", lo+int64(i%5), &paimon.ResetOptions{Force: true}); err != nil {
			t.Error(err)
			break
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("reader: %v", err)
	}
}
