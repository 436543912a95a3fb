package localblob_test

import (
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/resume/localblob"
)

// TestOnKey: every call that names a key reports it before it runs (also
// when it fails), and a listing reports its prefix.
func TestOnKey(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "job", "chk-1", "_metadata"), "m")
	var (
		mu   sync.Mutex
		keys []string
	)
	b := open(t, dir, &localblob.Options{NoSync: true, OnKey: func(k string) {
		mu.Lock()
		keys = append(keys, k)
		mu.Unlock()
	}})
	if _, err := b.ReadAll(bg, "job/chk-1/_metadata"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Attributes(bg, "job/shared/missing"); err == nil {
		t.Fatal("attributes of a missing file succeeded")
	}
	if err := b.WriteAll(bg, "consumer/consumer-a", []byte("{}"), nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Copy(bg, "consumer/consumer-b", "consumer/consumer-a", nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(bg, "consumer/consumer-a"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.ListPage(bg, blob.FirstPageToken, 10, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"job/chk-1/_metadata", "job/shared/missing", "consumer/consumer-a",
		"consumer/consumer-a", "consumer/consumer-b", "consumer/consumer-a", ""}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(keys, want) {
		t.Errorf("OnKey saw %q, want %q", keys, want)
	}
}
