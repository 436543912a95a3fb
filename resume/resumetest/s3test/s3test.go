// Package s3test starts an S3 HTTP endpoint in-process (gofakes3 on
// 127.0.0.1) and opens buckets on it through gocloud's s3blob, with the same
// URL options a user's MinIO, OBS, OSS or AWS bucket takes (endpoint=,
// use_path_style=, region=). Tests that use it exercise the real S3 code path:
// HTTP requests, XML listings with delimiters and pages, signed requests. It
// is about buckets, not about the chain.
//
//	srv := s3test.NewServer(t)
//	b := srv.Bucket(t, "ckpt")                                // created, opened, closed at cleanup
//	srv.SetTime(time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)) // objects written now are stamped 10:00
//	url := srv.BucketURL("ckpt")                              // for code that opens buckets by URL
//	srv.Redirect("data", "other")                             // a hostile endpoint: bucket data answers 307 into other
//	paths := srv.Requests()                                   // what the code under test asked for, in order
//
// No traffic leaves the loopback interface, and nothing reads or changes the
// process environment: [Server.Bucket] uses an explicit client with static
// dummy credentials, and [Server.BucketURL] asks for anonymous (unsigned)
// requests, so the AWS SDK never looks for credentials — not in the
// environment, not in shared files, never through instance metadata. Tests
// that use it can run in parallel, each with its own server.
//
// # Errors
//
// NewServer, CreateBucket and Bucket fail the test (t.Fatalf) when the
// listener, the bucket or the client cannot be made; the buckets return
// s3blob's errors, which gcerrors.Code classifies like a real store's.
package s3test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob" // also registers s3:// for BucketURL

	"github.com/resumekit/resumekit/resume/resumetest"
)

// Region is the region of every server's buckets.
const Region = "us-east-1"

// Server is an in-process S3 endpoint.
type Server struct {
	// URL is the endpoint's base URL, http://127.0.0.1:<port>.
	URL     string
	backend gofakes3.Backend
	clock   *clock

	mu        sync.Mutex
	redirects map[string]string // bucket → bucket its requests are sent to
	requests  []string          // request paths, in order
}

// NewServer starts an S3 endpoint on 127.0.0.1; it stops when the test ends.
// Its clock follows the wall clock until [Server.SetTime] pins it.
func NewServer(t resumetest.TB) *Server {
	t.Helper()
	c := &clock{}
	backend := s3mem.New(s3mem.WithTimeSource(c))
	// The skew check compares a request's signing time with the server's
	// clock: a pinned clock would refuse every signed request.
	faker := gofakes3.New(backend, gofakes3.WithTimeSource(c), gofakes3.WithTimeSkewLimit(0))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("s3test: listen on loopback: %v", err)
		return nil
	}
	s := &Server{backend: backend, clock: c, redirects: map[string]string{}}
	srv := httptest.NewUnstartedServer(s.handler(faker.Server()))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// handler records each request's path and sends requests for a redirected
// bucket to the other bucket; everything else goes to gofakes3.
func (s *Server) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bucket, rest, slash := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		s.mu.Lock()
		s.requests = append(s.requests, r.URL.Path)
		to, ok := s.redirects[bucket]
		s.mu.Unlock()
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		target := "/" + to
		if slash {
			target += "/" + rest
		}
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, target, http.StatusTemporaryRedirect)
	})
}

// Redirect makes the server answer every request for bucket from with a
// 307 Temporary Redirect to the same key and query in bucket to, as a
// hostile or misconfigured endpoint (or a proxy in front of one) can: a
// client that follows it reads to's objects as if they were from's. Use it
// to test that code refuses redirects (resume/s3open). Redirect(from, "")
// ends the redirect.
func (s *Server) Redirect(from, to string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if to == "" {
		delete(s.redirects, from)
		return
	}
	s.redirects[from] = to
}

// Requests returns the paths (/bucket/key, path style) of every request the
// server has received, in order, redirected ones included: for asserting
// what code asked for, or that it never asked for a bucket.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// BucketURL returns the gocloud URL of bucket name on the server, for code
// that opens buckets by URL (blob.OpenBucket, paimon.OpenTable, resumectl):
//
//	s3://ckpt?anonymous=true&disable_https=true&endpoint=http%3A%2F%2F127.0.0.1%3A4242&region=us-east-1&use_path_style=true
//
// anonymous=true makes the AWS SDK send unsigned requests (which the server
// accepts) instead of looking for credentials. A path goes before the "?":
// s3://ckpt/prod/ck?… names the prefix prod/ck/ for the code that takes one.
func (s *Server) BucketURL(name string) string {
	q := url.Values{}
	q.Set("endpoint", s.URL)
	q.Set("region", Region)
	q.Set("use_path_style", "true")
	q.Set("disable_https", "true")
	q.Set("anonymous", "true")
	return "s3://" + name + "?" + q.Encode()
}

// CreateBucket creates bucket name on the server (nothing happens if it
// exists).
func (s *Server) CreateBucket(t resumetest.TB, name string) {
	t.Helper()
	if err := s.backend.CreateBucket(name); err != nil && !gofakes3.HasErrorCode(err, gofakes3.ErrBucketAlreadyExists) {
		t.Fatalf("s3test: create bucket %q: %v", name, err)
	}
}

// Bucket creates bucket name on the server and opens it through s3blob with
// an S3 client of its own — static dummy credentials, signed requests, path
// style, nothing read from the environment; the bucket is closed when the
// test ends.
func (s *Server) Bucket(t resumetest.TB, name string) *blob.Bucket {
	t.Helper()
	s.CreateBucket(t, name)
	client := s3.New(s3.Options{
		Region:       Region,
		BaseEndpoint: aws.String(s.URL),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider("resumekit-test", "resumekit-test", ""),
	})
	b, err := s3blob.OpenBucket(context.Background(), client, name, nil)
	if err != nil {
		t.Fatalf("s3test: open %s: %v", name, err)
		return nil
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// SetTime pins the server's clock at tm: objects written from now on are
// stamped tm, until the next SetTime or Advance. S3 reports modification
// times to the second in headers (Attributes, reads) and to the millisecond
// in listings, so use whole seconds for times a test compares.
func (s *Server) SetTime(tm time.Time) { s.clock.set(tm) }

// Advance moves the clock forward by d; an unpinned clock is pinned at the
// wall clock's time plus d.
func (s *Server) Advance(d time.Duration) { s.clock.advance(d) }

// Now returns the server's time: the pinned time, or the wall clock's.
func (s *Server) Now() time.Time { return s.clock.Now() }

// clock is gofakes3's time source: the wall clock until pinned. gofakes3's
// own fixed source is not safe for concurrent use.
type clock struct {
	mu     sync.Mutex
	pinned bool
	t      time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pinned {
		return c.t
	}
	return time.Now().UTC()
}

func (c *clock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pinned, c.t = true, t.UTC()
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.pinned {
		c.pinned, c.t = true, time.Now().UTC()
	}
	c.t = c.t.Add(d)
}
