package paimon_test

import (
	"errors"
	"strings"
	"testing"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume/resumetest/s3test"
	"github.com/resumekit/resumekit/resume/s3open"
)

// TestOpenTableS3Redirects: an S3 endpoint (loopback) answering every read
// of bucket "data" with a 307 into bucket "other", which holds a consumer
// file of its own. Through blob.DefaultURLMux (gocloud's s3blob opener) the
// table reads the other bucket's consumer as its own; with a URLMux holding
// s3open's opener the read is refused and the other bucket never asked.
func TestOpenTableS3Redirects(t *testing.T) {
	srv := s3test.NewServer(t)
	srv.CreateBucket(t, "data")
	other := srv.Bucket(t, "other")
	if err := other.WriteAll(bg, "wh/db.db/t/consumer/consumer-job", []byte(`{"nextSnapshot":666}`), nil); err != nil {
		t.Fatal(err)
	}
	srv.Redirect("data", "other")
	tableURL := strings.Replace(srv.BucketURL("data"), "s3://data?", "s3://data/wh/db.db/t?", 1)
	opts := paimon.TableOptions{ConsumerRetryInterval: -1, Wait: noWait}

	t.Run("DefaultURLMuxFollows", func(t *testing.T) {
		tbl, err := paimon.OpenTable(bg, tableURL, &opts)
		if err != nil {
			t.Fatal(err)
		}
		defer tbl.Close()
		c, err := tbl.Consumer(bg, "job")
		if err != nil || c.NextSnapshot != 666 {
			t.Fatalf("Consumer = %+v, %v", c, err)
		}
	})
	t.Run("S3OpenRefuses", func(t *testing.T) {
		before := len(srv.Requests())
		mux := new(blob.URLMux)
		mux.RegisterBucket(s3open.Scheme, new(s3open.URLOpener))
		o := opts
		o.URLMux = mux
		tbl, err := paimon.OpenTable(bg, tableURL, &o)
		if err != nil {
			t.Fatal(err)
		}
		defer tbl.Close()
		c, err := tbl.Consumer(bg, "job")
		if !errors.Is(err, s3open.ErrRedirect) || errors.Is(err, paimon.ErrConsumerNotFound) {
			t.Errorf("Consumer = %+v, %v; want ErrRedirect", c, err)
		}
		if _, err := tbl.Consumers(bg); !errors.Is(err, s3open.ErrRedirect) {
			t.Errorf("Consumers: %v; want ErrRedirect", err)
		}
		for _, p := range srv.Requests()[before:] {
			if strings.HasPrefix(p, "/other/") {
				t.Errorf("the other bucket was asked: %s", p)
			}
		}
	})
}

// TestOpenTableURLMuxReadsS3: a table opened through a URLMux with s3open's
// opener reads a real S3 endpoint (s3test) like s3blob's.
func TestOpenTableURLMuxReadsS3(t *testing.T) {
	srv := s3test.NewServer(t)
	b := srv.Bucket(t, "warehouse")
	paimontest.New(t, b, "wh/db.db/t").Schema(nil).CommitEvery(3, t0, 0).Consumer("job", 2)
	mux := new(blob.URLMux)
	mux.RegisterBucket(s3open.Scheme, new(s3open.URLOpener))
	tbl, err := paimon.OpenTable(bg, strings.Replace(srv.BucketURL("warehouse"), "s3://warehouse?", "s3://warehouse/wh/db.db/t?", 1), &paimon.TableOptions{URLMux: mux})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	c, err := tbl.Consumer(bg, "job")
	if err != nil || c.NextSnapshot != 2 {
		t.Errorf("Consumer = %+v, %v", c, err)
	}
}
