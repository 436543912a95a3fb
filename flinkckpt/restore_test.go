package flinkckpt_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/internal/fixtures"
	"github.com/resumekit/resumekit/resume"
)

// TestRestoreLimits (item 6): the position carries what the snapshot
// allows — an unaligned checkpoint (in-flight data: the same job on the
// same Flink minor version only), finished operators, the state backend
// family from the handle types, the savepoint format — each limit with a
// coded warning.
func TestRestoreLimits(t *testing.T) {
	for _, tc := range []struct {
		name    string
		c       *flinkckpttest.Checkpoint
		savept  bool
		backend flinkckpt.Backend
		warns   []resume.WarningCode
		check   func(*flinkckpt.Position) bool
	}{
		{"Incremental", &flinkckpttest.Checkpoint{Shared: shared("a", 1)}, false, flinkckpt.BackendRocksDBIncremental, nil, nil},
		{"Full", &flinkckpttest.Checkpoint{Shared: shared("a", 2), StateBackend: "full"}, false, flinkckpt.BackendFull, nil, nil},
		{"Changelog", &flinkckpttest.Checkpoint{Shared: shared("a", 1), StateBackend: "changelog"}, false, flinkckpt.BackendChangelog, nil, nil},
		{"CanonicalSavepoint", &flinkckpttest.Checkpoint{StateBackend: "canonical", Format: "CANONICAL"}, true, flinkckpt.BackendCanonical, nil,
			func(p *flinkckpt.Position) bool { return p.Format == "CANONICAL" }},
		{"Unaligned", &flinkckpttest.Checkpoint{Shared: shared("a", 1), Unaligned: true}, false, flinkckpt.BackendRocksDBIncremental,
			[]resume.WarningCode{flinkckpt.WarnUnaligned}, func(p *flinkckpt.Position) bool { return p.Unaligned }},
		{"FinishedOperators", &flinkckpttest.Checkpoint{Shared: shared("a", 1), FinishedOperators: 2}, false, flinkckpt.BackendRocksDBIncremental,
			[]resume.WarningCode{flinkckpt.WarnFinishedOperators}, func(p *flinkckpt.Position) bool { return p.FinishedOperators == 2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "ck/", "s3a://bucket/", nil)
			if tc.savept {
				e.savepoint(flinkckpttest.SavepointName(jobA, 1), 4, t0, tc.c)
			} else {
				e.chk(jobA, 4, t0, tc.c)
			}
			c, p := e.mustResolve(withRoot(e))
			if p.StateBackend != tc.backend || (tc.check != nil && !tc.check(p)) {
				t.Errorf("position %+v", p)
			}
			for _, w := range tc.warns {
				if !c.HasWarning(w) {
					t.Errorf("no %s: %q", w, c.Warnings)
				}
			}
			for _, w := range []resume.WarningCode{flinkckpt.WarnUnaligned, flinkckpt.WarnFinishedOperators} {
				if c.HasWarning(w) && !slices.Contains(tc.warns, w) {
					t.Errorf("unexpected %s: %q", w, c.Warnings)
				}
			}
			if !hasLine(c.Reasons, `: state backend `+string(tc.backend)+` \(from its keyed state handles\)$`) {
				t.Errorf("reasons %q", c.Reasons)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestIntentUpgrade (item 6): for an upgrade, savepoints rank before
// newer checkpoints (with a warning that the job reads again what came
// after), and unaligned checkpoints are refused.
func TestIntentUpgrade(t *testing.T) {
	sp := flinkckpttest.SavepointName(jobB, 1)
	t.Run("SavepointFirst", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 9, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		e.savepoint(sp, 5, t0.Add(-time.Hour), nil)
		_, p := e.mustResolve(withRoot(e))
		if p.Savepoint {
			t.Fatalf("restart intent chose the older savepoint %s", p.Key)
		}
		c, p := e.mustResolve(&flinkckpt.Options{FlinkRoot: e.l.FlinkRoot(), Intent: flinkckpt.IntentUpgrade})
		if !p.Savepoint || !hasLine(c.Reasons, `^ranks above chk-9 of job `+jobA+`: for an upgrade savepoints come before checkpoints`) ||
			!hasWarning(c.Warnings, flinkckpt.WarnSavepointPreferred, `over newer checkpoints \(chk-9 of job `+jobA+`\)`) {
			t.Errorf("chose %s, reasons %q, warnings %q", p.Key, c.Reasons, c.Warnings)
		}
	})
	t.Run("UnalignedRefused", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 8, t0.Add(-time.Minute), &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		e.chk(jobA, 9, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1), Unaligned: true})
		_, p := e.mustResolve(nil)
		if p.CheckpointID != 9 || !p.Unaligned {
			t.Fatalf("restart intent chose %+v", p)
		}
		c, p := e.mustResolve(&flinkckpt.Options{Intent: flinkckpt.IntentUpgrade})
		if p.CheckpointID != 8 || !hasLine(c.Reasons, `^chk-9 of job .*: refused for an upgrade: an unaligned checkpoint`) ||
			!hasWarning(c.Warnings, flinkckpt.WarnOlderThanRefused, `cannot serve an upgrade \(chk-9 of job`) {
			t.Errorf("chose %d, reasons %q, warnings %q", p.CheckpointID, c.Reasons, c.Warnings)
		}
	})
	// flinkckpttest wrote "full" and "canonical" unaligned checkpoints
	// without their channel state: each backend's is refused.
	for _, backend := range []string{"", "rocksdb-incremental", "full", "canonical", "changelog"} {
		t.Run("UnalignedRefused/"+backend, func(t *testing.T) {
			e := newEnv(t, "ck/", "s3a://bucket/", nil)
			e.chk(jobA, 8, t0.Add(-time.Minute), &flinkckpttest.Checkpoint{Shared: shared("a", 1), StateBackend: backend})
			e.chk(jobA, 9, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 2), Unaligned: true, StateBackend: backend})
			c, p := e.mustResolve(&flinkckpt.Options{Intent: flinkckpt.IntentUpgrade})
			if p.CheckpointID != 8 || !hasLine(c.Reasons, `^chk-9 of job .*: refused for an upgrade: an unaligned checkpoint`) {
				t.Errorf("chose %d, reasons %q", p.CheckpointID, c.Reasons)
			}
		})
	}
	if i, err := flinkckpt.ParseIntent("Upgrade"); err != nil || i != flinkckpt.IntentUpgrade {
		t.Errorf("ParseIntent: %v %v", i, err)
	}
	if _, err := flinkckpt.ParseIntent("rescale"); err == nil {
		t.Error("ParseIntent accepted rescale")
	}
}

// TestRestoreFactsRealFixtures: the state backend family and the savepoint
// facts of every real fixture, as their handle types and properties show.
func TestRestoreFactsRealFixtures(t *testing.T) {
	fb, err := fileblob.OpenBucket(fixtures.Dir(t), &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	type fact struct {
		Backend     flinkckpt.Backend
		Action      string
		KindUnknown bool
	}
	want := map[string]fact{
		"v2-flink1.6-savepoint":                                          {flinkckpt.BackendFull, "", true},
		"v2-flink1.8-complexkeyed-savepoint":                             {flinkckpt.BackendFull, "", true},
		"v3-flink1.12-rocksdb-raw-timers":                                {flinkckpt.BackendCanonical, "", true}, // savepoint key groups (type 7)
		"v3-flink1.15-rocksdb-checkpoint":                                {flinkckpt.BackendFull, "", true},      // RocksDB full snapshot: key groups
		"v3-unified-sink/savepoint-7bd90b-3a2cda6957cb":                  {"", "", false},
		"v4-flink1.16-changelog-checkpoint":                              {flinkckpt.BackendChangelog, "", false},
		"v4-flink1.17-rocksdb-incremental-checkpoint":                    {flinkckpt.BackendRocksDBIncremental, "", false},
		"v4-flink1.19-rocksdb-native-savepoint":                          {flinkckpt.BackendRocksDBIncremental, "NONE", false},
		"v4-flink1.19-hashmap-canonical-savepoint":                       {flinkckpt.BackendCanonical, "NONE", false},
		"v4-flink1.19-complexkeyed-savepoint":                            {flinkckpt.BackendCanonical, "NONE", false},
		"v4-kafka-source-native-savepoint/savepoint-3c7c0a-07c49f841952": {"", "SUSPEND", false},
		"v5-kafka-source-enum3-savepoint/savepoint-246fa1-85f387ecce0c":  {"", "SUSPEND", false},
	}
	got := map[string]fact{}
	for _, fx := range fixtures.Flink {
		r, err := flinkckpt.NewResolver(fb, fx.Dir, &flinkckpt.Options{FlinkRoot: "file:/fixtures"})
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(context.Background())
		if err != nil {
			t.Errorf("%s: %v", fx.Dir, err)
			continue
		}
		p, _ := flinkckpt.PositionOf(c.Position)
		got[fx.Dir] = fact{p.StateBackend, p.PostCheckpointAction, p.KindUnknown}
		if p.KindUnknown != c.HasWarning(flinkckpt.WarnKindUnknown) || (p.KindUnknown && c.Position.String()[:9] != "snapshot ") {
			t.Errorf("%s: %q %q", fx.Dir, c.Position, c.Warnings)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("facts (-want +got):\n%s", diff)
	}
}

// TestNothingServesTheIntent: when the only restorable snapshots are
// unaligned checkpoints and the restart is an upgrade, Resolve fails
// (ErrIntent), not "no position": the state is there, a stateless start in
// its place would drop it.
func TestNothingServesTheIntent(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 9, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1), Unaligned: true})
	_, err := e.resolve(&flinkckpt.Options{Intent: flinkckpt.IntentUpgrade})
	if !errors.Is(err, flinkckpt.ErrIntent) || errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), "refused for an upgrade") {
		t.Errorf("err %v", err)
	}
}
