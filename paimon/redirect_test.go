package paimon_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
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
	var (
		mu    sync.Mutex
		other int
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/other/") {
			mu.Lock()
			other++
			mu.Unlock()
			w.Write([]byte(`{"nextSnapshot":666}`))
			return
		}
		target := "/other" + strings.TrimPrefix(r.URL.Path, "/data")
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, target, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	q := url.Values{}
	q.Set("endpoint", srv.URL)
	q.Set("region", s3test.Region)
	q.Set("use_path_style", "true")
	q.Set("anonymous", "true")
	tableURL := "s3://data/wh/db.db/t?" + q.Encode()
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
	mu.Lock()
	other = 0
	mu.Unlock()

	t.Run("S3OpenRefuses", func(t *testing.T) {
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
		mu.Lock()
		defer mu.Unlock()
		if other != 0 {
			t.Errorf("the other bucket was read %d times", other)
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
	tbl, err := paimon.OpenTable(bg, "s3://warehouse/wh/db.db/t?"+srv.BucketURL("warehouse")[len("s3://warehouse?"):], &paimon.TableOptions{URLMux: mux})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	c, err := tbl.Consumer(bg, "job")
	if err != nil || c.NextSnapshot != 2 {
		t.Errorf("Consumer = %+v, %v", c, err)
	}
}
