package flinkckpt

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/localblob"
)

// realSnap opens chk-<id> of job in the frozen real Flink 1.20.3 export of
// scenario (testdata/conformance), read in place.
func realSnap(t *testing.T, scenario, job string, id int64) *snap {
	t.Helper()
	dir := "testdata/conformance/" + scenario
	key := "ck/" + job + "/chk-" + strconv.FormatInt(id, 10) + "/"
	data, err := os.ReadFile(dir + "/" + key + "_metadata")
	if err != nil {
		t.Fatal(err)
	}
	md, err := metadata.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := localblob.OpenBucket(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return &snap{loc: &loc{bucket: b}, key: key, job: job, id: id, md: md}
}

// TestLiveChecksStopOnCancelledContext: the live source and sink checks
// loop over as many sources, committers and transactions as the snapshot
// holds; a context cancelled once the state is decoded stops them with the
// context's error, not a result built on (issue 31 item 1: "every loop
// over input-sized data checks the context"). On real Flink 1.20.3
// checkpoints: K4's chk-5 (a KafkaSource) and K5's chk-7 (a sink committer
// holding one committable, its state in a real file).
func TestLiveChecksStopOnCancelledContext(t *testing.T) {
	r := &Resolver{opts: Options{Live: &livecheck.Checkers{}}}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	bg := context.Background()

	t.Run("sources", func(t *testing.T) {
		s := realSnap(t, "K4", "d511dcf32be4a9364d147255ce425704", 5)
		rd := &stateReader{ctx: bg, b: s.loc.bucket, snap: &Snapshot{Key: s.key}, limit: sourcestate.DefaultMaxStreamSize}
		st, err := sourcestate.Decode(s.md, &sourcestate.Options{ReadStream: rd.read})
		if err != nil {
			t.Fatal(err)
		}
		live, err := r.checkDecodedSources(bg, s, st)
		if err != nil || len(live.sources) == 0 {
			t.Fatalf("live context: %d sources, %v; want the KafkaSource (not checked: no checker)", len(live.sources), err)
		}
		live, err = r.checkDecodedSources(cancelled, s, st)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled context: got %+v, %v; want an error wrapping context.Canceled", live, err)
		}
	})
	t.Run("sinks", func(t *testing.T) {
		s := realSnap(t, "K5", "0c11c64eb20b8f55e03fa21869ad2c64", 7)
		st, err := SinkState(bg, s.loc.bucket, &Snapshot{Key: s.key, Metadata: s.md})
		if err != nil {
			t.Fatal(err)
		}
		sinks, err := r.checkDecodedSinks(bg, s, st)
		if err != nil || len(sinks.sinks) == 0 {
			t.Fatalf("live context: %d committers, %v; want K5's sink committer", len(sinks.sinks), err)
		}
		sinks, err = r.checkDecodedSinks(cancelled, s, st)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled context: got %+v, %v; want an error wrapping context.Canceled", sinks, err)
		}
	})
}
