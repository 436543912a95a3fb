package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocalKeysShownAsPaths(t *testing.T) {
	if filepath.Separator != '/' {
		t.Skip("the cases are written for a file system rooted at /")
	}
	// Keys are relative to each bucket's directory; what a command used in
	// a bucket (localblob's OnKey) marks a word as one of its keys.
	var p localPaths
	ck := p.dir("/data/ck")
	ck("") // the whole directory listed
	ck("job/chk-41/_metadata")
	ck("job/shared/sst-3")
	tbl := p.dir("/srv/wh/db.db/t/")
	tbl("consumer/consumer-")
	tbl("snapshot/snapshot-3")
	tbl("_metadata-like") // a file at the top of the directory
	p.dir("/x")("common/1")
	p.dir("/y")("common/2")
	for in, want := range map[string]string{
		`first: job/shared/sst-3`:                   `first: /data/ck/job/shared/sst-3`,
		`flinkckpt: list "job/": boom`:              `flinkckpt: list "/data/ck/job/": boom`,
		`flinkckpt: "": nothing at all`:             `flinkckpt: "/data/ck/": nothing at all`, // the directory itself
		`consumer file consumer/consumer-a:`:        `consumer file /srv/wh/db.db/t/consumer/consumer-a:`,
		`job/chk-1/`:                                `/data/ck/job/chk-1/`,
		`-s file:///data/ck/job/chk-41`:             `-s file:///data/ck/job/chk-41`, // a URL: left alone
		`s3://bucket/job/x and job/y`:               `s3://bucket/job/x and /data/ck/job/y`,
		`metadata/x (read job/a, snapshot/b)`:       `metadata/x (read /data/ck/job/a, /srv/wh/db.db/t/snapshot/b)`,
		`other/ck/x`:                                `other/ck/x`,
		`"key": "job/chk-41/"`:                      `"key": "/data/ck/job/chk-41/"`,
		`jobs/x`:                                    `jobs/x`, // a segment is matched whole
		`read "_metadata-like": gone`:               `read "/srv/wh/db.db/t/_metadata-like": gone`,
		`no _metadata-like here`:                    `no _metadata-like here`,      // unquoted top-level names are words
		`common/1 is in /x and /y`:                  `/x/common/1 is in /x and /y`, // two directories share "common": the second segment tells
		`common/3 is in /x and /y`:                  `common/3 is in /x and /y`,    // neither used it: unknown which
		`chk-43 of job job: no _metadata (deleted)`: `chk-43 of job job: no _metadata (deleted)`,
	} {
		if got := string(p.rewrite([]byte(in))); got != want {
			t.Errorf("%q -> %q, want %q", in, got, want)
		}
	}
	p.dir("/other")("") // a second bucket listed everything: "" is ambiguous
	if got := string(p.rewrite([]byte(`flinkckpt: "": nothing`))); got != `flinkckpt: "": nothing` {
		t.Errorf("ambiguous empty prefix rewritten: %q", got)
	}

	// A changelog checkpoint with --flink-extra-root (conformance F4): the
	// checkpoint root's keys and the DSTL root's keys (Flink writes
	// <base>/<jobId>/dstl/<uuid>) share the job id; the second segment tells.
	var q localPaths
	root := q.dir("/w/ck")
	root("j1/")
	root("j1/chk-6/_metadata")
	root("j1/taskowned/t1")
	root("j1/shared/s1")
	dstl := q.dir("/w/dstl")
	dstl("j1/dstl/u1")
	dstl("j1/dstl/u2")
	q.dir("/a")("both/x/1")
	q.dir("/b")("both/x/2")
	for in, want := range map[string]string{
		`broken: 1 of 9 referenced files missing, first: j1/dstl/u1`: `broken: 1 of 9 referenced files missing, first: /w/dstl/j1/dstl/u1`,
		`first: j1/taskowned/t1; chk-4`:                              `first: /w/ck/j1/taskowned/t1; chk-4`,
		`(read j1/chk-6/_metadata)`:                                  `(read /w/ck/j1/chk-6/_metadata)`,
		`list "j1/": boom`:                                           `list "j1/": boom`, // the job dir: in both
		`j1/other/x`:                                                 `j1/other/x`,       // used in neither
		`both/x/1`:                                                   `both/x/1`,         // two directories at both levels
	} {
		if got := string(q.rewrite([]byte(in))); got != want {
			t.Errorf("%q -> %q, want %q", in, got, want)
		}
	}

	// Through Main: reports and errors name the directory as given, the
	// JSON document keeps bucket keys (relative to the directory).
	dir := t.TempDir()
	_, errOut, code := run(t, "paimon", "snapshots", dir)
	if code != ExitFailed || !strings.Contains(errOut, " "+dir+"/snapshot/") || strings.Contains(errOut, " snapshot/") {
		t.Errorf("exit %d, stderr %q: want %s/snapshot/ named as a path", code, errOut, dir)
	}
	out, errOut, _ := run(t, "resolve", "--flink-checkpoints", dir)
	if want := `flinkckpt: "file://` + dir + `": nothing at all is stored there`; !strings.Contains(out, want) || !strings.Contains(errOut, want) || strings.Contains(out+errOut, `""`) {
		t.Errorf("the report and the error do not name %s as a path:\n%s\n%s", dir, out, errOut)
	}
	out, _, _ = run(t, "resolve", "--flink-checkpoints", dir, "--json")
	if !strings.Contains(out, `flinkckpt: \"file://`+dir+`\": nothing at all is stored there`) || strings.Contains(out, `\"\"`) {
		t.Errorf("the JSON document does not name the directory by its Flink URI:\n%s", out)
	}

	// A checkpoint dir is confined to its job dir: its shared files are
	// keys of the job dir, shown below it.
	job := filepath.Join(dir, "job")
	if err := os.MkdirAll(filepath.Join(job, "chk-7"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = run(t, "flink", "inspect", filepath.Join(job, "chk-7"))
	if want := `"` + job + `/chk-7/_metadata"`; code == ExitOK || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q: want %s", code, errOut, want)
	}
}
