package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestLocalKeysShownAsPaths(t *testing.T) {
	if filepath.Separator != '/' {
		t.Skip("the cases are written for a file system rooted at /")
	}
	var p localPaths
	p.add("/data/ck")
	p.add("file:///srv/wh/db.db/t")
	p.add("s3://data/ck") // not local
	p.add("")
	for in, want := range map[string]string{
		`first: data/ck/job/shared/sst-3`:                   `first: /data/ck/job/shared/sst-3`,
		`flinkckpt: list "data/ck/": boom`:                  `flinkckpt: list "/data/ck/": boom`,
		`consumer file srv/wh/db.db/t/consumer/consumer-a:`: `consumer file /srv/wh/db.db/t/consumer/consumer-a:`,
		`data/ck/chk-1/`:                                    `/data/ck/chk-1/`,
		`-s file:///data/ck/job/chk-41`:                     `-s file:///data/ck/job/chk-41`, // a URL: left alone
		`s3://data/ck/x and /data/ck/y`:                     `s3://data/ck/x and /data/ck/y`,
		`metadata/x (read data/ck/a, data/b)`:               `metadata/x (read /data/ck/a, /data/b)`,
		`other/ck/x`:                                        `other/ck/x`,
		`"key": "data/ck/job/chk-41/"`:                      `"key": "/data/ck/job/chk-41/"`,
		`datadog/x`:                                         `datadog/x`,
	} {
		if got := string(p.rewrite([]byte(in))); got != want {
			t.Errorf("%q -> %q, want %q", in, got, want)
		}
	}

	// Through Main: reports and errors name the directory as given, the
	// JSON document keeps bucket keys.
	dir := t.TempDir()
	key := strings.TrimPrefix(filepath.ToSlash(dir), "/")
	_, errOut, code := run(t, "paimon", "snapshots", dir)
	if code != ExitFailed || !strings.Contains(errOut, " "+dir+"/snapshot/") || strings.Contains(errOut, " "+key) {
		t.Errorf("exit %d, stderr %q: want %s/snapshot/ named as a path", code, errOut, dir)
	}
	out, _, _ := run(t, "resolve", "--flink-checkpoints", dir, "--json")
	if !strings.Contains(out, `\"`+key+`/\": nothing at all is stored there`) {
		t.Errorf("the JSON document does not keep the bucket key %s:\n%s", key, out)
	}
}
