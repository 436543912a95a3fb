package s3test_test

import (
	"context"
	"testing"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/resume/resumetest/s3test"
)

func TestRoundTripWithDelimiterListing(t *testing.T) {
	ctx := context.Background()
	srv := s3test.NewServer(t)
	b := srv.Bucket(t, "ckpt")
	for _, k := range []string{"job/chk-1/_metadata", "job/chk-2/_metadata", "job/shared/x"} {
		if err := b.WriteAll(ctx, k, []byte(k), nil); err != nil {
			t.Fatal(err)
		}
	}
	it := b.List(&blob.ListOptions{Prefix: "job/", Delimiter: "/"})
	var got []string
	for {
		o, err := it.Next(ctx)
		if err != nil {
			break
		}
		got = append(got, o.Key)
	}
	if len(got) != 3 || got[0] != "job/chk-1/" || got[2] != "job/shared/" {
		t.Errorf("listing = %q, want the three directories", got)
	}
	data, err := b.ReadAll(ctx, "job/chk-2/_metadata")
	if err != nil || string(data) != "job/chk-2/_metadata" {
		t.Errorf("read = %q, %v", data, err)
	}
}
