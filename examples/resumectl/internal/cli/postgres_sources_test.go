package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
)

// flink sources lists a Flink CDC Postgres source as postgres-cdc, with
// {"lsn", "tx_id", "ts_usec"} in JSON and one line in text.
func TestFlinkSourcesPostgres(t *testing.T) {
	dir, b := tempBucket(t)
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "file://" + filepath.ToSlash(dir) + "/"}
	if _, err := l.Checkpoint(context.Background(), flinkTestJob, 1, &flinkckpttest.Checkpoint{Version: 5,
		Sources: []flinkckpttest.Source{flinkckpttest.PostgresSource("orders-cdc", 23803720, 767, 1764583200123456)}}); err != nil {
		t.Fatal(err)
	}
	chk := filepath.Join(dir, "ck", flinkTestJob, "chk-1")
	out, errOut, code := runFlinkCLI(t, "flink", "sources", chk, "--json")
	if code != 0 || !strings.Contains(out, `"kind": "postgres-cdc"`) || !strings.Contains(out, `"lsn": "0/16B3748"`) || !strings.Contains(out, `"tx_id": 767`) || !strings.Contains(out, `"ts_usec": 1764583200123456`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	out, _, code = runFlinkCLI(t, "flink", "sources", chk)
	if code != 0 || !strings.Contains(out, "postgres-cdc") || !strings.Contains(out, "    lsn 0/16B3748, tx_id 767, ts_usec 1764583200123456\n") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}
