package flinkckpt_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// jobOf returns a Job with the layout writer's operators i (flinkckpttest
// writes operator 0 with keyed state, the others with operator state),
// said to be all of its operators (AllUIDs): the others are dropped.
func jobOf(t *testing.T, ops ...int) *jobgraph.Job {
	t.Helper()
	j := &jobgraph.Job{AllUIDs: true}
	for _, i := range ops {
		if err := j.AddOperatorID(flinkckpttest.OperatorID(i)); err != nil {
			t.Fatal(err)
		}
	}
	return j
}

// twoCheckpoints: chk-1 has operators 0 and 1, chk-2 (newer) also 2.
func twoCheckpoints(t *testing.T) *env {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Operators: 2})
	e.chk(jobA, 2, t0.Add(time.Minute), &flinkckpttest.Checkpoint{Operators: 3})
	return e
}

func TestResolverWithJobRestoringEverything(t *testing.T) {
	e := twoCheckpoints(t)
	c, p := e.mustResolve(&flinkckpt.Options{FlinkRoot: e.l.FlinkRoot(), Job: jobOf(t, 0, 1, 2, 3)})
	if p.CheckpointID != 2 || c.Guarantee != resume.ExactlyOnce || p.AllowNonRestoredState {
		t.Fatalf("chose %d (%s), allow %v", p.CheckpointID, c.Guarantee, p.AllowNonRestoredState)
	}
	if !hasLine(c.Reasons, `restores into the new job: 3 of 3 operators matched by id, 0 without state skipped, 0 dropped; the new job's operators \S+ are not in it and start empty`) {
		t.Errorf("reasons %q", c.Reasons)
	}
	for _, code := range []resume.WarningCode{flinkckpt.WarnDroppedState, flinkckpt.WarnOlderThanIncompatible, flinkckpt.WarnConditionalRestore} {
		if c.HasWarning(code) {
			t.Errorf("warning %s: %v", code, c.Warnings)
		}
	}
	if slicesContain(c.Position.Launch().Args, "--allowNonRestoredState") {
		t.Errorf("launch %v", c.Position.Launch())
	}
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestResolverWithJobRejectsDroppedState: the newest checkpoint holds state
// the new job has no operator for: rejected with the operator named; the
// older one restores completely and is chosen, with the duplicates warning.
func TestResolverWithJobRejectsDroppedState(t *testing.T) {
	e := twoCheckpoints(t)
	c, p := e.mustResolve(&flinkckpt.Options{FlinkRoot: e.l.FlinkRoot(), Job: jobOf(t, 0, 1)})
	if p.CheckpointID != 1 || c.Guarantee != resume.ExactlyOnce {
		t.Fatalf("chose %d (%s)", p.CheckpointID, c.Guarantee)
	}
	if !hasLine(c.Reasons, `chk-2 of job `+jobA+`: the new job has no operator for the state of `+flinkckpttest.OperatorID(2)+`: the restore fails`) {
		t.Errorf("reasons %q", c.Reasons)
	}
	// Exactly-once stays: nothing checked the input (no Options.Live), and
	// the warning says what a source loses where its input is gone, not
	// only duplicates (issue 33 item 13).
	if !hasWarning(c.Warnings, flinkckpt.WarnOlderThanIncompatible, `cannot restore newer ones \(chk-2 of job `+jobA+`\): they completed, and the new job reads again what they had read past this one: .*(loss|lose).*duplicates downstream`) || c.HasWarning(flinkckpt.WarnOlderThanBroken) {
		t.Errorf("warnings %v", c.Warnings)
	}

	// Neither restores into a job without operator 1: nothing to offer,
	// and the error names what would be dropped.
	_, err := e.resolve(&flinkckpt.Options{FlinkRoot: e.l.FlinkRoot(), Job: jobOf(t, 0)})
	if !errors.Is(err, resume.ErrNoPosition) || !errors.Is(err, flinkckpt.ErrIncompatible) || !strings.Contains(err.Error(), "no operator for the state of "+flinkckpttest.OperatorID(1)) {
		t.Errorf("error %v", err)
	}
}

// TestResolverWithJobAllowNonRestoredState: the newest checkpoint is
// offered, exact-input at best, with the dropped operator named and the
// launch flag.
func TestResolverWithJobAllowNonRestoredState(t *testing.T) {
	e := twoCheckpoints(t)
	c, p := e.mustResolve(&flinkckpt.Options{FlinkRoot: e.l.FlinkRoot(), Job: jobOf(t, 0, 1), AllowNonRestoredState: true})
	if p.CheckpointID != 2 || c.Guarantee != resume.ExactInput || !p.AllowNonRestoredState {
		t.Fatalf("chose %d (%s), allow %v", p.CheckpointID, c.Guarantee, p.AllowNonRestoredState)
	}
	if !hasWarning(c.Warnings, flinkckpt.WarnDroppedState, `drops the state of `+flinkckpttest.OperatorID(2)+` \(--allowNonRestoredState\)`) || c.HasWarning(flinkckpt.WarnDroppedSourceState) {
		t.Errorf("warnings %v", c.Warnings)
	}
	l := c.Position.Launch()
	if !cmp.Equal(l.Args[2:], []string{"--allowNonRestoredState"}) || l.Config["execution.state-recovery.ignore-unclaimed-state"] != "true" ||
		l.Config["execution.savepoint.ignore-unclaimed-state"] != "true" {
		t.Errorf("launch %+v", l)
	}
	// The chain keeps it: exact-input meets the default minimum (replay).
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{mustResolver(t, e, &flinkckpt.Options{FlinkRoot: e.l.FlinkRoot(), Job: jobOf(t, 0, 1), AllowNonRestoredState: true})}}).Resolve(e.ctx)
	if err != nil || d.Chosen == nil || d.Chosen.Guarantee != resume.ExactInput {
		t.Errorf("chain: %v, %+v", err, d.Chosen)
	}
}

func mustResolver(t *testing.T, e *env, opts *flinkckpt.Options) *flinkckpt.Resolver {
	t.Helper()
	r, err := flinkckpt.NewResolver(e.bucket, e.l.Prefix, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestResolverWithJobDroppedSourceState: the dropped state includes an
// operator coordinator's (a FLIP-27 source's enumerator): the source
// starts from its startup options, so the grade is data-loss.
func TestResolverWithJobDroppedSourceState(t *testing.T) {
	e := newEnv(t, "sp/", "s3a://bucket/", nil)
	md := &metadata.Checkpoint{Version: 5, CheckpointID: 4, Savepoint: true, Format: metadata.FormatNative, Operators: []metadata.Operator{
		{ID: jobgraph.OperatorID("kafka-source-operator-uid"), UID: "kafka-source-operator-uid", Parallelism: 1, MaxParallelism: 128,
			Coordinator:   &metadata.StreamHandle{Type: metadata.TypeByteStream, Name: "c", Data: []byte{1}},
			SubtaskStates: []metadata.SubtaskState{{ManagedOperator: opHandle}}},
		{ID: jobgraph.OperatorID("sink"), UID: "sink", Parallelism: 1, MaxParallelism: 128, SubtaskStates: []metadata.SubtaskState{{ManagedOperator: opHandle}}},
	}}
	data, err := flinkckpttest.Encode(md)
	if err != nil {
		t.Fatal(err)
	}
	key := "sp/" + flinkckpttest.SavepointName(jobA, 1) + "/_metadata"
	if err := e.mem.WriteAll(e.ctx, key, data, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := e.mustResolve(&flinkckpt.Options{FlinkRoot: "s3a://bucket/sp", Job: jobgraph.JobFromUIDs("kafka-source-uid", "sink"), AllowNonRestoredState: true})
	if c.Guarantee != resume.DataLoss || !hasWarning(c.Warnings, flinkckpt.WarnDroppedSourceState, `uid kafka-source-operator-uid.*split enumerator`) ||
		!hasWarning(c.Warnings, flinkckpt.WarnDroppedState, `uid kafka-source-operator-uid`) {
		t.Errorf("%s %v", c.Guarantee, c.Warnings)
	}
}

// TestResolverWithJobConditionalRestore: state that goes to an operator the
// new job creates only maybe (a SinkV2 committer) is said out loud.
func TestResolverWithJobConditionalRestore(t *testing.T) {
	e := twoCheckpoints(t)
	j := jobOf(t, 0, 1)
	if err := j.Add(jobgraph.JobOperator{ID: flinkckpttest.OperatorID(2), Name: "committer", Maybe: true}); err != nil {
		t.Fatal(err)
	}
	c, p := e.mustResolve(&flinkckpt.Options{FlinkRoot: e.l.FlinkRoot(), Job: j})
	if p.CheckpointID != 2 || c.Guarantee != resume.ExactlyOnce || !hasWarning(c.Warnings, flinkckpt.WarnConditionalRestore, flinkckpttest.OperatorID(2)+` \(committer\)`) {
		t.Errorf("chose %d (%s), warnings %v", p.CheckpointID, c.Guarantee, c.Warnings)
	}
}

// TestResolverWithJobParallelism: a parallelism above the snapshot's max
// parallelism fails the restore: rejected, even with AllowNonRestoredState.
func TestResolverWithJobParallelism(t *testing.T) {
	e := twoCheckpoints(t)
	j := jobOf(t, 0, 1, 2)
	j.Parallelism = 256
	_, err := e.resolve(&flinkckpt.Options{FlinkRoot: e.l.FlinkRoot(), Job: j, AllowNonRestoredState: true})
	if !errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), "parallelism 256 in the new job is above the snapshot's max parallelism 128") {
		t.Errorf("error %v", err)
	}
}

func TestResolverJobOptions(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	for _, opts := range []*flinkckpt.Options{
		{AllowNonRestoredState: true},
		{Job: &jobgraph.Job{}},
	} {
		if _, err := flinkckpt.NewResolver(e.bucket, "ck/", opts); err == nil {
			t.Errorf("%+v accepted", opts)
		}
	}
}

// TestResolverWithJobRejectsBeforeVerifying: the check against the new job
// reads only the parsed _metadata. The newest checkpoint is both
// incompatible and broken (a shared file deleted): it is rejected for the
// job without a storage call for its files (not listed, no attribute call,
// never called broken), and the older one is chosen with
// flink.older-than-incompatible, not flink.older-than-broken.
func TestResolverWithJobRejectsBeforeVerifying(t *testing.T) {
	var mu sync.Mutex
	var calls []blobtest.Call
	spy := func(c blobtest.Call) error {
		if c.Op == blobtest.OpList || c.Op == blobtest.OpAttributes {
			mu.Lock()
			calls = append(calls, c)
			mu.Unlock()
		}
		return nil
	}
	e := newEnv(t, "ck/", "s3a://bucket/", &blobtest.Options{Fault: spy})
	e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Operators: 2, Shared: shared("old", 2)})
	w := e.chk(jobA, 2, t0.Add(time.Minute), &flinkckpttest.Checkpoint{Operators: 3, Shared: shared("new", 2)})
	deleted := ""
	for _, k := range w.Files {
		if strings.Contains(k, "new-") {
			deleted = k
			break
		}
	}
	if deleted == "" {
		t.Fatalf("no shared file written: %q", w.Files)
	}
	if err := e.mem.Delete(e.ctx, deleted); err != nil {
		t.Fatal(err)
	}
	c, p := e.mustResolve(&flinkckpt.Options{Job: jobOf(t, 0, 1)})
	if p.CheckpointID != 1 || c.Guarantee != resume.ExactlyOnce {
		t.Fatalf("chose %d (%s)", p.CheckpointID, c.Guarantee)
	}
	if !hasLine(c.Reasons, `^chk-2 of job `+jobA+`: the new job has no operator for the state of `+flinkckpttest.OperatorID(2)) || hasLine(c.Reasons, `^chk-2 .*broken`) {
		t.Errorf("reasons %q", c.Reasons)
	}
	if !c.HasWarning(flinkckpt.WarnOlderThanIncompatible) || c.HasWarning(flinkckpt.WarnOlderThanBroken) {
		t.Errorf("warnings %v", c.Warnings)
	}
	mu.Lock()
	defer mu.Unlock()
	attrs := 0
	for _, call := range calls {
		if strings.HasPrefix(call.Key, w.Dir) || strings.Contains(call.Key, "new-") {
			t.Errorf("%s %s: a snapshot rejected for the new job costs no storage call", call.Op, call.Key)
		}
		if call.Op == blobtest.OpAttributes {
			attrs++
		}
	}
	if attrs != 2 {
		t.Errorf("%d attribute calls, want 2 (chk-1's shared files)", attrs)
	}
}

// TestResolverWithUIDLessOperatorsUnknown (issue 22 item 3): a job given
// by some of its uids does not turn the other operators with state into
// "dropped": they may be uid-less operators of the new job, whose ids
// Flink generates and no uid gives. The newest checkpoint is offered,
// exactly-once (Flink restores them or fails the restore at once), with a
// coded warning naming them; adding their ids restores them; saying the
// description names every operator makes them dropped. A _metadata v5+
// that records an operator's uid settles it: dropped.
func TestResolverWithUIDLessOperatorsUnknown(t *testing.T) {
	e := twoCheckpoints(t)
	opts := func(j *jobgraph.Job, allow bool) *flinkckpt.Options {
		return &flinkckpt.Options{FlinkRoot: e.l.FlinkRoot(), Job: j, AllowNonRestoredState: allow}
	}
	byUID := jobgraph.JobFromUIDs("uid-0", "uid-1")
	c, p := e.mustResolve(opts(byUID, false))
	if p.CheckpointID != 2 || c.Guarantee != resume.ExactlyOnce || p.AllowNonRestoredState ||
		!hasWarning(c.Warnings, flinkckpt.WarnUnknownOperators, flinkckpttest.OperatorID(2)+`, which hold state: Flink restores them if they are uid-less operators`) ||
		!hasLine(c.Reasons, `restores into the new job: 2 of 3 operators matched by id, 0 without state skipped, 0 dropped, 1 unknown`) {
		t.Errorf("by uid: chose %d (%s) allow %v, warnings %q, reasons %q", p.CheckpointID, c.Guarantee, p.AllowNonRestoredState, c.Warnings, c.Reasons)
	}
	// The caller adds the uid-less operator's id: restored, no warning.
	withID := jobgraph.JobFromUIDs("uid-0", "uid-1")
	if err := withID.AddOperatorID(flinkckpttest.OperatorID(2)); err != nil {
		t.Fatal(err)
	}
	if c, p := e.mustResolve(opts(withID, false)); p.CheckpointID != 2 || c.HasWarning(flinkckpt.WarnUnknownOperators) || c.Guarantee != resume.ExactlyOnce {
		t.Errorf("with its id: chose %d, warnings %q", p.CheckpointID, c.Warnings)
	}
	// Every operator named: dropped, so chk-2 is refused.
	all := jobgraph.JobFromUIDs("uid-0", "uid-1")
	all.AllUIDs = true
	if _, p := e.mustResolve(opts(all, false)); p.CheckpointID != 1 {
		t.Errorf("all uids: chose %d", p.CheckpointID)
	}

	// Unknown beside dropped state with AllowNonRestoredState: the launch
	// carries --allowNonRestoredState, so the unknown state may be dropped
	// too: graded below exactly-once, and data-loss when it is a source
	// coordinator's.
	v5 := newEnv(t, "ck/", "s3a://bucket/", nil)
	src := flinkckpttest.KafkaSource("orders", "orders", 5, 7)
	src.UID, src.OperatorID = "", flinkckpttest.OperatorID(99) // a uid-less source: a generated id
	v5.chk(jobA, 3, t0, &flinkckpttest.Checkpoint{Version: 5, Operators: 3, Shared: shared("x", 1), Sources: []flinkckpttest.Source{src}})
	r, err := flinkckpt.Inspect(v5.ctx, v5.mem, "ck/"+jobA+"/chk-3/", &flinkckpt.Options{SkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	var uidLess string
	for _, op := range r.Metadata.Operators {
		if op.UID == "" && jobgraph.HasState(&op) {
			uidLess = op.ID
		}
	}
	if uidLess == "" {
		t.Fatalf("the writer's source has a uid: %+v", r.Metadata.Operators)
	}
	j := jobgraph.JobFromUIDs("uid-0") // uid-1 and uid-2 recorded: dropped; the source: unknown
	c, p = v5.mustResolve(&flinkckpt.Options{Job: j, AllowNonRestoredState: true})
	if c.Guarantee != resume.DataLoss || !p.AllowNonRestoredState || !c.HasWarning(flinkckpt.WarnDroppedState) ||
		!hasWarning(c.Warnings, flinkckpt.WarnUnknownOperators, uidLess+`.*with --allowNonRestoredState in the launch their state is dropped.*graded data-loss`) {
		t.Errorf("v5: %s allow %v, warnings %q", c.Guarantee, p.AllowNonRestoredState, c.Warnings)
	}
	cc := jobgraph.CheckCompat(r.Metadata, j)
	if !cmp.Equal(cc.Unknown, []string{uidLess}) || !cmp.Equal(cc.Dropped, []string{flinkckpttest.OperatorID(1), flinkckpttest.OperatorID(2)}) {
		t.Errorf("v5 compat: unknown %v dropped %v", cc.Unknown, cc.Dropped)
	}
}

// TestResolverWithJobDroppedLegacySource: a source dropped under
// --allowNonRestoredState is a source whatever its kind: a legacy
// FlinkKafkaConsumer's, a Debezium source's or Paimon's MonitorFunction's
// offsets, with no coordinator state, grade the restore data-loss too.
func TestResolverWithJobDroppedLegacySource(t *testing.T) {
	for _, tc := range []struct{ state, says string }{
		{"topic-partition-offset-states", "FlinkKafkaConsumer"},
		{"offset-states", "Debezium"},
		{"next-snapshot", "MonitorFunction"},
		{"SourceReaderState", "FLIP-27 source's reader state"},
	} {
		t.Run(tc.says, func(t *testing.T) {
			e := newEnv(t, "sp/", "s3a://bucket/", nil)
			h := &metadata.OperatorHandle{Type: metadata.TypeOperatorStream, States: []metadata.OperatorStateInfo{{Name: tc.state, Mode: metadata.ModeUnion, Offsets: []int64{0}}},
				Stream: &metadata.StreamHandle{Type: metadata.TypeByteStream, Name: "s", Data: []byte{0, 0, 0, 0}}}
			md := &metadata.Checkpoint{Version: 5, CheckpointID: 4, Savepoint: true, Format: metadata.FormatNative, Operators: []metadata.Operator{
				{ID: jobgraph.OperatorID("legacy-source"), UID: "legacy-source", Parallelism: 1, MaxParallelism: 128,
					SubtaskStates: []metadata.SubtaskState{{ManagedOperator: h}}},
				{ID: jobgraph.OperatorID("sink"), UID: "sink", Parallelism: 1, MaxParallelism: 128, SubtaskStates: []metadata.SubtaskState{{ManagedOperator: opHandle}}},
			}}
			data, err := flinkckpttest.Encode(md)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.mem.WriteAll(e.ctx, "sp/"+flinkckpttest.SavepointName(jobA, 1)+"/_metadata", data, nil); err != nil {
				t.Fatal(err)
			}
			c, _ := e.mustResolve(&flinkckpt.Options{FlinkRoot: "s3a://bucket/sp", Job: jobgraph.JobFromUIDs("new-source", "sink"), AllowNonRestoredState: true})
			if c.Guarantee != resume.DataLoss || !hasWarning(c.Warnings, flinkckpt.WarnDroppedSourceState, `uid legacy-source.*`+tc.says) {
				t.Errorf("%s %v", c.Guarantee, c.Warnings)
			}
		})
	}
}

// TestOlderThanIncompatibleSaysPerSource: the chosen older checkpoint
// holds a KafkaSource and a Paimon MonitorSource; the warning says what
// each does with the input the newer checkpoint had read past it (Kafka:
// replayed, lost where the log no longer holds it; Paimon: replayed, a
// failing restore where snapshots expired), unchecked without live checks,
// not only "duplicates" (issue 33 item 13).
func TestOlderThanIncompatibleSaysPerSource(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	srcs := []flinkckpttest.Source{flinkckpttest.KafkaSource("kafka-in", "orders", 10, 11), flinkckpttest.MonitorSource("paimon-in", 7)}
	e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Operators: 2, Sources: srcs})
	e.chk(jobA, 2, t0.Add(time.Minute), &flinkckpttest.Checkpoint{Operators: 3, Sources: srcs})
	job := jobOf(t, 0, 1)
	job.AddUID("kafka-in")
	job.AddUID("paimon-in")
	c, p := e.mustResolve(&flinkckpt.Options{FlinkRoot: e.l.FlinkRoot(), Job: job})
	if p.CheckpointID != 1 {
		t.Fatalf("chose %d", p.CheckpointID)
	}
	for _, want := range []string{
		`Kafka sources replay it from the restored offsets, and lose what the log no longer holds \(data-loss; not checked`,
		`Paimon sources replay it from the restored snapshot, and the restore fails where those snapshots expired \(not checked`,
		`duplicates downstream`,
	} {
		if !hasWarning(c.Warnings, flinkckpt.WarnOlderThanIncompatible, want) {
			t.Errorf("no %q in %v", want, c.Warnings)
		}
	}
}
