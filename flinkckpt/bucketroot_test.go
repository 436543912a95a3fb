package flinkckpt_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/s3test"
)

// Issue 31: without --flink-root the root (scheme and authority) was
// inferred from _metadata and never compared with the bucket that was
// read: a checkpoint in bucket data written with root
// s3a://attacker-bucket/ was verified in data and launched from
// attacker-bucket, and an authority like ckpt$(id) was launched as is.
// Over S3 (gofakes3): with the bucket's name known, an inferred root of
// another bucket is refused, naming both buckets and --flink-root; s3:// and
// s3a:// spellings of the bucket itself are accepted; an authority no
// bucket or host has is refused whatever the name.
func TestInferredRootMustBeTheBucketRead(t *testing.T) {
	ctx := context.Background()
	srv := s3test.NewServer(t)
	for _, tc := range []struct {
		name, root, bucketName string
		want                   string // the chosen path's prefix; "" when refused
		refusal                string
	}{
		{"attacker bucket", "s3a://attacker-bucket/", "data", "", `bucket "attacker-bucket"`},
		{"command in the authority", "s3a://ckpt$(id)/", "", "", "characters no bucket or host name has"},
		{"command in the authority, name known", "s3a://ckpt$(id)/", "data", "", "characters no bucket or host name has"},
		{"the bucket read, s3a", "s3a://data/", "data", "s3a://data/ck/", ""},
		{"the bucket read, s3", "s3://data/", "data", "s3://data/ck/", ""},
		{"name unknown (a copy's old bucket is kept)", "s3a://other/", "", "s3a://other/ck/", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := srv.Bucket(t, "data")
			l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: tc.root}
			if _, err := l.Checkpoint(ctx, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 7, &flinkckpttest.Checkpoint{Shared: []string{"s1", "s2"}}); err != nil {
				t.Fatal(err)
			}
			r, err := flinkckpt.NewResolver(b, "ck/", &flinkckpt.Options{BucketName: tc.bucketName})
			if err != nil {
				t.Fatal(err)
			}
			c, err := r.Resolve(ctx)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("chosen %s, want refused", c.Position.Launch().Args)
				}
				if !strings.Contains(err.Error(), tc.refusal) || !strings.Contains(err.Error(), "--flink-root") || strings.Contains(err.Error(), "$(id)/ck") && !strings.Contains(err.Error(), `"s3a://ckpt$(id)/"`) {
					t.Errorf("err %v, want one naming %s and --flink-root", err, tc.refusal)
				}
				var nf *flinkckpt.NoFlinkPathError
				if !errors.As(err, &nf) && !errors.Is(err, resume.ErrNoPosition) {
					t.Errorf("err %T %v", err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if args := c.Position.Launch().Args; len(args) < 2 || !strings.HasPrefix(args[1], tc.want) {
				t.Errorf("launch %v, want a path under %s", args, tc.want)
			}
		})
	}
}
