package cli

import (
	"context"
	"strings"
	"testing"
)

// TestCloudDrivers: the default build links every cloud driver; a build
// that leaves one out (-tags resumectl_nogcs, …) refuses its URLs naming
// the tag, before any I/O.
func TestCloudDrivers(t *testing.T) {
	for _, s := range []string{"s3", "gs", "azblob"} {
		if tag := builtWithout(s); tag != "" {
			t.Errorf("%s: left out (%s) in the default build", s, tag)
		}
	}
	defer func(was bool) { linkedSchemes["gs"] = was }(linkedSchemes["gs"])
	delete(linkedSchemes, "gs")
	_, err := openLocation(context.Background(), nil, "gs://bucket/ck")
	if err == nil || !strings.Contains(err.Error(), "gs:// is not built into this resumectl (built with -tags resumectl_nogcs)") {
		t.Fatalf("gs:// without its driver: %v", err)
	}
}
