package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
)

// TestResolveObserveOnSalvagePath (issue 22 item 4): a new job whose state
// does not fit leaves the restore path nothing, and the salvage start is
// the one chosen. resolve --flink-observe holds on that path too: quiet,
// the salvage start says what was observed; with a checkpoint appearing
// during the window the resolve fails instead of choosing it. The window
// is the flinkWait hook: no real sleep.
func TestResolveObserveOnSalvagePath(t *testing.T) {
	dir, b := tempBucket(t)
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "file://" + filepath.ToSlash(dir) + "/"}
	write := func(id int64) {
		t.Helper()
		if _, err := l.Checkpoint(context.Background(), flinkTestJob, id, &flinkckpttest.Checkpoint{
			Sources: []flinkckpttest.Source{flinkckpttest.KafkaSource("orders", "topic", 10*id)}}); err != nil {
			t.Fatal(err)
		}
	}
	write(1)
	args := []string{"resolve", "--flink-checkpoints", filepath.Join(dir, "ck"), "--flink-uid", "uid-0", "--flink-uid", "uid-1",
		"--flink-uid", "orders-v2", "--flink-all-uids", "--flink-observe", "5s"}
	waits := 0
	var during func()
	hk := &hooks{wait: noWait, flinkWait: func(_ context.Context, d time.Duration) error {
		waits++
		if d != 5*time.Second {
			t.Errorf("waited %s", d)
		}
		if during != nil {
			during()
		}
		return nil
	}}
	var out, errOut bytes.Buffer
	code := runHooked(args, &out, &errOut, hk)
	if code != ExitOK || waits != 1 || !strings.Contains(out.String(), "CHOSEN  flink-salvage") || !strings.Contains(out.String(), "no new checkpoint appeared") {
		t.Fatalf("quiet: exit %d, %d waits\n%s\n%s", code, waits, out.String(), errOut.String())
	}
	waits, during = 0, func() { write(2) }
	out.Reset()
	errOut.Reset()
	code = runHooked(args, &out, &errOut, hk)
	if code == ExitOK || waits != 1 || strings.Contains(out.String(), "CHOSEN  flink-salvage") || !strings.Contains(out.String()+errOut.String(), "chk-2") {
		t.Errorf("checkpoint during the window: exit %d, %d waits\n%s\n%s", code, waits, out.String(), errOut.String())
	}
}
