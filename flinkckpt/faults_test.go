package flinkckpt_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
	"github.com/resumekit/resumekit/resume/resumetest/s3test"
)

// faultLayout writes job A with chk-1 and chk-2 complete and chk-3 broken
// (a shared file deleted); the right answer is chk-2.
func faultLayout(t *testing.T, e *env) {
	t.Helper()
	e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 4)})
	e.chk(jobA, 2, t0.Add(time.Minute), &flinkckpttest.Checkpoint{Shared: shared("b", 4)})
	e.chk(jobA, 3, t0.Add(2*time.Minute), &flinkckpttest.Checkpoint{Shared: shared("c", 4)})
	if err := e.mem.Delete(e.ctx, "ck/"+jobA+"/shared/c-0002.sst"); err != nil {
		t.Fatal(err)
	}
}

// TestFaultMatrix: whatever fails, the resolver either chooses the right
// checkpoint (chk-2) or fails naming the key; it never offers a checkpoint
// that failed a check, and never panics.
func TestFaultMatrix(t *testing.T) {
	type tc struct {
		name    string
		fault   func(blobtest.Call) error
		wantErr string // substring of the error; "" means chk-2 must be chosen
	}
	var cases []tc
	for _, k := range []int{2, 3, 4, 5, 7, 11} {
		cases = append(cases, tc{fmt.Sprintf("EveryCall%d", k), blobtest.FailEvery(k), "?"})
	}
	cases = append(cases,
		tc{"MetadataKeyAlwaysFails", blobtest.FailKeys(regexp.MustCompile(`chk-2/_metadata$`)), `chk-2/_metadata`},
		tc{"SharedFileAttributesFail", blobtest.FailKeys(regexp.MustCompile(`shared/b-0001\.sst$`), blobtest.OpAttributes), `shared/b-0001.sst`},
		tc{"JobDirListingFails", blobtest.FailKeys(regexp.MustCompile(`^ck/`+jobA+`/$`), blobtest.OpList), `list "ck/` + jobA + `/"`},
		tc{"RootListingFails", blobtest.FailNth(blobtest.OpList, 1), `list "ck/"`},
		tc{"NewestMetadataVanished", blobtest.NotFoundKeys(regexp.MustCompile(`chk-3/_metadata$`)), ""},
		tc{"SharedFileVanished", blobtest.NotFoundKeys(regexp.MustCompile(`shared/c-0001\.sst$`)), ""},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, "ck/", "s3a://bucket/", &blobtest.Options{Fault: c.fault})
			faultLayout(t, e)
			cand, err := e.resolve(&flinkckpt.Options{Concurrency: 4})
			switch {
			case err == nil:
				p, _ := flinkckpt.PositionOf(cand.Position)
				if p.CheckpointID != 2 {
					t.Fatalf("chose chk-%d, want chk-2 (reasons %q)", p.CheckpointID, cand.Reasons)
				}
			case c.wantErr == "":
				t.Fatalf("err %v, want chk-2", err)
			default:
				var fe *blobtest.FaultError
				if !errors.As(err, &fe) || errors.Is(err, resume.ErrNoPosition) {
					t.Fatalf("err %v: want the injected fault", err)
				}
				if c.wantErr != "?" && !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v does not name %s", err, c.wantErr)
				}
				if !strings.Contains(err.Error(), fe.Call.Key) {
					t.Fatalf("err %v does not name the key %q", err, fe.Call.Key)
				}
			}
		})
	}
}

// TestCancelledContextMakesNoCalls: a context cancelled before Resolve
// makes no storage call; one cancelled during the first _metadata read
// makes none after it.
func TestCancelledContextMakesNoCalls(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	faultLayout(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, _ := flinkckpt.NewResolver(e.bucket, "ck/", nil)
	_, err := r.Resolve(ctx)
	if !errors.Is(err, context.Canceled) || e.rec.Total() != 0 {
		t.Errorf("err %v after %d calls, want context.Canceled after 0", err, e.rec.Total())
	}
	if _, err := flinkckpt.List(ctx, e.bucket, "ck/", nil); !errors.Is(err, context.Canceled) || e.rec.Total() != 0 {
		t.Errorf("List: err %v after %d calls", err, e.rec.Total())
	}

	var (
		mu     sync.Mutex
		atStop int
	)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	e2 := newEnv(t, "ck/", "s3a://bucket/", &blobtest.Options{
		Before: func(_ context.Context, c blobtest.Call, _ *blob.Bucket) {
			if c.Op == blobtest.OpRead {
				mu.Lock()
				if atStop == 0 {
					atStop = c.All
					cancel()
				}
				mu.Unlock()
			}
		},
	})
	faultLayout(t, e2)
	r, _ = flinkckpt.NewResolver(e2.bucket, "ck/", &flinkckpt.Options{Concurrency: 1})
	_, err = r.Resolve(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	if got := e2.rec.Total(); got != atStop {
		t.Errorf("%d storage calls, the last at cancellation was call %d (%s)", got, atStop, e2.rec)
	}
}

// TestLatencyBeyondTimeout: calls slower than the deadline end with the
// deadline's error.
func TestLatencyBeyondTimeout(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", &blobtest.Options{Latency: time.Hour})
	faultLayout(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	r, _ := flinkckpt.NewResolver(e.bucket, "ck/", nil)
	_, err := r.Resolve(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want DeadlineExceeded", err)
	}
}

// TestChainDecidesFromHealthyResolver: a checkpoint resolver whose storage
// fails does not stop the chain from choosing a healthy savepoint resolver.
func TestChainDecidesFromHealthyResolver(t *testing.T) {
	bad := newEnv(t, "ck/", "s3a://bucket/", &blobtest.Options{Fault: blobtest.FailKeys(regexp.MustCompile(`_metadata$`))})
	faultLayout(t, bad)
	good := newEnv(t, "sp/", "s3a://bucket/", nil)
	good.savepoint(flinkckpttest.SavepointName(jobA, 1), 9, t0, nil)
	r1, _ := flinkckpt.NewResolver(bad.bucket, "ck/", nil)
	r2, _ := flinkckpt.NewResolver(good.bucket, "sp/", &flinkckpt.Options{Name: "flink-savepoints", FlinkRoot: good.l.FlinkRoot()})
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{r1, r2}}).Resolve(context.Background())
	if d.Chosen == nil || d.Chosen.Resolver != "flink-savepoints" {
		t.Fatalf("chosen %+v", d.Chosen)
	}
	if err == nil || !strings.Contains(err.Error(), "_metadata") {
		t.Errorf("err %v: want the checkpoint resolver's failure with the key", err)
	}
}

// TestResolveAndListOverS3 runs the resolver and List against an S3
// endpoint over HTTP (gofakes3 through s3blob), paging included.
func TestResolveAndListOverS3(t *testing.T) {
	srv := s3test.NewServer(t)
	b := srv.Bucket(t, "ckpt")
	ctx := context.Background()
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "prod/ck/", Root: "s3a://ckpt/"}
	for i := int64(1); i <= 3; i++ {
		if _, err := l.Checkpoint(ctx, jobA, i, &flinkckpttest.Checkpoint{Shared: shared(fmt.Sprint("s", i), 3)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Checkpoint(ctx, jobA, 4, &flinkckpttest.Checkpoint{Incomplete: true}); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(ctx, "prod/ck/"+jobA+"/shared/s3-0001.sst"); err != nil {
		t.Fatal(err)
	}
	r, err := flinkckpt.NewResolver(b, "prod/ck", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := flinkckpt.PositionOf(c.Position)
	if p.CheckpointID != 2 || p.Path != "s3a://ckpt/prod/ck/"+jobA+"/chk-2" || !hasLine(c.Reasons, "chk-4 .*no _metadata") || !hasLine(c.Reasons, "chk-3 .*missing") {
		t.Errorf("got %+v reasons %q", p, c.Reasons)
	}
	snaps, err := flinkckpt.List(ctx, b, "prod/ck/", nil)
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, s := range snaps {
		states = append(states, fmt.Sprintf("%d:%s", s.CheckpointID, s.State))
	}
	if strings.Join(states, " ") != "4:incomplete 3:broken 2:complete 1:complete" {
		t.Errorf("states %v", states)
	}
	s, err := flinkckpt.Inspect(ctx, b, "prod/ck/"+jobA+"/chk-3/_metadata", nil)
	if err == nil || s.State != flinkckpt.StateBroken || s.Verification.Missing != 1 {
		t.Errorf("inspect chk-3: %v %+v", err, s)
	}
}
