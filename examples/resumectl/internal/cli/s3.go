package cli

import (
	"context"
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

// openS3 opens an s3:// URL (the host is the bucket) with the query
// parameters gocloud's s3blob takes, and an HTTP client that follows no
// redirect. The AWS SDK's own client follows 307 and 308 anywhere, which
// lets an endpoint send a read into another bucket or to another host; S3
// itself answers a wrong region with an error body, so refusing costs
// nothing legitimate.
func openS3(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	q := u.Query()
	var (
		bopts  s3blob.Options
		s3opts []func(*s3.Options)
	)
	take := func(key string) (string, bool) {
		v, ok := q[key]
		if !ok || len(v) == 0 {
			return "", false
		}
		q.Del(key)
		return v[0], true
	}
	boolParam := func(key string, set func(bool)) error {
		if v, ok := take(key); ok {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("invalid value for %q: %w", key, err)
			}
			set(b)
		}
		return nil
	}
	if v, ok := take("ssetype"); ok {
		bopts.EncryptionType = types.ServerSideEncryption(v)
	}
	if v, ok := take("kmskeyid"); ok {
		bopts.KMSEncryptionID = v
	}
	for _, p := range []struct {
		key string
		set func(bool)
	}{
		{"accelerate", func(b bool) { s3opts = append(s3opts, func(o *s3.Options) { o.UseAccelerate = b }) }},
		{"disable_https", func(b bool) { s3opts = append(s3opts, func(o *s3.Options) { o.EndpointOptions.DisableHTTPS = b }) }},
		{"use_path_style", func(b bool) { s3opts = append(s3opts, func(o *s3.Options) { o.UsePathStyle = b }) }},
		{"s3ForcePathStyle", func(b bool) { s3opts = append(s3opts, func(o *s3.Options) { o.UsePathStyle = b }) }},
	} {
		if err := boolParam(p.key, p.set); err != nil {
			return nil, err
		}
	}
	q.Del("awssdk")
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, err
	}
	cfg.HTTPClient = &http.Client{
		Transport: awshttp.NewBuildableClient().GetTransport(),
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			return redirectError{to: redact.URL(req.URL.String())}
		},
	}
	bopts.RequestChecksumCalculation = cfg.RequestChecksumCalculation
	return s3blob.OpenBucket(ctx, s3.NewFromConfig(cfg, s3opts...), u.Host, &bopts)
}

// redirectError refuses a redirect; the SDK does not retry it.
type redirectError struct{ to string }

func (e redirectError) Error() string {
	return "refusing to follow a redirect to " + e.to + ": a read must not leave the bucket it was pointed at"
}

// RetryableError tells the AWS SDK's retryer not to try again.
func (redirectError) RetryableError() bool { return false }
