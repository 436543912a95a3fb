package cli

import (
	"context"
	"fmt"
	"net/url"

	"gocloud.dev/blob"
)

// Cloud drivers. Go runs every linked package's initialisation when the
// process starts, whatever the command, so a driver cannot be initialised
// only when its scheme is opened; linking it is what costs. The GCS driver
// links gRPC, xDS and OpenTelemetry (about 30 MB of the binary and half of
// the process start, see BENCHMARKS.md), Azure's and AWS's less. A build
// for one cloud leaves the others out with build tags:
//
//	go install -tags resumectl_nogcs,resumectl_noazure ./examples/resumectl   # local, HDFS-free S3 only
//
// and a URL of a scheme left out is refused naming the tag.

// linkedSchemes are the cloud schemes this build has drivers for (the
// drivers_*.go files register them).
var linkedSchemes = map[string]bool{}

// builtWithout names the build tag that left scheme's driver out, "" when
// the driver is linked or the scheme is not a cloud one.
func builtWithout(scheme string) string {
	tag := map[string]string{"s3": "resumectl_nos3", "gs": "resumectl_nogcs", "azblob": "resumectl_noazure"}[scheme]
	if tag == "" || linkedSchemes[scheme] {
		return ""
	}
	return tag
}

// openCloud opens a bucket URL of a linked cloud driver: s3:// through
// s3open (no redirects), the others through gocloud's URL mux.
func openCloud(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	if tag := builtWithout(u.Scheme); tag != "" {
		return nil, fmt.Errorf("%s:// is not built into this resumectl (built with -tags %s)", u.Scheme, tag)
	}
	if u.Scheme == "s3" {
		return openS3(ctx, u)
	}
	return blob.OpenBucket(ctx, u.String())
}
