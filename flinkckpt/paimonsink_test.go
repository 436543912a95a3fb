package flinkckpt_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// realPaimonSinkUser is the commit user of the real Paimon sink fixtures:
// sinkstate's testdata/paimon-sink (Flink 1.20.3 checkpoints chk-1, chk-2
// of a SQL job writing a Paimon 1.3.1 table, each committer holding its
// own checkpoint's ManifestCommittable) and paimon's
// testdata/paimon-sink-table (the table: snapshots 1 and 2, identifiers 1
// and 2, that user).
const realPaimonSinkUser = "19a5cdb2-82ab-404c-b508-0a6406ae6e4b"

// realPaimonSinkRestore puts the real chk-2 into b as liveJob's, and the
// real sink table's schema and the snapshot files named (with EARLIEST
// and LATEST) at wh/db.db/sink.
func realPaimonSinkRestore(t *testing.T, b *blob.Bucket, snapshots ...string) {
	t.Helper()
	ctx := context.Background()
	put := func(key, file string) {
		data, err := os.ReadFile(filepath.FromSlash(file))
		if err != nil {
			t.Fatal(err)
		}
		if err := b.WriteAll(ctx, key, data, nil); err != nil {
			t.Fatal(err)
		}
	}
	put("ck/"+liveJob+"/chk-2/_metadata", "metadata/sinkstate/testdata/paimon-sink/chk-2/_metadata")
	const table = "../paimon/testdata/paimon-sink-table/db.db/sink/"
	put("wh/db.db/sink/schema/schema-0", table+"schema/schema-0")
	for _, s := range snapshots {
		put("wh/db.db/sink/snapshot/snapshot-"+s, table+"snapshot/snapshot-"+s)
	}
	if err := b.WriteAll(ctx, "wh/db.db/sink/snapshot/EARLIEST", []byte(snapshots[0]), nil); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteAll(ctx, "wh/db.db/sink/snapshot/LATEST", []byte(snapshots[len(snapshots)-1]), nil); err != nil {
		t.Fatal(err)
	}
}

// TestRestorePaimonSinkAskTheTable: the restore of real Flink's chk-2,
// whose Paimon committer holds checkpoint 2's committable, asks the sink
// table (Options.Live.PaimonSink) by Paimon's rule
// (FileStoreCommitImpl.filterCommitted). The table as Paimon left it
// (the user's latest identifier 2): committed, nothing pending for any
// other start. The table before checkpoint 2's notification reached the
// committer (snapshot 1 only): not committed, the restore commits it
// (exactly-once stays) and the output is pending for every other start
// (SinkPending). Without the table: unchecked, pending. One snapshot
// listing of the table per resolve.
func TestRestorePaimonSinkAskTheTable(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		snapshots []string // nil: no table given
		verdict   string
		pending   bool
	}{
		{"committed", []string{"1", "2"}, string(livecheck.PaimonCommitted), false},
		{"not committed", []string{"1"}, string(livecheck.PaimonNotCommitted), true},
		{"no table", nil, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := memblob.OpenBucket(nil)
			defer b.Close()
			live := &livecheck.Checkers{}
			var rec *blobtest.Recorder
			if tc.snapshots != nil {
				realPaimonSinkRestore(t, b, tc.snapshots...)
				var wb *blob.Bucket
				wb, rec = blobtest.Wrap(b, nil)
				defer wb.Close()
				tbl, err := paimon.NewTable(wb, "wh/db.db/sink", nil)
				if err != nil {
					t.Fatal(err)
				}
				live.PaimonSink = livecheck.MemoPaimonSink(tbl)
			} else {
				realPaimonSinkRestore(t, b, "1")
			}
			c, err := liveResolver(t, b, live).Resolve(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if c.Guarantee != resume.ExactlyOnce {
				t.Fatalf("guarantee %s; warnings %v", c.Guarantee, c.Warnings)
			}
			sinks := sinksOf(t, c)
			if len(sinks) != 1 || sinks[0].Type != flinkckpt.SinkTypePaimon || sinks[0].Verdict != tc.verdict || sinks[0].Checked != (tc.snapshots != nil) {
				t.Fatalf("sinks %+v", sinks)
			}
			p, _ := flinkckpt.PositionOf(c.Position)
			if got := p.SinkPending(); (got != "") != tc.pending || tc.pending && !strings.Contains(got, "checkpoint 2") {
				t.Errorf("sink pending %q, want pending %v", got, tc.pending)
			}
			if tc.snapshots == nil {
				return
			}
			if pt := sinks[0].PaimonTable; pt == nil || pt.Commit.CommitUser != realPaimonSinkUser || pt.Checkpoints[0].CheckpointID != 2 {
				t.Errorf("paimon table %+v", pt)
			}
			if !strings.Contains(strings.Join(c.Reasons, "\n"), "Paimon sink committer") {
				t.Errorf("reasons %q", c.Reasons)
			}
			// A second resolve with the same memo asks nothing more.
			if _, err := liveResolver(t, b, live).Resolve(ctx); err != nil {
				t.Fatal(err)
			}
			if n := rec.Count(blobtest.OpList); n != 1 {
				t.Errorf("table cost %s, want one listing", rec)
			}
		})
	}
}

// TestRestorePaimonSinkTableDownOrUnknown: the Paimon sink's table
// unreadable on the restore path (its store failing every call) fails the
// restore naming the committer and the table (a failure to look), and the
// chain fails closed: nothing is chosen in its place. A table holding no
// snapshot of the committer's commit user (another writer's only, as
// after expiry) is unknown: flink.sink-unknown, the output stays pending
// for the chain, never committed.
func TestRestorePaimonSinkTableDownOrUnknown(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	realPaimonSinkRestore(t, b, "1", "2")
	down, _ := blobtest.Wrap(b, &blobtest.Options{Fault: func(blobtest.Call) error { return errors.New("store down") }})
	defer down.Close()
	tbl, err := paimon.NewTable(down, "wh/db.db/sink", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := liveResolver(t, b, &livecheck.Checkers{PaimonSink: tbl})
	if _, err := r.Resolve(ctx); err == nil || !strings.Contains(err.Error(), "store down") || !strings.Contains(err.Error(), "Paimon sink committer") || !strings.Contains(err.Error(), "db.sink") {
		t.Fatalf("table down: %v", err)
	}
	if d, err := (&resume.Chain{Resolvers: []resume.Resolver{r}, Policy: resume.Policy{MinGuarantee: resume.DataLoss}}).Resolve(ctx); err == nil || d.Chosen != nil {
		t.Errorf("table down: chosen %v, %v", d.Chosen, err)
	}

	other := memblob.OpenBucket(nil)
	defer other.Close()
	realPaimonSinkRestore(t, other, "1")
	paimontest.New(t, other, "wh/db.db/other").SinkCommit("another-writer", 9, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	otbl, err := paimon.NewTable(other, "wh/db.db/other", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := liveResolver(t, other, &livecheck.Checkers{PaimonSink: otbl}).Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sinks := sinksOf(t, c)
	p, _ := flinkckpt.PositionOf(c.Position)
	if c.Guarantee != resume.ExactlyOnce || !strings.Contains(warningText(c, flinkckpt.WarnSinkUnknown), "cannot say whether checkpoint 2 was committed") ||
		len(sinks) != 1 || sinks[0].Verdict != string(livecheck.PaimonCommitUnknown) || p.SinkPending() == "" {
		t.Errorf("unknown: %s %v sinks %+v", c.Guarantee, c.Warnings, sinks)
	}
}
