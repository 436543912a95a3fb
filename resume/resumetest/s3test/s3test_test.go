package s3test_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/resume/resumetest"
	"github.com/resumekit/resumekit/resume/resumetest/s3test"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func TestRoundTripWithDelimiterListing(t *testing.T) {
	ctx := context.Background()
	srv := s3test.NewServer(t)
	b := srv.Bucket(t, "ckpt")
	for _, k := range []string{"job/chk-1/_metadata", "job/chk-2/_metadata", "job/shared/x"} {
		if err := b.WriteAll(ctx, k, []byte(k), nil); err != nil {
			t.Fatal(err)
		}
	}
	if got := listDirs(t, b, "job/"); strings.Join(got, " ") != "job/chk-1/ job/chk-2/ job/shared/" {
		t.Errorf("listing = %q, want the three directories", got)
	}
	data, err := b.ReadAll(ctx, "job/chk-2/_metadata")
	if err != nil || string(data) != "job/chk-2/_metadata" {
		t.Errorf("read = %q, %v", data, err)
	}
}

func listDirs(t *testing.T, b *blob.Bucket, prefix string) []string {
	t.Helper()
	it := b.List(&blob.ListOptions{Prefix: prefix, Delimiter: "/"})
	var got []string
	for {
		o, err := it.Next(context.Background())
		if err != nil {
			break
		}
		got = append(got, o.Key)
	}
	return got
}

// TestParallelServers: two tests run in parallel, each with its own server,
// opened both ways. (A helper that called t.Setenv would panic here.)
func TestParallelServers(t *testing.T) {
	for i := range 2 {
		t.Run(fmt.Sprint("Server", i), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv := s3test.NewServer(t)
			b := srv.Bucket(t, "data")
			key := fmt.Sprintf("only-on-%d", i)
			if err := b.WriteAll(ctx, key, []byte("x"), nil); err != nil {
				t.Fatal(err)
			}
			byURL, err := blob.OpenBucket(ctx, srv.BucketURL("data"))
			if err != nil {
				t.Fatal(err)
			}
			defer byURL.Close()
			objs, _, err := byURL.ListPage(ctx, blob.FirstPageToken, 10, nil)
			if err != nil || len(objs) != 1 || objs[0].Key != key {
				t.Errorf("server %d lists %v (%v), want only %s", i, objs, err, key)
			}
			if err := byURL.WriteAll(ctx, key+"-by-url", []byte("y"), nil); err != nil {
				t.Errorf("write through the URL: %v", err)
			}
		})
	}
}

// TestNeverLooksForCredentials points the AWS SDK's instance metadata
// endpoint at a counting server and removes every credential from the
// environment: neither the URL nor Bucket may ask it anything. The control
// (the URL without anonymous=true, as the SDK's default chain would go)
// shows that the counter does see lookups.
func TestNeverLooksForCredentials(t *testing.T) {
	var lookups atomic.Int32
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lookups.Add(1)
		if r.Method == http.MethodPut && r.URL.Path == "/latest/api/token" {
			w.Header().Set("X-Aws-Ec2-Metadata-Token-Ttl-Seconds", "60")
			fmt.Fprint(w, "token") // IMDSv2, so that the SDK does not log a fallback
			return
		}
		http.Error(w, "no metadata here", http.StatusNotFound)
	}))
	defer imds.Close()
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_CONFIG_FILE": filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_CONTAINER_CREDENTIALS_FULL_URI": "", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "", "AWS_WEB_IDENTITY_TOKEN_FILE": "",
		"AWS_EC2_METADATA_DISABLED": "false", "AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.URL,
	} {
		t.Setenv(k, v)
	}
	ctx := context.Background()
	srv := s3test.NewServer(t)
	b := srv.Bucket(t, "data")
	if err := b.WriteAll(ctx, "a", []byte("x"), nil); err != nil {
		t.Fatal(err)
	}
	byURL, err := blob.OpenBucket(ctx, srv.BucketURL("data"))
	if err != nil {
		t.Fatal(err)
	}
	defer byURL.Close()
	if err := byURL.WriteAll(ctx, "b", []byte("y"), nil); err != nil {
		t.Fatal(err)
	}
	if data, err := byURL.ReadAll(ctx, "a"); err != nil || string(data) != "x" {
		t.Fatalf("read through the URL: %q, %v", data, err)
	}
	if n := lookups.Load(); n != 0 {
		t.Fatalf("%d instance metadata requests", n)
	}

	control, err := blob.OpenBucket(ctx, strings.Replace(srv.BucketURL("data"), "anonymous=true&", "", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer control.Close()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	control.ReadAll(cctx, "a") // fails: no credentials anywhere
	if lookups.Load() == 0 {
		t.Error("the control made no instance metadata request: the test cannot see lookups")
	}
}

// TestClock: a pinned clock stamps what is written; Advance moves it.
func TestClock(t *testing.T) {
	ctx := context.Background()
	srv := s3test.NewServer(t)
	b := srv.Bucket(t, "ckpt")
	if d := time.Since(srv.Now()); d < -time.Minute || d > time.Minute {
		t.Errorf("a new server's clock is %v, want the wall clock", srv.Now())
	}
	srv.SetTime(t0)
	if err := b.WriteAll(ctx, "sp-1/_metadata", []byte("x"), nil); err != nil {
		t.Fatal(err)
	}
	srv.Advance(90 * time.Minute)
	if err := b.WriteAll(ctx, "sp-2/_metadata", []byte("x"), nil); err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Time{"sp-1/_metadata": t0, "sp-2/_metadata": t0.Add(90 * time.Minute)}
	for k, w := range want {
		a, err := b.Attributes(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		if !a.ModTime.Equal(w) {
			t.Errorf("%s: attributes say %v, want %v", k, a.ModTime, w)
		}
	}
	objs, _, err := b.ListPage(ctx, blob.FirstPageToken, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if !o.ModTime.Equal(want[o.Key]) {
			t.Errorf("%s: listing says %v, want %v", o.Key, o.ModTime, want[o.Key])
		}
	}
}

// The TB of resumetest.Run serves as well as a *testing.T.
func ExampleNewServer() {
	err := resumetest.Run(func(t resumetest.TB) {
		ctx := context.Background()
		srv := s3test.NewServer(t) // stopped when the function returns
		b := srv.Bucket(t, "ckpt")
		srv.SetTime(t0)
		if err := b.WriteAll(ctx, "prod/ck/chk-1/_metadata", []byte("…"), nil); err != nil {
			t.Fatalf("%v", err)
		}

		// Code that opens its store by URL reaches the same bucket.
		u := srv.BucketURL("ckpt")
		byURL, err := blob.OpenBucket(ctx, u)
		if err != nil {
			t.Fatalf("%v", err)
		}
		defer byURL.Close()
		a, err := byURL.Attributes(ctx, "prod/ck/chk-1/_metadata")
		if err != nil {
			t.Fatalf("%v", err)
		}
		fmt.Println(strings.SplitN(u, "?", 2)[0], a.ModTime.UTC().Format(time.RFC3339), a.Size, "bytes")
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// s3://ckpt 2026-11-29T10:00:00Z 3 bytes
}

// TestRedirect: a redirected bucket answers 307 into the other bucket, which
// gofakes3 serves; a client that follows (s3blob's default) reads the other
// bucket's object, and Requests shows both requests. Redirect(from, "")
// ends it.
func TestRedirect(t *testing.T) {
	ctx := context.Background()
	srv := s3test.NewServer(t)
	data := srv.Bucket(t, "data")
	other := srv.Bucket(t, "other")
	if err := data.WriteAll(ctx, "k", []byte("data's"), nil); err != nil {
		t.Fatal(err)
	}
	if err := other.WriteAll(ctx, "k", []byte("other's"), nil); err != nil {
		t.Fatal(err)
	}
	before := len(srv.Requests())
	srv.Redirect("data", "other")
	got, err := data.ReadAll(ctx, "k")
	if err != nil || string(got) != "other's" {
		t.Fatalf("redirected read = %q, %v; want other's object", got, err)
	}
	if reqs := srv.Requests()[before:]; strings.Join(reqs, " ") != "/data/k /other/k" {
		t.Errorf("requests %q, want /data/k then /other/k", reqs)
	}
	srv.Redirect("data", "")
	if got, err := data.ReadAll(ctx, "k"); err != nil || string(got) != "data's" {
		t.Errorf("after the redirect ended: %q, %v", got, err)
	}
}

// TestRedirectListing: a listing of a redirected bucket (path "/data", no
// key) is sent to the other bucket's listing.
func TestRedirectListing(t *testing.T) {
	ctx := context.Background()
	srv := s3test.NewServer(t)
	data := srv.Bucket(t, "data")
	other := srv.Bucket(t, "other")
	if err := other.WriteAll(ctx, "job/chk-1/_metadata", nil, nil); err != nil {
		t.Fatal(err)
	}
	srv.Redirect("data", "other")
	if got := listDirs(t, data, "job/"); strings.Join(got, " ") != "job/chk-1/" {
		t.Errorf("redirected listing = %q, want other's job/chk-1/", got)
	}
}
