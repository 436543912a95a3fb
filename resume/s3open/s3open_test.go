package s3open_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/resume/resumetest/s3test"
	"github.com/resumekit/resumekit/resume/s3open"
)

// redirected starts an S3 endpoint (s3test) whose bucket "data" answers
// every request with a 307 into bucket "other", which holds objects of its
// own at the keys the tests read, and returns the server and data's URL.
func redirected(t *testing.T) (*s3test.Server, string) {
	t.Helper()
	srv := s3test.NewServer(t)
	srv.CreateBucket(t, "data")
	other := srv.Bucket(t, "other")
	for _, k := range []string{"consumer/consumer-job", "chk-7/_metadata"} {
		if err := other.WriteAll(context.Background(), k, []byte("another bucket's object"), nil); err != nil {
			t.Fatal(err)
		}
	}
	srv.Redirect("data", "other")
	return srv, srv.BucketURL("data")
}

// followed reports whether any request went to bucket other.
func followed(paths []string) bool {
	for _, p := range paths {
		if strings.HasPrefix(p, "/other") {
			return true
		}
	}
	return false
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
			srv, u := redirected(t)
			mux := new(blob.URLMux)
			mux.RegisterBucket(s3open.Scheme, new(s3open.URLOpener))
			b, err := mux.OpenBucket(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			before := len(srv.Requests())
			err = call(b)
			if !errors.Is(err, s3open.ErrRedirect) || !strings.Contains(err.Error(), "refusing to follow a redirect") {
				t.Errorf("err = %v, want ErrRedirect", err)
			}
			if gcerrors.Code(err) == gcerrors.NotFound {
				t.Errorf("a refused redirect reads as NotFound: %v", err)
			}
			paths := srv.Requests()[before:]
			if len(paths) != 1 || followed(paths) {
				t.Errorf("requests %q, want one to bucket data (not followed, no retry)", paths)
			}
		})
	}
}

// TestDefaultOpenerFollowsRedirects is the reason for the package: gocloud's
// own s3blob opener (registered on blob.DefaultURLMux) reads the other
// bucket's object as if it were the one asked for.
func TestDefaultOpenerFollowsRedirects(t *testing.T) {
	ctx := context.Background()
	srv, u := redirected(t)
	b, err := blob.OpenBucket(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	data, err := b.ReadAll(ctx, "consumer/consumer-job")
	if err != nil || string(data) != "another bucket's object" {
		t.Fatalf("ReadAll = %q, %v", data, err)
	}
	if !followed(srv.Requests()) {
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
