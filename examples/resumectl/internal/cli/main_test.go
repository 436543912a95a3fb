package cli

import (
	"os"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
)

// TestMain keeps every test on loopback: an s3:// URL without an endpoint
// or credentials would otherwise let the AWS SDK ask the EC2 instance
// metadata endpoint for credentials and a region.
func TestMain(m *testing.M) {
	os.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	os.Exit(m.Run())
}

// tempBucket opens a new temporary directory as a fileblob bucket that
// writes no .attrs sidecars, so that resumectl later reads what the test
// wrote there as a plain local directory. The bucket closes when the test
// ends.
func tempBucket(t *testing.T) (dir string, b *blob.Bucket) {
	t.Helper()
	dir = t.TempDir()
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return dir, b
}
