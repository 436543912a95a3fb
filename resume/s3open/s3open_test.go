package s3open_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/resume/resumetest/s3test"
	"github.com/resumekit/resumekit/resume/s3open"
)

// redirector is an S3 endpoint on loopback that answers every request for
// bucket "data" with a 307 into bucket "other", and serves "other" itself.
type redirector struct {
	srv   *httptest.Server
	mu    sync.Mutex
	paths []string
}

func newRedirector(t *testing.T) *redirector {
	t.Helper()
	r := &redirector{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.paths = append(r.paths, req.URL.Path)
		r.mu.Unlock()
		if strings.HasPrefix(req.URL.Path, "/other/") {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write([]byte("another bucket's object"))
			return
		}
		target := "/other" + strings.TrimPrefix(req.URL.Path, "/data")
		if req.URL.RawQuery != "" {
			target += "?" + req.URL.RawQuery
		}
		http.Redirect(w, req, target, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// url is an s3:// URL of bucket "data" on the endpoint: unsigned requests,
// so that nothing looks for credentials.
func (r *redirector) url() string {
	q := url.Values{}
	q.Set("endpoint", r.srv.URL)
	q.Set("region", s3test.Region)
	q.Set("use_path_style", "true")
	q.Set("disable_https", "true")
	q.Set("anonymous", "true")
	return "s3://data?" + q.Encode()
}

func (r *redirector) followed() (asked, followed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.paths {
		if strings.HasPrefix(p, "/other") {
			followed = true
		}
	}
	return len(r.paths) > 0, followed
}

// TestRedirectsAreRefused: reads, attributes and listings through the
// opener fail at a 307 into another bucket, with ErrRedirect, not retried,
// not reported as NotFound, and the other bucket is never asked.
func TestRedirectsAreRefused(t *testing.T) {
	ctx := context.Background()
	for name, call := range map[string]func(*blob.Bucket) error{
		"ReadAll": func(b *blob.Bucket) error { _, err := b.ReadAll(ctx, "consumer/consumer-job"); return err },
		"Attributes": func(b *blob.Bucket) error {
			_, err := b.Attributes(ctx, "chk-7/_metadata")
			return err
		},
		"List": func(b *blob.Bucket) error {
			_, err := b.List(&blob.ListOptions{Delimiter: "/"}).Next(ctx)
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := newRedirector(t)
			mux := new(blob.URLMux)
			mux.RegisterBucket(s3open.Scheme, new(s3open.URLOpener))
			b, err := mux.OpenBucket(ctx, r.url())
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			err = call(b)
			if !errors.Is(err, s3open.ErrRedirect) || !strings.Contains(err.Error(), "refusing to follow a redirect") {
				t.Errorf("err = %v, want ErrRedirect", err)
			}
			if gcerrors.Code(err) == gcerrors.NotFound {
				t.Errorf("a refused redirect reads as NotFound: %v", err)
			}
			asked, followed := r.followed()
			if !asked || followed {
				t.Errorf("asked %v, followed %v; paths %q", asked, followed, r.paths)
			}
			if len(r.paths) != 1 {
				t.Errorf("%d requests, want 1 (no retry): %q", len(r.paths), r.paths)
			}
		})
	}
}

// TestDefaultOpenerFollowsRedirects is the reason for the package: gocloud's
// own s3blob opener (registered on blob.DefaultURLMux) reads the other
// bucket's object as if it were the one asked for.
func TestDefaultOpenerFollowsRedirects(t *testing.T) {
	ctx := context.Background()
	r := newRedirector(t)
	b, err := blob.OpenBucket(ctx, r.url())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	data, err := b.ReadAll(ctx, "consumer/consumer-job")
	if err != nil || string(data) != "another bucket's object" {
		t.Fatalf("ReadAll = %q, %v", data, err)
	}
	if _, followed := r.followed(); !followed {
		t.Error("not followed")
	}
}

// TestOpenerReadsABucket: without redirects the opener is s3blob's, with its
// URL parameters (against s3test's server).
func TestOpenerReadsABucket(t *testing.T) {
	ctx := context.Background()
	srv := s3test.NewServer(t)
	srv.Bucket(t, "data").WriteAll(ctx, "wh/k", []byte("v"), nil)
	b, err := s3open.OpenBucket(ctx, srv.BucketURL("data"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	data, err := b.ReadAll(ctx, "wh/k")
	if err != nil || string(data) != "v" {
		t.Fatalf("ReadAll = %q, %v", data, err)
	}
	if _, err := b.ReadAll(ctx, "wh/absent"); gcerrors.Code(err) != gcerrors.NotFound {
		t.Errorf("absent key: %v", err)
	}
}

// TestOpenBucketErrors: bad URLs and parameters are refused before any
// request, without quoting a secret or a megabyte.
func TestOpenBucketErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ url, want string }{
		{"gs://bucket", "scheme is not s3"},
		{"s3://b?use_path_style=maybe", `invalid value for "use_path_style"`},
		{"s3://b?disable_https=maybe", `invalid value for "disable_https"`},
		{"s3://u:wJalrXUt%2FK7MDENG@b\x7f", "invalid control character"},
		{strings.Repeat("x", 1<<20) + "://b", "scheme is not s3"},
	} {
		_, err := s3open.OpenBucket(ctx, tc.url)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.40q: err = %v, want %q", tc.url, err, tc.want)
			continue
		}
		if len(err.Error()) > 1024 || strings.Contains(err.Error(), "wJalrXUt") {
			t.Errorf("%.40q: error of %d bytes: %.200s", tc.url, len(err.Error()), err)
		}
	}
}
