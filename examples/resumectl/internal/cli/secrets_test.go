package cli

import (
	"bytes"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/resume/redact"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
	"github.com/resumekit/resumekit/resume/resumetest/s3test"
)

// plantedSecret has the characters that defeat a regular expression over
// URLs: half of AWS secret keys contain "/".
const plantedSecret = "wJalrXUt/nFEMI@K7MDENG/bPxRfiCY"

// secretParts are pieces of plantedSecret; none may ever be printed.
var secretParts = []string{"wJalrXUt", "nFEMI", "K7MDENG", "bPxRfiCY"}

// TestNoCommandPrintsASecret sweeps every command — successful runs,
// usage errors, storage errors from the S3 SDK (gofakes3 on 127.0.0.1), URLs
// that net/url refuses, errors and panics from inside the storage layer that
// quote the secret — and checks stdout and stderr for any part of a planted
// secret.
func TestNoCommandPrintsASecret(t *testing.T) {
	srv := s3test.NewServer(t)
	srv.Bucket(t, "data")
	// anonymous: no credential lookup (the instance metadata endpoint is
	// off this machine); s3test no longer sets credentials in the environment.
	ep := "endpoint=" + srv.URL + "&use_path_style=true&disable_https=true&region=us-east-1&anonymous=true"
	dir, _ := paimonDir(t, nil)
	ck := localLayout(t)
	sp := sourcesDir(t)
	mounted, _ := blobtest.Mount(t, memblob.OpenBucket(nil), nil) // blobtest://m<n>
	urls := []string{
		strings.Replace(mounted, "://", "://AKIAEXAMPLE:"+url.PathEscape(plantedSecret)+"@", 1) + "/wh", // a test helper's URL
		mounted + "/wh?token=" + plantedSecret,
		"s3://AKIAEXAMPLE:" + plantedSecret + "@data/wh/db.db/t?" + ep,                      // user info url.Parse refuses
		"s3://data/wh/db.db/t?" + ep + "&token=" + plantedSecret,                            // a query value the SDK refuses
		"s3://nosuchbucket/ck?" + ep,                                                        // an SDK error, no secret
		"azblob://c/p?sv=1&sig=" + plantedSecret,                                            // another driver's query secret
		"nosuch://u:" + plantedSecret + "@h/p",                                              // no driver
		"file://admin:" + plantedSecret + "@localhost" + dir,                                // file URL with user info
		"s3://data/%zz?password=" + plantedSecret + "&" + ep,                                // a bad escape
		"s3://AKIAEXAMPLE:" + strings.ReplaceAll(plantedSecret, "/", "%2F") + "@data/t",     // percent-encoded
		"s3://data/wh?endpoint=http://u:" + plantedSecret + "@127.0.0.1:1&region=us-east-1", // an endpoint with user info (the SDK quotes part of it)
		"s3://data/wh?region=us-east-1&endpoint=" + url.QueryEscape("http://u:"+plantedSecret+"@127.0.0.1:1"),
		"mem://?token=" + plantedSecret,                           // a query value with "@host/" in it
		"FILE://admin:" + plantedSecret + "@localhost" + dir,      // a file URL in capitals
		"file://" + dir + "?token=" + plantedSecret,               // a file URL with a query
		"s3a://AKIAEXAMPLE:" + plantedSecret + "@data/flink/ck",   // a Flink URI (--flink-root, --flink-extra-root's FLINKURI)
		"hdfs://admin:" + url.PathEscape(plantedSecret) + "@ns/x", // a Flink default file system
	}
	var runs [][]string
	for _, u := range urls {
		runs = append(runs,
			[]string{"resolve", "--flink-checkpoints", u},
			[]string{"resolve", "--flink-savepoints", u, "--json"},
			[]string{"resolve", "--paimon-table", u, "--paimon-consumer", "job"},
			[]string{"resolve", "--paimon-table", u, "--paimon-consumer", "job", "--format", "json"},
			[]string{"flink", "list", u},
			[]string{"flink", "list", u, "--json"},
			[]string{"flink", "inspect", u},
			[]string{"flink", "sources", u, "--json"},
			[]string{"flink", "compat", u, "--uid", "a"},
			[]string{"resolve", "--flink-savepoints", u, "--flink-sources"},
			[]string{"paimon", "consumers", u},
			[]string{"paimon", "consumers", u, "--json"},
			[]string{"paimon", "snapshots", u},
			[]string{"paimon", "reset-consumer", u, "--consumer", "job", "--next-snapshot", "8"},
			[]string{"paimon", "reset-consumer", u, "--consumer", "job", "--next-snapshot", "8", "--execute", "--json"},
			[]string{"resolve", "--flink-checkpoints", ck, "--flink-root", u},
			[]string{"resolve", "--flink-checkpoints", ck, "--flink-anchor", u},
			[]string{"resolve", "--flink-checkpoints", ck, "--flink-extra-root", "s3a://other/=" + u},
			[]string{"resolve", "--flink-checkpoints", ck, "--flink-extra-root=s3a://other/=" + u, "--json"},
			[]string{"resolve", "--flink-checkpoints", u, "--flink-job-id", "xyz"},                // usage error
			[]string{"paimon", "snapshots", u, "--limit", "0"},                                    // usage error
			[]string{"resolve", "--kafka-brokers", "127.0.0.1:1", "--kafka-topic", u},             // an invalid topic quoting it
			[]string{"kafka", "offsets", "--brokers", "127.0.0.1:1", "--topic", u, "--at", "-1h"}, // the same
			[]string{"nosuch", u},
			[]string{"resolve", "--flink-checkpoints", u, "--flink-uid", "a"}, // salvage offered automatically
			[]string{"resolve", "--flink-savepoints", sp, "--flink-sources", "--paimon-table", u},
			[]string{"resolve", "--flink-checkpoints", ck, "--flink-default-fs", u},
			[]string{"resolve", "--flink-checkpoints", ck, "--flink-extra-root", u + "=" + ck},
			[]string{"flink", "list", ck, "--flink-extra-root", "s3a://other/=" + u},
			[]string{"flink", "inspect", ck, "--flink-root", u, "--json"},
			[]string{"flink", "sources", sp + "/savepoint-5e1f00-000000000001", "--flink-root", u},
			[]string{"flink", "compat", sp + "/savepoint-5e1f00-000000000001", "--plan", u},
			[]string{"resolve", "--flink-savepoints", sp, "--flink-plan", u},
			[]string{"demo", "--keep", u},
		)
	}
	// Not URLs, but where a user may paste credentials.
	runs = append(runs,
		[]string{"kafka", "offsets", "--brokers", "admin:" + plantedSecret + "@127.0.0.1:1", "--topic", "t", "--group", "g"},
		[]string{"resolve", "--kafka-brokers", "admin:" + plantedSecret + "@127.0.0.1:1", "--kafka-topic", "t", "--kafka-group", "g"},
		[]string{"resolve", "--flink-savepoints", sp, "--flink-sources", "--kafka-brokers", "admin:" + plantedSecret + "@127.0.0.1:1"},
	)
	// Storage that quotes the secret in its errors, and that panics with
	// it: bare (masked because the URL given carries it) and inside URLs
	// (masked by structure).
	fault := func(bare bool) func(blobtest.Call) error {
		msg := "GET https://AKIAEXAMPLE:" + plantedSecret + "@data.s3.amazonaws.com/x?X-Amz-Signature=" + plantedSecret + " failed"
		if bare {
			msg += "; secret " + plantedSecret
		}
		return func(blobtest.Call) error { return errors.New("SDK: " + msg) }
	}
	wrap := func(f func(blobtest.Call) error) *hooks {
		return &hooks{wait: noWait, bucket: func(b *blob.Bucket) *blob.Bucket {
			w, _ := blobtest.Wrap(b, &blobtest.Options{Fault: f})
			return w
		}}
	}
	panicking := func(bare bool) func(blobtest.Call) error {
		return func(c blobtest.Call) error {
			msg := "driver bug near s3://AKIAEXAMPLE:" + plantedSecret + "@data/x?secret=" + plantedSecret + ", key " + c.Key
			if bare {
				msg += ", " + plantedSecret
			}
			panic(msg)
		}
	}
	// A URL that parses (the secret percent-encoded), on the S3 endpoint.
	s3u := "s3://AKIAEXAMPLE:" + strings.NewReplacer("/", "%2F", "@", "%40").Replace(plantedSecret) + "@data/wh?" + ep
	var hooked []struct {
		args []string
		h    *hooks
	}
	for _, loc := range []string{s3u, dir, ck} {
		bare := loc == s3u
		for _, h := range []*hooks{wrap(fault(bare)), wrap(panicking(bare))} {
			for _, args := range [][]string{
				{"resolve", "--paimon-table", loc, "--paimon-consumer", "job"},
				{"resolve", "--flink-checkpoints", loc, "--json"},
				{"paimon", "consumers", loc},
				{"paimon", "snapshots", loc, "--json"},
				{"paimon", "reset-consumer", loc, "--consumer", "job", "--next-snapshot", "8", "--execute", "--force"},
				{"flink", "list", loc},
				{"flink", "inspect", loc},
				{"flink", "sources", loc},
				{"flink", "compat", loc, "--uid", "a"},
				{"resolve", "--flink-checkpoints", ck, "--flink-anchor", loc},
				{"resolve", "--flink-checkpoints", ck, "--flink-extra-root=s3a://other/=" + loc},
				{"flink", "inspect", ck + "/0123456789abcdef0123456789abcdef/chk-1", "--flink-extra-root", "s3a://other/=" + loc},
				{"resolve", "--flink-checkpoints", loc, "--flink-uid", "a"},
				{"resolve", "--flink-savepoints", sp, "--flink-sources", "--paimon-table", loc},
			} {
				hooked = append(hooked, struct {
					args []string
					h    *hooks
				}{args, h})
			}
		}
	}
	// demo's storage quoting secrets by structure (it has no URL whose
	// secret it could know bare).
	for _, h := range []*hooks{wrap(fault(false)), wrap(panicking(false))} {
		hooked = append(hooked, struct {
			args []string
			h    *hooks
		}{[]string{"demo"}, h})
	}
	check := func(args []string, h *hooks) {
		t.Helper()
		var out, errOut bytes.Buffer
		code := runHooked(args, &out, &errOut, h)
		all := out.String() + errOut.String()
		if testing.Verbose() {
			t.Logf("resumectl %.120q: exit %d\n%s", args, code, all)
		}
		for _, p := range secretParts {
			if strings.Contains(all, p) {
				t.Errorf("resumectl %q (exit %d) prints %q:\n%s", args, code, p, all)
				return
			}
		}
	}
	for _, args := range runs {
		check(args, &hooks{wait: noWait})
	}
	for _, r := range hooked {
		check(r.args, r.h)
	}
}

// TestURLArgsFindEveryURL: the output learns the exact secrets of every URL
// on the command line, also the second of --flink-extra-root's
// FLINKURI=BUCKETURL, where a bare secret would otherwise be known only as
// part of a longer string.
func TestURLArgsFindEveryURL(t *testing.T) {
	got := urlArgs([]string{"resolve", "--flink-extra-root=s3a://o/=s3://AK:" + plantedSecret + "@b/x?region=r", "dir",
		"s3://b/p?endpoint=http://127.0.0.1:1&token=" + plantedSecret})
	want := []string{
		"--flink-extra-root=s3a://o/=s3://AK:" + plantedSecret + "@b/x?region=r", "s3a://o/", "s3://AK:" + plantedSecret + "@b/x?region=r",
		"s3://b/p?endpoint=http://127.0.0.1:1&token=" + plantedSecret, // one URL: the endpoint is in its query
	}
	if !slices.Equal(got, want) {
		t.Errorf("urlArgs = %q\nwant %q", got, want)
	}
	red := redact.New(got...)
	for _, msg := range []string{"SDK: bad secret " + plantedSecret, "SDK: bad token " + plantedSecret} {
		if m := red.String(msg); strings.Contains(m, secretParts[0]) {
			t.Errorf("%q masked as %q", msg, m)
		}
	}
}
