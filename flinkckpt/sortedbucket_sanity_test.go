package flinkckpt_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
)

// TestSortedBucketListsLikeMemblob keeps the benchmark bucket honest: its
// pages (with and without a delimiter, small page sizes) match memblob's.
func TestSortedBucketListsLikeMemblob(t *testing.T) {
	ctx := context.Background()
	s, m := openSortedBucket(), memblob.OpenBucket(nil)
	defer s.Close()
	defer m.Close()
	for i := 0; i < 300; i++ {
		k := fmt.Sprintf("r/j%d/chk-%d/f%d", i%4, i%17, i%5)
		if i%7 == 0 {
			k = fmt.Sprintf("r/j%d/file-%d", i%3, i)
		}
		for _, b := range []*blob.Bucket{s, m} {
			if err := b.WriteAll(ctx, k, []byte("x"), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	list := func(b *blob.Bucket, prefix, delim string, size int) []string {
		var out []string
		tok := blob.FirstPageToken
		for len(tok) > 0 {
			objs, next, err := b.ListPage(ctx, tok, size, &blob.ListOptions{Prefix: prefix, Delimiter: delim})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range objs {
				out = append(out, fmt.Sprint(o.Key, o.IsDir))
			}
			out = append(out, "|")
			tok = next
		}
		return out
	}
	for _, prefix := range []string{"", "r/", "r/j1/", "r/j1/chk-3/", "nope/"} {
		for _, delim := range []string{"", "/"} {
			for _, size := range []int{1, 3, 1000} {
				if diff := cmp.Diff(list(m, prefix, delim, size), list(s, prefix, delim, size)); diff != "" {
					t.Errorf("prefix %q delim %q size %d (-memblob +sorted):\n%s", prefix, delim, size, diff)
				}
			}
		}
	}
}
