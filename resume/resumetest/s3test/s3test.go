// Package s3test starts an S3 HTTP endpoint in-process (gofakes3 on
// 127.0.0.1) and opens buckets on it through gocloud's s3blob, with the same
// URL options a user's MinIO, OBS, OSS or AWS bucket takes (endpoint=,
// use_path_style=, region=). Tests that use it exercise the real S3 code path:
// HTTP requests, XML listings with delimiters and pages, signed requests.
//
//	srv := s3test.NewServer(t)
//	b := srv.Bucket(t, "ckpt") // created, opened, closed at cleanup
//
// No traffic leaves the loopback interface.
package s3test

import (
	"context"
	"net"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/s3blob" // registers s3://
)

// Server is an in-process S3 endpoint.
type Server struct {
	// URL is the endpoint's base URL, http://127.0.0.1:<port>.
	URL     string
	backend gofakes3.Backend
}

// NewServer starts an S3 endpoint on 127.0.0.1 for the duration of the test.
// It sets static dummy credentials in the test's environment so that the AWS
// SDK never looks further (no instance metadata lookups).
func NewServer(t testing.TB) *Server {
	t.Helper()
	backend := s3mem.New()
	faker := gofakes3.New(backend)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("s3test: listen on loopback: %v", err)
	}
	srv := httptest.NewUnstartedServer(faker.Server())
	srv.Listener.Close()
	srv.Listener = l
	srv.Config.Handler = faker.Server()
	srv.Start()
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "resumekit-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "resumekit-test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return &Server{URL: srv.URL, backend: backend}
}

// BucketURL returns the gocloud URL of bucket name on the server, e.g.
// s3://ckpt?endpoint=http://127.0.0.1:4242&region=us-east-1&use_path_style=true&disable_https=true.
func (s *Server) BucketURL(name string) string {
	q := url.Values{}
	q.Set("endpoint", s.URL)
	q.Set("region", "us-east-1")
	q.Set("use_path_style", "true")
	q.Set("disable_https", "true")
	return "s3://" + name + "?" + q.Encode()
}

// CreateBucket creates bucket name on the server.
func (s *Server) CreateBucket(t testing.TB, name string) {
	t.Helper()
	if err := s.backend.CreateBucket(name); err != nil && !gofakes3.HasErrorCode(err, gofakes3.ErrBucketAlreadyExists) {
		t.Fatalf("s3test: create bucket %q: %v", name, err)
	}
}

// Bucket creates bucket name on the server and opens it through s3blob; the
// bucket is closed when the test ends.
func (s *Server) Bucket(t testing.TB, name string) *blob.Bucket {
	t.Helper()
	s.CreateBucket(t, name)
	b, err := blob.OpenBucket(context.Background(), s.BucketURL(name))
	if err != nil {
		t.Fatalf("s3test: open %s: %v", name, err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}
