package cli

import (
	"os"
	"testing"
)

// TestMain keeps every test on loopback: an s3:// URL without an endpoint
// or credentials would otherwise let the AWS SDK ask the EC2 instance
// metadata endpoint for credentials and a region.
func TestMain(m *testing.M) {
	os.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	os.Exit(m.Run())
}
