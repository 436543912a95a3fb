// Package s3open opens s3:// bucket URLs the way gocloud's s3blob URL opener
// does, with an HTTP client that follows no redirect.
//
// The AWS SDK's HTTP client follows 307 and 308 answers anywhere: an
// endpoint (or anything on the path to it) can send a read into another
// bucket or to another host, and the read's answer is taken as the bucket's.
// S3 itself answers a request in the wrong region with an error body, not
// with a redirect to follow, so refusing costs nothing legitimate. A refused
// redirect is an error wrapping [ErrRedirect], which the SDK does not retry.
//
// Register the opener on a blob.URLMux and open URLs through it — with
// paimon.OpenTable, pass the mux as TableOptions.URLMux:
//
//	mux := new(blob.URLMux)
//	mux.RegisterBucket(s3open.Scheme, new(s3open.URLOpener))
//	table, err := paimon.OpenTable(ctx, "s3://warehouse/db.db/orders?region=eu-west-1",
//		&paimon.TableOptions{URLMux: mux})
//
// The opener cannot be registered on blob.DefaultURLMux: importing this
// package links gocloud.dev/blob/s3blob, which registers its own opener for
// s3:// there (the one that follows redirects).
//
// The URL takes the query parameters of s3blob's opener (region, endpoint,
// profile, use_path_style, disable_https, anonymous, ssetype, kmskeyid,
// accelerate, …; see gocloud.dev/blob/s3blob and gocloud.dev/aws). The
// SDK's credential chain applies as with s3blob: without credentials in the
// environment or shared files it asks the EC2 instance metadata endpoint
// (set AWS_EC2_METADATA_DISABLED=true, or anonymous=true, to prevent that).
//
// This package imports the AWS SDK; the resolver packages (resume, paimon,
// flinkckpt, kafkaoffset) do not import it.
//
// # Errors
//
// OpenBucketURL returns the errors of s3blob and of gocloud.dev/aws for
// parameters they refuse. Reads through the bucket that meet a redirect fail
// with an error for which errors.Is(err, ErrRedirect) holds (gcerrors.Code
// reports Unknown: never NotFound, so a refused read is not taken for an
// absent object); the redirect's target is quoted with credentials removed
// and cut short (package redact).
package s3open

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	gcaws "gocloud.dev/aws"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"

	"github.com/resumekit/resumekit/resume/redact"
)

// Scheme is the URL scheme URLOpener serves, to register it under.
const Scheme = "s3"

// ErrRedirect is wrapped by the error of a read whose endpoint answered with
// a redirect; check with errors.Is.
var ErrRedirect = errors.New("s3open: redirect refused")

// URLOpener opens s3:// URLs (the host is the bucket) with an HTTP client
// that follows no redirect. It implements blob.BucketURLOpener. The zero
// value is ready to use.
type URLOpener struct {
	// Options are passed to s3blob.OpenBucket; the URL's ssetype and
	// kmskeyid parameters override EncryptionType and KMSEncryptionID.
	Options s3blob.Options
}

var _ blob.BucketURLOpener = (*URLOpener)(nil)

// OpenBucketURL opens the bucket u names. The URL's path is ignored, as
// blob.URLMux ignores it; u is not modified.
func (o *URLOpener) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	q := u.Query()
	bopts := o.Options
	var s3opts []func(*s3.Options)
	take := func(key string) (string, bool) {
		v, ok := q[key]
		if !ok || len(v) == 0 {
			return "", false
		}
		q.Del(key)
		return v[0], true
	}
	if v, ok := take("ssetype"); ok {
		bopts.EncryptionType = types.ServerSideEncryption(v)
	}
	if v, ok := take("kmskeyid"); ok {
		bopts.KMSEncryptionID = v
	}
	for _, p := range []struct {
		key string
		set func(*s3.Options, bool)
	}{
		{"accelerate", func(o *s3.Options, b bool) { o.UseAccelerate = b }},
		{"disable_https", func(o *s3.Options, b bool) { o.EndpointOptions.DisableHTTPS = b }},
		{"use_path_style", func(o *s3.Options, b bool) { o.UsePathStyle = b }},
		{"s3ForcePathStyle", func(o *s3.Options, b bool) { o.UsePathStyle = b }},
	} {
		v, ok := take(p.key)
		if !ok {
			continue
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("s3open: invalid value for %q: %w", p.key, err)
		}
		set := p.set
		s3opts = append(s3opts, func(o *s3.Options) { set(o, b) })
	}
	q.Del("awssdk") // s3blob's choice of SDK version; there is only v2 now
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, err
	}
	cfg.HTTPClient = NoRedirectClient()
	bopts.RequestChecksumCalculation = cfg.RequestChecksumCalculation
	return s3blob.OpenBucket(ctx, s3.NewFromConfig(cfg, s3opts...), u.Host, &bopts)
}

// OpenBucket opens an s3:// URL with a URLOpener, without a URLMux.
func OpenBucket(ctx context.Context, rawURL string) (*blob.Bucket, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("s3open: bucket URL %s: %w", redact.URL(rawURL), redact.ParseError(err))
	}
	if u.Scheme != Scheme {
		return nil, fmt.Errorf("s3open: bucket URL %s: scheme is not %s", redact.Quote(redact.URL(rawURL)), Scheme)
	}
	return new(URLOpener).OpenBucketURL(ctx, u)
}

// NoRedirectClient returns the AWS SDK's default HTTP client setup (its
// transport) with redirects refused: a request answered with a redirect
// fails with an error wrapping ErrRedirect, which the SDK does not retry.
// Use it as aws.Config.HTTPClient for S3 clients built by hand.
func NoRedirectClient() *http.Client {
	return &http.Client{
		Transport: awshttp.NewBuildableClient().GetTransport(),
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			return &redirectError{to: redact.Quote(redact.URL(req.URL.String()))}
		},
	}
}

// redirectError refuses a redirect.
type redirectError struct{ to string }

func (e *redirectError) Error() string {
	return "refusing to follow a redirect to " + e.to + ": a read must not leave the bucket it was pointed at"
}

// Is makes the error match ErrRedirect.
func (e *redirectError) Is(target error) bool { return target == ErrRedirect }

// RetryableError tells the AWS SDK's retryer not to try again.
func (*redirectError) RetryableError() bool { return false }
