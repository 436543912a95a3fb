//go:build !resumectl_nos3

package cli

import (
	"context"
	"net/url"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/resume/s3open"
)

func init() { linkedSchemes["s3"] = true }

// openS3 opens an s3:// URL with s3open: the AWS SDK would follow a 307
// into another bucket.
func openS3(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	return new(s3open.URLOpener).OpenBucketURL(ctx, u)
}
