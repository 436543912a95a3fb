package flinkckpt_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

const (
	jobA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1"
	jobB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// env is a memblob bucket with a layout writer and a counting wrapper for
// the code under test.
type env struct {
	t      *testing.T
	ctx    context.Context
	mem    *blob.Bucket
	bucket *blob.Bucket // wrapped: what the resolver reads
	rec    *blobtest.Recorder
	l      *flinkckpttest.Layout
}

func newEnv(t *testing.T, prefix, root string, opts *blobtest.Options) *env {
	t.Helper()
	mem := memblob.OpenBucket(nil)
	t.Cleanup(func() { mem.Close() })
	b, rec := blobtest.Wrap(mem, opts)
	t.Cleanup(func() { b.Close() })
	return &env{t: t, ctx: context.Background(), mem: mem, bucket: b, rec: rec,
		l: &flinkckpttest.Layout{Bucket: mem, Prefix: prefix, Root: root}}
}

// chk writes a checkpoint and pins its _metadata modification time.
func (e *env) chk(job string, id int64, at time.Time, c *flinkckpttest.Checkpoint) *flinkckpttest.Written {
	e.t.Helper()
	w, err := e.l.Checkpoint(e.ctx, job, id, c)
	if err != nil {
		e.t.Fatal(err)
	}
	e.rec.SetModTime(w.Dir+"_metadata", at)
	return w
}

func (e *env) savepoint(name string, id int64, at time.Time, c *flinkckpttest.Checkpoint) *flinkckpttest.Written {
	e.t.Helper()
	w, err := e.l.Savepoint(e.ctx, name, id, c)
	if err != nil {
		e.t.Fatal(err)
	}
	e.rec.SetModTime(w.Dir+"_metadata", at)
	return w
}

func (e *env) resolve(opts *flinkckpt.Options) (resume.Candidate, error) {
	e.t.Helper()
	r, err := flinkckpt.NewResolver(e.bucket, e.l.Prefix, opts)
	if err != nil {
		e.t.Fatal(err)
	}
	return r.Resolve(e.ctx)
}

func (e *env) mustResolve(opts *flinkckpt.Options) (resume.Candidate, *flinkckpt.Position) {
	e.t.Helper()
	c, err := e.resolve(opts)
	if err != nil {
		e.t.Fatalf("Resolve: %v", err)
	}
	p, err := flinkckpt.PositionOf(c.Position)
	if err != nil {
		e.t.Fatal(err)
	}
	return c, p
}

// withRoot gives the layout's Flink root: snapshots whose references are
// all relative have no Flink path without it, and are not offered.
func withRoot(e *env) *flinkckpt.Options {
	return &flinkckpt.Options{FlinkRoot: e.l.FlinkRoot()}
}

func shared(prefix string, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("%s-%04d.sst", prefix, i))
	}
	return out
}

// hasLine reports whether a reason (or a warning's text) matches re.
func hasLine[T string | resume.Warning](lines []T, re string) bool {
	r := regexp.MustCompile(re)
	for _, l := range lines {
		s, ok := any(l).(string)
		if w, isW := any(l).(resume.Warning); isW {
			s, ok = w.Text, true
		}
		if ok && r.MatchString(s) {
			return true
		}
	}
	return false
}

// hasWarning reports whether a warning has the code and text matching re.
func hasWarning(ws []resume.Warning, code, re string) bool {
	r := regexp.MustCompile(re)
	for _, w := range ws {
		if string(w.Code) == code && r.MatchString(w.Text) {
			return true
		}
	}
	return false
}

func TestResolverScenarios(t *testing.T) {
	t.Run("NewestCompleteWins", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		for i := int64(1); i <= 3; i++ {
			e.chk(jobA, i, t0.Add(time.Duration(i)*time.Minute), &flinkckpttest.Checkpoint{Shared: shared(fmt.Sprint("s", i), 2)})
		}
		c, p := e.mustResolve(nil)
		want := flinkckpt.Position{Path: "s3a://bucket/ck/" + jobA + "/chk-3", Key: "ck/" + jobA + "/chk-3/", JobID: jobA,
			CheckpointID: 3, Version: 4, Verified: true, ReferencedFiles: 3, CheckedFiles: 3, ClaimMode: "NO_CLAIM",
			StateBackend: flinkckpt.BackendRocksDBIncremental}
		if diff := cmp.Diff(want, *p); diff != "" {
			t.Errorf("position (-want +got):\n%s", diff)
		}
		if c.Guarantee != resume.ExactlyOnce || !c.At.Equal(t0.Add(3*time.Minute)) || c.Resolver != "flink-checkpoints" {
			t.Errorf("candidate %v at %v resolver %q", c.Guarantee, c.At, c.Resolver)
		}
		wantLaunch := resume.Launch{Args: []string{"-s", want.Path}, Config: map[string]string{
			"execution.state-recovery.path": want.Path, "execution.savepoint.path": want.Path,
			"execution.state-recovery.claim-mode": "NO_CLAIM", "execution.savepoint-restore-mode": "NO_CLAIM"}}
		if diff := cmp.Diff(wantLaunch, p.Launch()); diff != "" {
			t.Errorf("launch (-want +got):\n%s", diff)
		}
		if !hasWarning(c.Warnings, flinkckpt.WarnKeepUntilFirstCheckpoint, "^keep s3a://bucket/ck/.*/chk-3 until the new job's first completed checkpoint") || hasLine(c.Warnings, "broken") {
			t.Errorf("warnings %q", c.Warnings)
		}
	})
	t.Run("NewestIncompleteSkipped", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 7, t0, nil)
		e.chk(jobA, 8, t0.Add(time.Minute), &flinkckpttest.Checkpoint{Incomplete: true})
		c, p := e.mustResolve(withRoot(e))
		if p.CheckpointID != 7 || !hasLine(c.Reasons, `^chk-8 of job .*: no _metadata \(in progress`) {
			t.Errorf("chose %d, reasons %q", p.CheckpointID, c.Reasons)
		}
		if hasLine(c.Warnings, "broken") {
			t.Errorf("incomplete checkpoint must not warn about duplicates: %q", c.Warnings)
		}
	})
	t.Run("NewestWithDeletedSharedFileSkipped", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 4, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 3)})
		e.chk(jobA, 5, t0.Add(time.Minute), &flinkckpttest.Checkpoint{Shared: shared("b", 3)})
		if err := e.mem.Delete(e.ctx, "ck/"+jobA+"/shared/b-0001.sst"); err != nil {
			t.Fatal(err)
		}
		c, p := e.mustResolve(nil)
		if p.CheckpointID != 4 {
			t.Fatalf("chose %d", p.CheckpointID)
		}
		if !hasLine(c.Reasons, `^chk-5 of job .*: broken: 1 of 4 referenced files missing, first: ck/`+jobA+`/shared/b-0001.sst`) {
			t.Errorf("reasons %q", c.Reasons)
		}
		if !hasWarning(c.Warnings, flinkckpt.WarnOlderThanBroken, `newer ones are broken \(chk-5 of job .*\).*duplicates`) {
			t.Errorf("warnings %q", c.Warnings)
		}
	})
	t.Run("WrongSizeAndCorruptMetadataSkipped", func(t *testing.T) {
		e := newEnv(t, "", "hdfs://ns/flink/ck/", nil)
		e.chk(jobA, 1, t0, nil)
		w := e.chk(jobA, 2, t0, nil)
		e.chk(jobA, 3, t0, &flinkckpttest.Checkpoint{Corrupt: true})
		if err := e.mem.WriteAll(e.ctx, w.Files[0], []byte("short"), nil); err != nil {
			t.Fatal(err)
		}
		c, p := e.mustResolve(&flinkckpt.Options{FlinkRoot: "hdfs://ns/flink/ck"})
		if p.CheckpointID != 1 || !hasLine(c.Reasons, `^chk-3 .*broken: .*malformed _metadata at byte \d+`) ||
			!hasLine(c.Reasons, `^chk-2 .*broken: 1 of 1 referenced files of the wrong size`) {
			t.Errorf("chose %d, reasons %q", p.CheckpointID, c.Reasons)
		}
		if p.Path != "hdfs://ns/flink/ck/"+jobA+"/chk-1" {
			t.Errorf("path %q", p.Path)
		}
	})
	t.Run("TwoJobDirsRestartWithoutHA", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 50, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		e.chk(jobB, 3, t0.Add(time.Hour), &flinkckpttest.Checkpoint{Shared: shared("b", 1)})
		c, p := e.mustResolve(nil)
		if p.JobID != jobB || p.CheckpointID != 3 || !hasLine(c.Reasons, `^newer than chk-50 of job `+jobA+` by _metadata modification time`) {
			t.Errorf("chose %s/%d, reasons %q", p.JobID, p.CheckpointID, c.Reasons)
		}
	})
	t.Run("RestoredJobDescendsFromParentJobDir", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 50, t0.Add(time.Hour), &flinkckpttest.Checkpoint{Shared: shared("a", 2)})
		// Job B was restored from A's chk-50 and still references A's shared files;
		// its _metadata looks older (copied, modification time reset).
		e.chk(jobB, 51, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 2), SharedJob: jobA})
		c, p := e.mustResolve(nil)
		if p.JobID != jobB || !hasLine(c.Reasons, `references shared files of job dir ck/`+jobA+`/: it descends from`) {
			t.Errorf("chose %s/%d, reasons %q", p.JobID, p.CheckpointID, c.Reasons)
		}
	})
	t.Run("EmptyRoot", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		_, err := e.resolve(nil)
		if !errors.Is(err, resume.ErrNoPosition) {
			t.Errorf("err %v, want ErrNoPosition", err)
		}
	})
	t.Run("OnlyIncompleteAndBroken", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Incomplete: true})
		e.chk(jobA, 2, t0, &flinkckpttest.Checkpoint{SkipFiles: true})
		_, err := e.resolve(withRoot(e))
		if !errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), "chk-1 of job") || !strings.Contains(err.Error(), "chk-2 of job") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("CheckpointVsNewerSavepoint", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 10, t0, nil)
		name := flinkckpttest.SavepointName(jobA, 1)
		e.savepoint(name, 11, t0.Add(time.Minute), &flinkckpttest.Checkpoint{Format: "NATIVE"})
		c, p := e.mustResolve(withRoot(e))
		if !p.Savepoint || p.Format != "NATIVE" || c.Position.Kind() != "flink-savepoint" || p.CheckpointID != 11 {
			t.Errorf("got %+v", p)
		}
		// The older savepoint loses to a newer checkpoint.
		e.rec.SetModTime("ck/"+name+"/_metadata", t0.Add(-time.Minute))
		_, p = e.mustResolve(withRoot(e))
		if p.Savepoint || p.CheckpointID != 10 {
			t.Errorf("got %+v", p)
		}
	})
	t.Run("SavepointDirSharedByJobs", func(t *testing.T) {
		e := newEnv(t, "sp/", "s3a://bucket/", nil)
		a := flinkckpttest.SavepointName(jobA, 1)
		b := flinkckpttest.SavepointName(jobB, 1)
		e.savepoint(a, 5, t0, &flinkckpttest.Checkpoint{Drained: true})
		e.savepoint(b, 9, t0.Add(time.Hour), nil)
		_, p := e.mustResolve(withRoot(e))
		if p.Key != "sp/"+b+"/" {
			t.Errorf("without job id chose %s", p.Key)
		}
		c, p := e.mustResolve(&flinkckpt.Options{JobID: jobA, FlinkRoot: e.l.FlinkRoot()})
		if p.Key != "sp/"+a+"/" || !p.Drained || !hasWarning(c.Warnings, flinkckpt.WarnDrainedSavepoint, "^drained savepoint") {
			t.Errorf("with job id chose %s, warnings %q", p.Key, c.Warnings)
		}
	})
	t.Run("SingleSnapshotDir", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		w := e.chk(jobA, 3, t0, &flinkckpttest.Checkpoint{Shared: shared("x", 1)})
		r, err := flinkckpt.NewResolver(e.bucket, w.Dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p, _ := flinkckpt.PositionOf(c.Position); p.Path != w.FlinkPath || p.CheckpointID != 3 {
			t.Errorf("got %+v, want path %s", p, w.FlinkPath)
		}
	})
	t.Run("NotFoundRaceChkDeletedBetweenListAndRead", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", &blobtest.Options{
			Fault: blobtest.NotFoundKeys(regexp.MustCompile(`chk-9/_metadata$`)),
		})
		e.chk(jobA, 8, t0, nil)
		e.chk(jobA, 9, t0, nil)
		c, p := e.mustResolve(withRoot(e))
		if p.CheckpointID != 8 || !hasLine(c.Reasons, `^chk-9 .*no _metadata`) {
			t.Errorf("chose %d, reasons %q", p.CheckpointID, c.Reasons)
		}
	})
	t.Run("MetadataDeletedByBeforeHook", func(t *testing.T) {
		var e *env
		e = newEnv(t, "ck/", "s3a://bucket/", &blobtest.Options{
			Before: func(ctx context.Context, c blobtest.Call, inner *blob.Bucket) {
				if c.Op == blobtest.OpRead && strings.HasSuffix(c.Key, "chk-9/_metadata") {
					inner.Delete(ctx, c.Key)
				}
			},
		})
		e.chk(jobA, 8, t0, nil)
		e.chk(jobA, 9, t0, nil)
		_, p := e.mustResolve(withRoot(e))
		if p.CheckpointID != 8 {
			t.Errorf("chose %d", p.CheckpointID)
		}
	})
}

func TestResolverFlinkPaths(t *testing.T) {
	for _, tc := range []struct {
		name, prefix, root, entropy string
		opts                        *flinkckpt.Options
		wantPath                    string
	}{
		{"S3aInferred", "ck/", "s3a://bucket/", "", nil, "s3a://bucket/ck/" + jobA + "/chk-2"},
		{"S3aGiven", "ck/", "s3a://bucket/", "", &flinkckpt.Options{FlinkRoot: "s3a://bucket/ck/"}, "s3a://bucket/ck/" + jobA + "/chk-2"},
		{"S3aGivenBucketRoot", "ck/", "s3a://bucket/", "", &flinkckpt.Options{FlinkRoot: "s3a://bucket/"}, "s3a://bucket/ck/" + jobA + "/chk-2"},
		{"S3aEntropyGivenBucketRoot", "ck/", "s3a://bucket/", "ENT", &flinkckpt.Options{FlinkRoot: "s3a://bucket"}, "s3a://bucket/ck/" + jobA + "/chk-2"},
		{"S3aEntropyInferred", "ck/", "s3a://bucket/", "ENT", nil, "s3a://bucket/ck/" + jobA + "/chk-2"},
		{"S3aEntropyGivenWithKey", "ck/", "s3a://bucket/", "ENT", &flinkckpt.Options{FlinkRoot: "s3a://bucket/_entropy_/ck", EntropyKey: "_entropy_"}, "s3a://bucket/ck/" + jobA + "/chk-2"},
		{"HdfsInferred", "data/ck/", "hdfs://ns/flink/", "", nil, "hdfs://ns/flink/data/ck/" + jobA + "/chk-2"},
		{"HdfsGiven", "data/ck/", "hdfs://ns/flink/", "", &flinkckpt.Options{FlinkRoot: "hdfs://ns/flink/data/ck"}, "hdfs://ns/flink/data/ck/" + jobA + "/chk-2"},
		{"OssCopiedUnderAnotherPath", "restore/ck/", "oss://prod/", "", nil, "oss://prod/restore/ck/" + jobA + "/chk-2"},
		{"AbfssGiven", "ck/", "abfss://c@acct.dfs.core.windows.net/", "", &flinkckpt.Options{FlinkRoot: "abfss://c@acct.dfs.core.windows.net/ck"}, "abfss://c@acct.dfs.core.windows.net/ck/" + jobA + "/chk-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.prefix, tc.root, nil)
			c := &flinkckpttest.Checkpoint{Shared: shared("s", 3), Entropy: tc.entropy}
			e.chk(jobA, 2, t0, c)
			if tc.entropy != "" {
				// Entropy is random per file: give each shared file its own segment.
				if err := e.mem.Delete(e.ctx, e.l.Prefix+jobA+"/chk-2/_metadata"); err != nil {
					t.Fatal(err)
				}
				writeEntropyCheckpoint(t, e, 2)
			}
			cand, p := e.mustResolve(tc.opts)
			if p.Path != tc.wantPath {
				t.Errorf("path %q, want %q", p.Path, tc.wantPath)
			}
			if hasLine(cand.Warnings, "not checked") {
				t.Errorf("warnings %q", cand.Warnings)
			}
			if !hasLine(cand.Reasons, `all \d+ checked referenced files exist`) {
				t.Errorf("reasons %q", cand.Reasons)
			}
		})
	}
}

// writeEntropyCheckpoint writes chk-<id> whose shared files carry different
// entropy segments, as Flink's entropy injection does.
func writeEntropyCheckpoint(t *testing.T, e *env, id int64) {
	t.Helper()
	var abs []string
	for i, seg := range []string{"Xa1", "b2Y", "9cZ"} {
		key := fmt.Sprintf("%s/%s%s/shared/e-%d", seg, e.l.Prefix, jobA, i)
		if err := e.mem.WriteAll(e.ctx, key, make([]byte, 16), nil); err != nil {
			t.Fatal(err)
		}
		abs = append(abs, e.l.Root+key)
	}
	if _, err := e.l.Checkpoint(e.ctx, jobA, id, &flinkckpttest.Checkpoint{Absolute: abs}); err != nil {
		t.Fatal(err)
	}
	e.rec.SetModTime(fmt.Sprintf("%s%s/chk-%d/_metadata", e.l.Prefix, jobA, id), t0)
}

func TestResolverUnmappableReferences(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Shared: shared("s", 1)})
	e.chk(jobA, 2, t0, &flinkckpttest.Checkpoint{Shared: shared("s", 1), Absolute: []string{"gs://other-bucket/elsewhere/f1"}})
	c, p := e.mustResolve(&flinkckpt.Options{FlinkRoot: "s3a://bucket/ck"})
	if p.CheckpointID != 1 || !p.Verified || !hasLine(c.Reasons, `^chk-2 .*unverified: 1 of 3 referenced files not checked .*gs://other-bucket/elsewhere/f1 — map them`) ||
		!hasWarning(c.Warnings, flinkckpt.WarnOlderThanUnverified, `newer ones could not be verified \(chk-2 of job`) {
		t.Errorf("chose %d, reasons %q, warnings %q", p.CheckpointID, c.Reasons, c.Warnings)
	}
	c, p = e.mustResolve(&flinkckpt.Options{FlinkRoot: "s3a://bucket/ck", AllowUnverified: true})
	if p.CheckpointID != 2 || p.Verified || !hasWarning(c.Warnings, flinkckpt.WarnUnverifiedReferences, `^references not checked \(allowed by Options.AllowUnverified\): 1 of 3 referenced files not checked .*gs://other-bucket/elsewhere/f1`) {
		t.Errorf("allowed: chose %d, warnings %q", p.CheckpointID, c.Warnings)
	}
	c, p = e.mustResolve(&flinkckpt.Options{FlinkRoot: "s3a://bucket/ck", Strict: true})
	if p.CheckpointID != 1 || !hasLine(c.Reasons, `^chk-2 .*unverified: .*not checked.*\(strict mode\)`) {
		t.Errorf("strict: chose %d, reasons %q", p.CheckpointID, c.Reasons)
	}
}

func TestNewResolverRejectsBadOptions(t *testing.T) {
	b := memblob.OpenBucket(nil)
	defer b.Close()
	for _, o := range []*flinkckpt.Options{
		{JobID: "not-a-job"}, {FlinkRoot: "bucket/ck"}, {Concurrency: -1}, {MaxMetadataSize: -5}, {EntropyKey: "a/b"},
		{Strict: true, AllowUnverified: true}, {Observe: -time.Second}, {DefaultFS: "hdfs:///flink"}, {DefaultFS: "ns"},
		{ExtraRoots: []flinkckpt.ExtraRoot{{FlinkRoot: "s3a://x/"}}}, {ExtraRoots: []flinkckpt.ExtraRoot{{FlinkRoot: "x", Bucket: b}}},
		{Intent: "rescale"}, {ClaimMode: "OWN"}, {FlinkVersion: "latest"}, {FlinkVersion: "1.14", ClaimMode: flinkckpt.ClaimClaim},
	} {
		if _, err := flinkckpt.NewResolver(b, "ck", o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if _, err := flinkckpt.NewResolver(nil, "ck", nil); err == nil {
		t.Error("nil bucket: no error")
	}
	r, err := flinkckpt.NewResolver(b, "ck", &flinkckpt.Options{Name: "mine"})
	if err != nil || r.Name() != "mine" {
		t.Errorf("name %v %v", r, err)
	}
}

// TestResolverContract runs resume's conformance check on resolvers that
// choose, find nothing, and fail.
func TestResolverContract(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 3, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
	for _, tc := range []struct {
		prefix string
		chosen int64 // the checkpoint chosen; 0: no position
	}{{"ck/", 3}, {"empty/", 0}, {"ck/" + jobA + "/chk-3/", 3}} {
		prefix := tc.prefix
		r, err := flinkckpt.NewResolver(e.bucket, prefix, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The check passes a resolver that fails: say what it answers.
		c, err := r.Resolve(e.ctx)
		switch {
		case tc.chosen == 0 && !errors.Is(err, resume.ErrNoPosition):
			t.Errorf("%s: err %v, want no position", prefix, err)
		case tc.chosen != 0 && err != nil:
			t.Errorf("%s: %v, want chk-%d", prefix, err, tc.chosen)
		case tc.chosen != 0:
			p, perr := flinkckpt.PositionOf(c.Position)
			if perr != nil || p.CheckpointID != tc.chosen || c.Guarantee != resume.ExactlyOnce {
				t.Errorf("%s: chose %+v (%s) %v, want chk-%d exactly-once", prefix, p, c.Guarantee, perr, tc.chosen)
			}
		}
		for _, err := range resumetest.CheckResolver(e.ctx, r) {
			t.Errorf("%s: %v", prefix, err)
		}
	}
}
