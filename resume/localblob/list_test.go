package localblob_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/resume/localblob"
)

// TestListingsMatchMemblob writes the same random tree to memblob and
// localblob and compares every listing (prefixes, delimiters, page sizes):
// same keys, same order, same pages.
func TestListingsMatchMemblob(t *testing.T) {
	dir := t.TempDir()
	lb := open(t, dir, &localblob.Options{NoSync: true})
	mb := memblob.OpenBucket(nil)
	defer mb.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	segs := []string{"a", "a-b", "a0", "b", "chk-1", "chk-10", "chk-2", "shared", "x.y", "_metadata", "z~"}
	for i := 0; i < 300; i++ {
		n := 1 + rng.IntN(4)
		key := ""
		for j := 0; j < n; j++ {
			if j > 0 {
				key += "/"
			}
			key += segs[rng.IntN(len(segs))]
		}
		key += fmt.Sprint(rng.IntN(3))
		if err := mb.WriteAll(bg, key, []byte(key), nil); err != nil {
			t.Fatal(err)
		}
		if err := lb.WriteAll(bg, key, []byte(key), nil); err != nil {
			// A file where a directory is needed (a0 then a0/b): skip the
			// key in both stores.
			mb.Delete(bg, key)
		}
	}
	type item struct {
		Key   string
		IsDir bool
		Size  int64
	}
	list := func(b *blob.Bucket, prefix, delim string, size int) ([][]item, error) {
		var pages [][]item
		tok := blob.FirstPageToken
		for len(tok) > 0 {
			objs, next, err := b.ListPage(bg, tok, size, &blob.ListOptions{Prefix: prefix, Delimiter: delim})
			if err != nil {
				return nil, err
			}
			var p []item
			for _, o := range objs {
				p = append(p, item{o.Key, o.IsDir, o.Size})
			}
			pages = append(pages, p)
			tok = next
		}
		return pages, nil
	}
	for _, prefix := range []string{"", "a", "a/", "a-b/", "chk-1", "chk-1/", "shared/chk", "nothing/", "a/a/"} {
		for _, delim := range []string{"", "/", "-"} {
			for _, size := range []int{1, 3, 1000} {
				want, err := list(mb, prefix, delim, size)
				if err != nil {
					t.Fatal(err)
				}
				got, err := list(lb, prefix, delim, size)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(flatten(want), flatten(got)); diff != "" {
					t.Errorf("prefix %q delimiter %q page %d (-memblob +localblob):\n%s", prefix, delim, size, diff)
				}
			}
		}
	}
}

func flatten[T any](pages [][]T) []T {
	var out []T
	for _, p := range pages {
		out = append(out, p...)
	}
	return out
}

// TestListReadsEachDirectoryOnce pages through a directory of 3,000 entries
// with pages of 1,000 and with gocloud's iterator: one directory read each.
func TestListReadsEachDirectoryOnce(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 3000; i++ {
		mustWrite(t, filepath.Join(dir, "job", fmt.Sprintf("chk-%d", i), "_metadata"), "")
	}
	var mu sync.Mutex
	reads := map[string]int{}
	b := open(t, dir, &localblob.Options{OnReadDir: func(d string) {
		mu.Lock()
		reads[d]++
		mu.Unlock()
	}})
	n := 0
	tok := blob.FirstPageToken
	for len(tok) > 0 {
		objs, next, err := b.ListPage(bg, tok, 1000, &blob.ListOptions{Prefix: "job/", Delimiter: "/"})
		if err != nil {
			t.Fatal(err)
		}
		n += len(objs)
		tok = next
	}
	if n != 3000 || reads["job"] != 1 {
		t.Errorf("paged listing: %d entries, job/ read %d times; want 3000 and 1", n, reads["job"])
	}
	it := b.List(&blob.ListOptions{Prefix: "job/", Delimiter: "/"})
	n = 0
	for {
		if _, err := it.Next(bg); err != nil {
			break
		}
		n++
	}
	if n != 3000 || reads["job"] != 2 || len(reads) != 1 {
		t.Errorf("iterator: %d entries, reads %v; want 3000 and job read once more, no other directory", n, reads)
	}
}
