package flinkckpt_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
)

// TestMessages (item 10): what resumekit says matches what it found.
func TestMessages(t *testing.T) {
	t.Run("HdfsTreeIsNotRelative", func(t *testing.T) {
		// hdfs:/flink/… references used to be unparseable as URIs, and the
		// snapshot was reported as having only relative references.
		e := newEnv(t, "ck/", "hdfs:///flink/", nil)
		e.l.PathString = true
		e.chk(jobA, 2, t0, &flinkckpttest.Checkpoint{Shared: shared("s", 2)})
		c, p := e.mustResolve(nil)
		if p.Path != "hdfs:///flink/ck/"+jobA+"/chk-2" || hasLine(c.Reasons, "relative") {
			t.Errorf("path %q, reasons %q", p.Path, c.Reasons)
		}
		// References that do not contain the snapshot's key say so.
		e2 := newEnv(t, "restore/", "hdfs:///flink/", nil)
		e2.l.PathString = true
		e2.chk(jobA, 2, t0, &flinkckpttest.Checkpoint{Absolute: []string{"hdfs:///elsewhere/x"}})
		_, err := e2.resolve(nil)
		if !errors.Is(err, flinkckpt.ErrNoFlinkPath) || strings.Contains(err.Error(), "all relative") ||
			!strings.Contains(err.Error(), "none of its 1 absolute references contains its key") || !strings.Contains(err.Error(), "(first: hdfs:///elsewhere/x)") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("CanonicalSavepointWithoutFallbackRoot", func(t *testing.T) {
		// On a store resumectl derives no Flink root for (azblob://), a
		// canonical savepoint is shown with its key and a request for
		// --flink-root, in List and in Resolve.
		e := newEnv(t, "sp/", "abfss://c@acct.dfs.core.windows.net/", nil)
		w := e.savepoint(flinkckpttest.SavepointName(jobA, 1), 9, t0, &flinkckpttest.Checkpoint{Format: "CANONICAL"})
		snaps, err := flinkckpt.List(e.ctx, e.bucket, "sp/", nil)
		if err != nil || len(snaps) != 1 || snaps[0].Key != w.Dir || snaps[0].Path != "" || snaps[0].State != flinkckpt.StateComplete ||
			!strings.Contains(snaps[0].Reason, "no Flink path: pass the Flink URI of the location (Options.FlinkRoot, --flink-root)") {
			t.Errorf("List: %+v, %v", snaps, err)
		}
		if _, err := e.resolve(nil); !errors.Is(err, flinkckpt.ErrNoFlinkPath) || !strings.Contains(err.Error(), w.Dir) {
			t.Errorf("err %v", err)
		}
	})
	t.Run("OldSavepointOutsideSavepointDir", func(t *testing.T) {
		// A version 3 _metadata records no properties; in a dir named
		// neither chk-<n> nor savepoint-… nothing tells its kind: it is not
		// called a checkpoint.
		e := newEnv(t, "backups/", "s3a://bucket/", nil)
		e.savepoint("before-upgrade", 5, t0, &flinkckpttest.Checkpoint{Version: 3})
		r, err := flinkckpt.NewResolver(e.bucket, "backups/before-upgrade/", withRoot(e))
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := flinkckpt.PositionOf(c.Position)
		if p.Savepoint || !p.KindUnknown || c.Position.String() != "snapshot before-upgrade (checkpoint 5)" ||
			!hasLine(c.Reasons, `^before-upgrade: snapshot of unknown kind _metadata version 3`) ||
			!hasWarning(c.Warnings, flinkckpt.WarnKindUnknown, `^before-upgrade: checkpoint or savepoint, nothing tells`) {
			t.Errorf("%+v %q, reasons %q, warnings %q", p, c.Position, c.Reasons, c.Warnings)
		}
		snaps, err := flinkckpt.List(e.ctx, e.bucket, "backups/before-upgrade/", withRoot(e))
		if err != nil || len(snaps) != 1 || !snaps[0].KindUnknown || !strings.Contains(snaps[0].Reason, "checkpoint or savepoint, nothing tells") {
			t.Errorf("List: %+v, %v", snaps, err)
		}
		// In a savepoint-… dir the kind is known.
		e.savepoint(flinkckpttest.SavepointName(jobA, 1), 6, t0, &flinkckpttest.Checkpoint{Version: 3})
		_, p = e.mustResolve(withRoot(e))
		if !p.Savepoint || p.KindUnknown {
			t.Errorf("savepoint-… dir: %+v", p)
		}
	})
}

// TestListUnverified (item 2): references that cannot be checked make a
// snapshot "unverified", not "complete".
func TestListUnverified(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Shared: shared("s", 1), Absolute: []string{"gs://other/f"}})
	snaps, err := flinkckpt.List(e.ctx, e.bucket, "ck/", nil)
	if err != nil || len(snaps) != 1 || snaps[0].State != flinkckpt.StateUnverified ||
		!strings.Contains(snaps[0].Reason, "1 of 3 referenced files not checked") || snaps[0].Verification.Checked() != 2 {
		t.Errorf("List: %+v, %v", snaps, err)
	}
	snaps, _ = flinkckpt.List(e.ctx, e.bucket, "ck/", &flinkckpt.Options{SkipVerify: true})
	if len(snaps) != 1 || snaps[0].State != flinkckpt.StateUnverified {
		t.Errorf("SkipVerify: %+v", snaps)
	}
}
