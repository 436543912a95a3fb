package cli

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/examples/internal/scenario"
	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
	"github.com/resumekit/resumekit/resume/resumetest/s3test"
)

// TestResolveOverS3 runs resolve against a real S3 HTTP endpoint (gofakes3
// on 127.0.0.1) through s3blob, with the URL options a MinIO, OBS or OSS
// bucket takes: checkpoints with absolute s3a:// references (Flink root
// inferred) and a Paimon consumer, one chain.
func TestResolveOverS3(t *testing.T) {
	srv := s3test.NewServer(t)
	srv.SetTime(scenario.Now) // the story's files are written at its now, after every commit
	b := srv.Bucket(t, "data")
	// S3 sets modification times itself; this story needs none of them to
	// decide (checkpoints of one job dir go by id, Paimon by snapshot time,
	// its consumer file being newer than the snapshots it consumed).
	env := &scenario.Env{Bucket: b, Root: "s3a://data/", Touch: func(string, time.Time) error { return nil }}
	if _, err := scenario.BuildFlink(env, "prod/"); err != nil {
		t.Fatal(err)
	}
	if _, err := scenario.BuildPaimon(env, "prod/"); err != nil {
		t.Fatal(err)
	}
	withPath := func(path string) string {
		u := srv.BucketURL("data")
		i := strings.Index(u, "?")
		return u[:i] + "/" + path + u[i:]
	}
	var out, errOut strings.Builder
	code := Main([]string{"resolve",
		"--flink-checkpoints", withPath("prod/checkpoints"),
		"--paimon-table", withPath("prod/warehouse/shop.db/orders"), "--paimon-consumer", "orders-enrich",
		"--json"}, &out, &errOut)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %s\n%s", code, errOut.String(), out.String())
	}
	var d resume.Decision
	if err := json.Unmarshal([]byte(out.String()), &d); err != nil {
		t.Fatal(err)
	}
	if d.Chosen == nil || d.Chosen.Resolver != "flink-checkpoints" {
		t.Fatalf("chosen %+v", d.Chosen)
	}
	if got, want := d.Chosen.Position.Launch().Args, "s3a://data/prod/checkpoints/9f2c6d0b41e8a7355c1d2e3f4a5b6c7d/chk-41"; len(got) != 2 || got[1] != want {
		t.Errorf("launch args %q, want -s %s", got, want)
	}
	if d.Considered[1].Verdict != resume.VerdictRejected || d.Considered[1].Candidate.Guarantee != resume.Replay {
		t.Errorf("paimon outcome %+v", d.Considered[1])
	}

	// A canonical savepoint references only relative files: the Flink path
	// falls back to the bucket as Flink's S3 file systems name it.
	out.Reset()
	errOut.Reset()
	if code := Main([]string{"resolve", "--flink-savepoints", withPath("prod/savepoints"), "--json"}, &out, &errOut); code != ExitOK {
		t.Fatalf("savepoints: exit %d, stderr %s\n%s", code, errOut.String(), out.String())
	}
	d = resume.Decision{}
	if err := json.Unmarshal([]byte(out.String()), &d); err != nil {
		t.Fatal(err)
	}
	if args := d.Chosen.Position.Launch().Args; len(args) != 2 || !strings.HasPrefix(args[1], "s3://data/prod/savepoints/savepoint-9f2c6d-") {
		t.Errorf("savepoint launch %q, want -s s3://data/prod/savepoints/savepoint-9f2c6d-…", args)
	}
	if !d.Chosen.HasWarning(flinkckpt.WarnPathFromLocation) {
		t.Errorf("warnings %q lack the fallback note", d.Chosen.Warnings)
	}
}

// TestResolveNeverPrintsCredentials opens a bucket whose URL carries secrets
// and fails: neither the report nor the error shows them.
func TestResolveNeverPrintsCredentials(t *testing.T) {
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true") // loopback only: no instance metadata lookups
	var out, errOut strings.Builder
	code := Main([]string{"resolve", "--flink-checkpoints", "s3://AKIAEXAMPLE:hunter2@data/ck?endpoint=http://127.0.0.1:1&region=x&secret_access_key=hunter3&use_path_style=true&disable_https=true", "--timeout", "3s"}, &out, &errOut)
	if code == ExitOK {
		t.Fatalf("exit 0 on an unreachable store")
	}
	all := out.String() + errOut.String()
	for _, secret := range []string{"hunter2", "hunter3", "AKIAEXAMPLE"} {
		if strings.Contains(all, secret) {
			t.Errorf("output shows %q:\n%s", secret, all)
		}
	}

	// Credentials in an endpoint, which the SDK would quote in its errors:
	// refused before any request (exit 2), not printed.
	t.Setenv("AWS_ACCESS_KEY_ID", "resumekit-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "resumekit-test")
	out.Reset()
	errOut.Reset()
	code = Main([]string{"resolve", "--flink-checkpoints", "s3://data/ck?endpoint=http://AKIAUSER:sekrit@127.0.0.1:1&region=x&use_path_style=true&disable_https=true", "--timeout", "3s", "--json"}, &out, &errOut)
	all = out.String() + errOut.String()
	if code != ExitUsage || strings.Contains(all, "AKIAUSER") || strings.Contains(all, "sekrit") || !strings.Contains(errOut.String(), `query parameter "endpoint" is a URL with user information`) {
		t.Errorf("exit %d, want 2 without the credentials:\n%s", code, all)
	}

	// A storage error quoting such an endpoint: the JSON document is
	// redacted like the text report.
	out.Reset()
	errOut.Reset()
	quoting := &hooks{wait: noWait, bucket: func(b *blob.Bucket) *blob.Bucket {
		w, _ := blobtest.Wrap(b, &blobtest.Options{Fault: func(blobtest.Call) error {
			return errors.New(`operation error S3: ListObjectsV2, https response error: Get "http://AKIAUSER:sekrit@127.0.0.1:1/data?list-type=2": connection refused`)
		}})
		return w
	}}
	runHooked([]string{"resolve", "--flink-checkpoints", "mem://ck", "--json"}, &out, &errOut, quoting)
	all = out.String() + errOut.String()
	if strings.Contains(all, "AKIAUSER") || strings.Contains(all, "sekrit") {
		t.Errorf("the JSON run shows credentials:\n%s", all)
	}
	if !strings.Contains(out.String(), `"verdict": "failed"`) {
		t.Errorf("no failed outcome in the document:\n%s", out.String())
	}

	// Database connection strings, both forms, every output format.
	t.Run("DSN", resolveNeverPrintsDSNCredentials)
}
