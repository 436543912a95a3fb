package cli

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/k8s"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// The packages whose name prefixes error messages ("flinkckpt: …"), and
// resumectl's own.
var prefixRE = regexp.MustCompile(`\b(resume|k8s|flinkckpt|metadata|sourcestate|salvage|paimon|kafkaoffset|blobtest|s3test|resumetest|paimontest|kafkaoffsettest|flinkckpttest|localblob|resumectl): `)

// sentinels are the exported errors whose own text starts with their
// package's name; a wrapped sentinel at the end of a message names its
// package again by design (as sql.ErrNoRows says "sql: …" wherever it is
// wrapped).
var sentinels = []error{
	resume.ErrNoPosition, resume.ErrUsage, k8s.ErrStateless, flinkckpt.ErrNoMetadata, metadata.ErrMalformed, metadata.ErrTooLarge,
	paimon.ErrSnapshotNotFound, paimon.ErrConsumerNotFound, paimon.ErrCorrupt, paimon.ErrInvalidID,
	kafkaoffset.ErrCommitAboveEnd, kafkaoffset.ErrStillCommitting, kafkaoffset.ErrGroupNotEmpty,
}

// stutter returns the package prefix that msg repeats within one failure
// (`flinkckpt: resolve "": flinkckpt: list "": …`), or "". Lines and "; "
// separate failures (the chain's multi-failure error, resumectl's one-line
// form of it).
func stutter(msg string) string {
	for _, s := range sentinels {
		msg = strings.ReplaceAll(msg, s.Error(), "<sentinel>")
	}
	for _, line := range strings.Split(msg, "\n") {
		for _, piece := range strings.Split(line, "; ") {
			seen := map[string]bool{}
			for _, m := range prefixRE.FindAllStringSubmatchIndex(piece, -1) {
				if m[0] > 0 && piece[m[0]-1] == '-' {
					continue // a resolver's name (flink-salvage), not its package
				}
				name := piece[m[2]:m[3]]
				if seen[name] {
					return name
				}
				seen[name] = true
			}
		}
	}
	return ""
}

func TestStutterDetector(t *testing.T) {
	for msg, want := range map[string]string{
		`flinkckpt: resolve "": flinkckpt: list "": blob (key "") (code=Unknown): boom`:                   "flinkckpt",
		`resumectl: paimon: paimon: table path "a/../b" has a ".." element`:                               "paimon",
		`flinkckpt: resolve "ck/": list "ck/": blob (key "ck/"): blobtest: list "ck/" (call 1): injected`: "",
		`paimon: consumer "c" of t: consumer/consumer-c does not exist: resume: no position`:              "",
		"a: flinkckpt: x\nb: flinkckpt: y":                                                                "",
		"resume: no position: nothing (a: flinkckpt: x; b: flinkckpt: y)":                                 "",
		"flink-salvage: salvage: s3a://b/ck/chk-2 holds no source state":                                  "",
		"salvage: decode flink-salvage position: salvage: paimon source a: 0 positions":                   "salvage",
	} {
		if got := stutter(msg); got != want {
			t.Errorf("stutter(%q) = %q, want %q", msg, got, want)
		}
	}
}

// texts collects every message a run produced.
type texts struct {
	t    *testing.T
	n    int
	bad  map[string]string // message -> repeated prefix
	from map[string]string // message -> where
}

func newTexts(t *testing.T) *texts {
	return &texts{t: t, bad: map[string]string{}, from: map[string]string{}}
}

func (x *texts) add(where string, msgs ...string) {
	for _, m := range msgs {
		if m == "" {
			continue
		}
		x.n++
		if p := stutter(m); p != "" {
			x.bad[m], x.from[m] = p, where
		}
	}
}

func (x *texts) err(where string, err error) {
	if err != nil {
		x.add(where, err.Error())
	}
}

func (x *texts) report(min int) {
	x.t.Helper()
	if x.n < min {
		x.t.Errorf("only %d messages swept, want at least %d: the sweep lost its reach", x.n, min)
	}
	for m, p := range x.bad {
		x.t.Errorf("%s: %q names %q twice:\n%s", x.from[m], p+": ", p, m)
	}
}

// faultSweep runs do once against mem unharmed, then once for each call of
// that run failing (every operation, every call number), once for each key
// it read turning NotFound, and once with a cancelled context.
func faultSweep(x *texts, name string, mem *blob.Bucket, do func(ctx context.Context, b *blob.Bucket) []string) {
	ctx := context.Background()
	var (
		mu   sync.Mutex // the code under test calls storage concurrently
		keys []string
	)
	clean, rec := blobtest.Wrap(mem, &blobtest.Options{Before: func(_ context.Context, c blobtest.Call, _ *blob.Bucket) {
		mu.Lock()
		defer mu.Unlock()
		if (c.Op == blobtest.OpRead || c.Op == blobtest.OpAttributes) && !slices.Contains(keys, c.Key) {
			keys = append(keys, c.Key)
		}
	}})
	x.add(name+" (no fault)", do(ctx, clean)...)
	counts := rec.Counts()
	for _, op := range blobtest.Ops {
		for n := 1; n <= counts[op]; n++ {
			b, _ := blobtest.Wrap(mem, &blobtest.Options{Fault: blobtest.FailNth(op, n)})
			x.add(fmt.Sprintf("%s (%s call %d fails)", name, op, n), do(ctx, b)...)
		}
	}
	for _, k := range keys {
		b, _ := blobtest.Wrap(mem, &blobtest.Options{Fault: blobtest.NotFoundKeys(regexp.MustCompile("^" + regexp.QuoteMeta(k) + "$"))})
		x.add(fmt.Sprintf("%s (%s vanishes)", name, k), do(ctx, b)...)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	x.add(name+" (cancelled)", do(cctx, clean)...)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestErrorsNameEachPackageOnce sweeps the messages of flinkckpt, paimon,
// kafkaoffset and resumectl — every storage call failing in turn, objects
// vanishing, corrupt files, Kafka errors, cancelled contexts, bad input — for
// a package prefix named twice in one failure.
func TestErrorsNameEachPackageOnce(t *testing.T) {
	t.Run("flinkckpt", func(t *testing.T) {
		t.Parallel()
		x := newTexts(t)
		mem := memblob.OpenBucket(nil)
		defer mem.Close()
		ctx := context.Background()
		l := &flinkckpttest.Layout{Bucket: mem, Prefix: "ck/", Root: "s3a://b/"}
		for id, c := range map[int64]*flinkckpttest.Checkpoint{
			1: {Shared: []string{"a.sst"}}, 2: {Shared: []string{"a.sst", "b.sst"}, SkipFiles: true}, 3: {Corrupt: true}, 4: {Incomplete: true},
		} {
			if _, err := l.Checkpoint(ctx, flinkTestJob, id, c); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := l.Savepoint(ctx, flinkckpttest.SavepointName(flinkTestJob, 1), 1, nil); err != nil {
			t.Fatal(err)
		}
		faultSweep(x, "flinkckpt", mem, func(ctx context.Context, b *blob.Bucket) []string {
			var out []string
			for _, o := range []*flinkckpt.Options{nil, {FlinkRoot: "s3a://b/ck", JobID: flinkTestJob}} {
				r, err := flinkckpt.NewResolver(b, "ck/", o)
				if err != nil {
					t.Fatal(err)
				}
				c, err := r.Resolve(ctx)
				out = append(out, errText(err))
				out = append(out, c.Reasons...)
				snaps, err := flinkckpt.List(ctx, b, "ck/", o)
				out = append(out, errText(err))
				for _, s := range snaps {
					out = append(out, s.Reason, errText(s.Err))
				}
			}
			for _, dir := range []string{"ck/" + flinkTestJob + "/chk-2/", "ck/" + flinkTestJob + "/chk-3/", "ck/nothing/"} {
				s, err := flinkckpt.Inspect(ctx, b, dir, nil)
				out = append(out, errText(err))
				if s != nil {
					out = append(out, s.Reason)
				}
			}
			return out
		})
		for _, o := range []*flinkckpt.Options{{JobID: "x"}, {FlinkRoot: "ck"}, {Concurrency: -1}} {
			_, err := flinkckpt.NewResolver(mem, "ck/", o)
			x.err("flinkckpt.NewResolver", err)
		}
		x.report(100)
	})

	t.Run("paimon", func(t *testing.T) {
		t.Parallel()
		x := newTexts(t)
		mem := memblob.OpenBucket(nil)
		defer mem.Close()
		t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
		tb := paimontest.New(t, mem, "wh/db.db/t").Schema(map[string]string{"consumer.expiration-time": "1 d"}).
			CommitEvery(10, t0, time.Minute).ExpireBefore(3).Consumer("job", 8).Consumer("behind", 2)
		if err := mem.WriteAll(context.Background(), tb.Key("consumer/consumer-garbage"), []byte("{not json"), nil); err != nil {
			t.Fatal(err)
		}
		opts := &paimon.TableOptions{ConsumerRetries: 2, ConsumerRetryInterval: -1, HintRetryInterval: -1}
		faultSweep(x, "paimon", mem, func(ctx context.Context, b *blob.Bucket) []string {
			var out []string
			table, err := paimon.NewTable(b, "wh/db.db/t", opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				id string
				o  *paimon.Options
			}{{"job", nil}, {"behind", nil}, {"garbage", nil}, {"new", &paimon.Options{StartTime: t0.Add(5 * time.Minute)}}, {"none", nil}} {
				r, err := paimon.NewResolver(table, c.id, c.o)
				if err != nil {
					t.Fatal(err)
				}
				cand, err := r.Resolve(ctx)
				out = append(out, errText(err))
				out = append(out, cand.Reasons...)
			}
			cs, err := table.Consumers(ctx)
			out = append(out, errText(err))
			for _, c := range cs {
				out = append(out, errText(c.Err))
			}
			_, err = table.Snapshot(ctx, 1)
			out = append(out, errText(err))
			_, err = table.StreamingStartAt(ctx, t0.Add(4*time.Minute))
			out = append(out, errText(err))
			_, err = table.PlanResetConsumer(ctx, "reset", 99)
			out = append(out, errText(err))
			_, err = table.ResetConsumer(ctx, "reset", 5, &paimon.ResetOptions{Force: true})
			out = append(out, errText(err))
			wrong := int64(2)
			_, err = table.ResetConsumer(ctx, "job", 5, &paimon.ResetOptions{Force: true, ExpectPrevious: &wrong})
			out = append(out, errText(err))
			_, err = table.ResetConsumer(ctx, "job", 5, &paimon.ResetOptions{Observe: -1})
			out = append(out, errText(err))
			return out
		})
		x.err("paimon.OpenTable", func() error { _, err := paimon.OpenTable(context.Background(), "mem:///a/../b", nil); return err }())
		x.err("paimon.ValidateID", paimon.ValidateID("consumer", "../x"))
		x.report(100)
	})

	t.Run("kafkaoffset", func(t *testing.T) {
		t.Parallel()
		x := newTexts(t)
		ctx := context.Background()
		c, err := kfake.NewCluster(kfake.SeedTopics(2, "t"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
			kgo.RetryTimeout(2*time.Second), kgo.MetadataMinAge(10*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
		for p := int32(0); p < 2; p++ {
			for i := range 5 {
				r := &kgo.Record{Topic: "t", Partition: p, Value: []byte("v"), Timestamp: t0.Add(time.Duration(i) * time.Minute)}
				if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
					t.Fatal(err)
				}
			}
		}
		adm := kadm.NewClient(cl)
		offs := kadm.Offsets{}
		offs.AddOffset("t", 0, 3, -1)
		offs.AddOffset("t", 1, 50, -1) // above the end
		if _, err := adm.CommitOffsets(ctx, "job", offs); err != nil {
			t.Fatal(err)
		}
		resolve := func(name string, topics []string, o *kafkaoffset.Options) {
			r, err := kafkaoffset.NewResolver(cl, topics, o)
			if err != nil {
				x.err(name+" NewResolver", err)
				return
			}
			cand, err := r.Resolve(ctx)
			x.err(name, err)
			x.add(name, cand.Reasons...)
			res, err := r.Offsets(ctx)
			x.err(name+" Offsets", err)
			for _, p := range res {
				x.err(name+" partition", p.Err)
			}
		}
		resolve("committed above end", []string{"t"}, &kafkaoffset.Options{Group: "job"})
		resolve("no commits", []string{"t"}, &kafkaoffset.Options{Group: "nobody"})
		resolve("unknown topic", []string{"nosuch"}, &kafkaoffset.Options{At: t0})
		resolve("bad options", nil, nil)
		for _, f := range []kfake.Fault{
			{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "t", Partitions: []int32{1}, Err: kerr.TopicAuthorizationFailed, Count: -1},
			{Keys: []kmsg.Key{kmsg.OffsetFetch}, Group: "job", Err: kerr.GroupAuthorizationFailed, Count: -1},
		} {
			h := c.Fault(f)
			resolve(fmt.Sprintf("fault %v", f.Keys), []string{"t"}, &kafkaoffset.Options{Group: "job", At: t0})
			h.Remove()
		}
		// Retriable errors until the context ends: metadata, then one
		// partition's listing.
		for _, f := range []kfake.Fault{
			{Keys: []kmsg.Key{kmsg.Metadata}, Topic: "t", Err: kerr.LeaderNotAvailable, Count: -1},
			{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "t", Partitions: []int32{1}, Err: kerr.NotLeaderForPartition, Count: -1},
		} {
			h := c.Fault(f)
			tctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			r, _ := kafkaoffset.NewResolver(cl, []string{"t"}, &kafkaoffset.Options{At: t0})
			res, err := r.Offsets(tctx)
			x.err(fmt.Sprintf("retried %v", f.Keys), err)
			for _, p := range res {
				x.err(fmt.Sprintf("retried %v partition", f.Keys), p.Err)
			}
			cancel()
			h.Remove()
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		r, _ := kafkaoffset.NewResolver(cl, []string{"t"}, &kafkaoffset.Options{At: t0})
		_, err = r.Resolve(cctx)
		x.err("cancelled", err)
		_, err = kafkaoffset.ResetGroup(ctx, cl, "job", &kafkaoffset.Position{Partitions: []kafkaoffset.Partition{{Topic: "bad topic", Offset: 1}}}, false)
		x.err("ResetGroup", err)
		x.report(12)
	})

	t.Run("resumectl", func(t *testing.T) {
		t.Parallel()
		x := newTexts(t)
		mem := memblob.OpenBucket(nil)
		defer mem.Close()
		writeLayout(t, mem, "ck/", "s3a://b/")
		paimontest.New(t, mem, "wh/db.db/t").CommitEvery(5, time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), time.Minute).Consumer("job", 3)
		commands := [][]string{
			{"resolve", "--flink-checkpoints", "URL/ck", "--paimon-table", "URL/wh/db.db/t", "--paimon-consumer", "job"},
			{"resolve", "--paimon-table", "URL/wh/db.db/t", "--paimon-consumer", "job", "--format", "k8s"},
			{"resolve", "--flink-checkpoints", "URL/ck", "--paimon-table", "URL/wh/db.db/t", "--paimon-consumer", "job", "--on-failure", "choose-anyway"},
			{"flink", "list", "URL/ck"},
			{"flink", "inspect", "URL/ck/" + flinkTestJob + "/chk-1"},
			{"flink", "sources", "URL/ck/" + flinkTestJob + "/chk-1"},
			{"flink", "compat", "URL/ck/" + flinkTestJob + "/chk-1", "--uid", "orders-source"},
			{"resolve", "--flink-checkpoints", "URL/ck", "--flink-sources"},
			{"paimon", "consumers", "URL/wh/db.db/t"},
			{"paimon", "snapshots", "URL/wh/db.db/t"},
			{"paimon", "reset-consumer", "URL/wh/db.db/t", "--consumer", "new", "--next-snapshot", "4"},
		}
		runAll := func(where, u string) {
			for _, args := range commands {
				args = append([]string(nil), args...)
				for i := range args {
					args[i] = strings.Replace(args[i], "URL", u, 1)
				}
				out, errOut, _ := run(t, args...)
				x.add(fmt.Sprintf("resumectl %s (%s)", strings.Join(args[:2], " "), where), strings.Split(out+errOut, "\n")...)
			}
		}
		u, rec := blobtest.Mount(t, mem, nil)
		runAll("no fault", u)
		for _, op := range []blobtest.Op{blobtest.OpList, blobtest.OpRead, blobtest.OpAttributes} {
			for n := 1; n <= min(rec.Count(op), 25); n++ {
				u, _ := blobtest.Mount(t, mem, &blobtest.Options{Fault: blobtest.FailNth(op, n)})
				runAll(fmt.Sprintf("%s call %d fails", op, n), u)
			}
		}
		for _, args := range [][]string{
			{"resolve", "--paimon-table", "mem:///a/../b", "--paimon-consumer", "c"},
			{"resolve", "--flink-checkpoints", "mem:///ck", "--flink-root", "ck"},
			{"paimon", "consumers", "mem:///a/../b"},
			{"paimon", "reset-consumer", "mem:///t", "--consumer", "../x", "--next-snapshot", "1"},
			{"flink", "list", "mem:///ck", "--job-id", "nothex"},
			{"kafka", "offsets", "--brokers", "127.0.0.1:1", "--topic", "t", "--group", "g", "--timeout", "1s"},
		} {
			out, errOut, _ := run(t, args...)
			x.add("resumectl "+strings.Join(args, " "), strings.Split(out+errOut, "\n")...)
		}
		x.report(200)
	})
}
