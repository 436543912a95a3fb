package restarttest

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

const job = "0a1b2c3d4e5f60718293a4b5c6d7e8f9"

var t0 = time.Date(2026, 11, 29, 11, 0, 0, 0, time.UTC)

// storage is one in-memory bucket with pinned modification times, and the
// given fault (nil: none).
func storage(t *testing.T, fault func(blobtest.Call) error) (*blob.Bucket, *blobtest.Recorder) {
	mem := memblob.OpenBucket(nil)
	t.Cleanup(func() { mem.Close() })
	b, rec := blobtest.Wrap(mem, &blobtest.Options{Fault: fault})
	t.Cleanup(func() { b.Close() })
	return b, rec
}

// sources builds the job's two resolvers over the bucket.
func sources(t *testing.T, b *blob.Bucket) []resume.Resolver {
	ck, err := flinkckpt.NewResolver(b, "ck/", &flinkckpt.Options{FlinkRoot: "s3a://bucket/"})
	if err != nil {
		t.Fatal(err)
	}
	table, err := paimon.NewTable(b, "wh/db.db/orders", &paimon.TableOptions{Now: func() time.Time { return t0.Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	consumer, err := paimon.NewResolver(table, "orders-job", nil)
	if err != nil {
		t.Fatal(err)
	}
	return []resume.Resolver{ck, consumer}
}

func TestPlan(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		checkpoint *flinkckpttest.Checkpoint // nil: no checkpoint at all
		consumer   int64                     // the consumer's nextSnapshot (0: 11, caught up with snapshots 1..10)
		expireTo   int64                     // expire Paimon snapshots below this id (0: none)
		fault      func(blobtest.Call) error // storage fault (nil: none)
		wantArgs   []string
		wantHint   string
		wantErr    error // the error wraps it
		wantFault  bool  // the error is the storage fault, not resume.ErrNoPosition
	}{
		{
			name:       "CompleteCheckpointRestoresState",
			checkpoint: &flinkckpttest.Checkpoint{Shared: []string{"sst-1"}},
			wantArgs:   []string{"-s", "s3a://bucket/ck/" + job + "/chk-7"},
		},
		{
			// The consumer had read every snapshot: exact input.
			name:       "IncompleteCheckpointFallsBackToConsumer",
			checkpoint: &flinkckpttest.Checkpoint{Incomplete: true},
			wantHint:   "/*+ OPTIONS('consumer-id'='orders-job','scan.snapshot-id'='11') */",
		},
		{
			name:       "BrokenCheckpointFallsBackToConsumer",
			checkpoint: &flinkckpttest.Checkpoint{SkipFiles: true},
			wantHint:   "/*+ OPTIONS('consumer-id'='orders-job','scan.snapshot-id'='11') */",
		},
		{
			// A consumer behind the latest snapshot: the job may have read
			// on into snapshots 6..10 after the checkpoint that wrote its
			// file, and its sink already has their output. Replay: refused.
			name:       "ConsumerBehindTheTableIsRefused",
			checkpoint: &flinkckpttest.Checkpoint{Incomplete: true},
			consumer:   6,
			wantErr:    resume.ErrRefused,
		},
		{
			name:     "ExpiredConsumerIsRefused",
			consumer: 6,
			expireTo: 8, // the consumer still needs snapshot 6
			wantErr:  resume.ErrRefused,
		},
		{
			// The checkpoint store answers errors: the consumer is not
			// used in place of a checkpoint nobody could see.
			name:       "CheckpointStoreDownIsRefused",
			checkpoint: &flinkckpttest.Checkpoint{Shared: []string{"sst-1"}},
			fault:      blobtest.FailKeys(regexp.MustCompile(`^ck/`), blobtest.OpList),
			wantFault:  true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, rec := storage(t, tc.fault)
			if tc.checkpoint != nil {
				l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "s3a://bucket/"}
				w, err := l.Checkpoint(ctx, job, 7, tc.checkpoint)
				if err != nil {
					t.Fatal(err)
				}
				rec.SetModTime(w.Dir+"_metadata", t0.Add(9*time.Minute))
			}
			next := tc.consumer
			if next == 0 {
				next = 11
			}
			tb := paimontest.New(t, b, "wh/db.db/orders").
				Schema(map[string]string{"consumer.expiration-time": "7 d"}).
				CommitEvery(10, t0, time.Minute).
				Consumer("orders-job", next)
			// written after the job read snapshot next-1 (committed at
			// t0 + next-2 minutes)
			rec.SetModTime(tb.Key("consumer/consumer-orders-job"), t0.Add(time.Duration(next-2)*time.Minute+30*time.Second))
			if tc.expireTo > 0 {
				tb.ExpireBefore(tc.expireTo)
			}

			got, err := Plan(ctx, sources(t, b)...)
			if tc.wantFault {
				var fe *blobtest.FaultError
				if got != nil || !errors.As(err, &fe) || errors.Is(err, resume.ErrNoPosition) {
					t.Fatalf("started %+v, err = %v: want the storage fault, not ErrNoPosition", got, err)
				}
				return
			}
			if tc.wantErr != nil {
				if got != nil || !errors.Is(err, tc.wantErr) {
					t.Fatalf("started %+v, err = %v, want %v", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantArgs, got.FlinkArgs); diff != "" {
				t.Errorf("flink args (-want +got):\n%s", diff)
			}
			if got.SourceHint != tc.wantHint {
				t.Errorf("hint = %q, want %q", got.SourceHint, tc.wantHint)
			}
		})
	}
}

// TestPlanWithFixedSources checks Plan's own rules with resolvers whose
// answers are fixed: a replay is refused; a failed source that could have
// offered more (the checkpoints) stops the start; a failed source that could
// not (Kafka, at best a replay) is logged and does not stop a safe start.
func TestPlanWithFixedSources(t *testing.T) {
	ctx := context.Background()
	replay := resumetest.Static("kafka", resume.Candidate{
		Position: resumetest.Position{PositionKind: "kafka-offsets", Summary: "orders from committed offsets"}, Guarantee: resume.Replay,
		Reasons: []string{"committed offsets"},
	})
	if _, err := Plan(ctx, replay); !errors.Is(err, resume.ErrRefused) || errors.Is(err, resume.ErrNoPosition) {
		t.Errorf("replay accepted: err = %v", err)
	}
	exact := resumetest.Static("consumer", resume.Candidate{
		Position: resumetest.Position{PositionKind: "paimon-snapshot", Summary: "snapshot 6",
			Start: resume.Launch{Options: map[string]string{"consumer-id": "orders-job"}}},
		Guarantee: resume.ExactInput, Reasons: []string{"consumer file"},
	})
	errDown := errors.New("bucket unreachable")
	down := resumetest.Failing("checkpoints", errDown)
	got, err := Plan(ctx, down, exact)
	if got != nil || !errors.Is(err, errDown) || errors.Is(err, resume.ErrNoPosition) {
		t.Fatalf("started %+v with the checkpoints unreadable (err %v)", got, err)
	}
	if !strings.Contains(err.Error(), "checkpoints could have offered a safer start") {
		t.Errorf("err = %v", err)
	}
	kafkaDown := resume.WithMaxGuarantee(resumetest.Failing("kafka", errors.New("broker down")), resume.Replay)
	got, err = Plan(ctx, kafkaDown, exact)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.Because, "consumer: snapshot 6 (exact-input); ignored: kafka: broker down") {
		t.Errorf("because = %q", got.Because)
	}
}

// TestSourcesKeepTheContract runs resumekit's contract check on the
// resolvers the deploy tool builds, as it would on a resolver of its own.
func TestSourcesKeepTheContract(t *testing.T) {
	b, _ := storage(t, nil)
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "s3a://bucket/"}
	if _, err := l.Checkpoint(context.Background(), job, 7, nil); err != nil {
		t.Fatal(err)
	}
	paimontest.New(t, b, "wh/db.db/orders").CommitEvery(3, t0, time.Minute).Consumer("orders-job", 2)
	for _, r := range sources(t, b) {
		for _, err := range resumetest.CheckResolver(context.Background(), r) {
			t.Error(err)
		}
	}
}

// TestPlanHintPerTable: a Paimon table and a Kafka topic started together
// (resume.All) get one hint each, named by table; one hint with both
// tables' options would put consumer-id on the Kafka table, which its
// connector refuses.
func TestPlanHintPerTable(t *testing.T) {
	paimon := resumetest.Static("paimon-consumer", resume.Candidate{
		Position: resumetest.Position{PositionKind: "paimon-snapshot", Summary: "snapshot 6",
			Start: resume.Launch{Options: map[string]string{"consumer-id": "orders-job"}}},
		Guarantee: resume.ExactInput, Reasons: []string{"consumer file"},
	})
	kafka := resumetest.Static("kafka-offsets", resume.Candidate{
		Position: resumetest.Position{PositionKind: "kafka-offsets", Summary: "orders",
			Start: resume.Launch{Options: map[string]string{"scan.startup.mode": "specific-offsets"}}},
		Guarantee: resume.ExactInput, Reasons: []string{"offsets"},
	})
	got, err := Plan(context.Background(), resume.All("both", paimon, kafka))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"paimon-consumer": "/*+ OPTIONS('consumer-id'='orders-job') */",
		"kafka-offsets":   "/*+ OPTIONS('scan.startup.mode'='specific-offsets') */",
	}
	if diff := cmp.Diff(want, got.SourceHints); diff != "" || got.SourceHint != "" {
		t.Errorf("hints (-want +got):\n%s\none hint: %q", diff, got.SourceHint)
	}
}
