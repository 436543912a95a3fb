package salvage_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/opstate"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// k1 is the frozen real export of conformance scenario K1 (Flink 1.20.3):
// a KafkaSource (topic in-K1, partition 2 not started: the committed
// marker) → count → a two-phase Sink V2 JournalSink (uid "sink"), whose
// chk-8 committer holds the committables prepared at checkpoint 8, one per
// subtask, not committed when the checkpoint was taken.
const (
	k1Dir  = "../testdata/conformance/K1"
	k1Root = "file:///work/wt-conf/conformance/harness/target/work/K1/ck"
	k1Chk  = "6829f7f7f0d64f47f1eb61376ce586d8/chk-8/"
)

// k1Job is the new job of the scenario family: the source's uid renamed
// (src → src2), so chk-8 cannot be restored into it and is salvaged.
func k1Job() *jobgraph.Job {
	j := jobgraph.JobFromUIDs("src2", "parse-long", "parse", "count", "block")
	j.AddSinkUID("sink")
	j.AllUIDs = true
	return j
}

// resolveK1 salvages K1's chk-8 checked against a kfake log holding topic
// in-K1 (3 partitions, 700 records each) and the old job's group commit
// for partition 2, so that every partition's start is exact.
func resolveK1(t *testing.T, committed bool) resume.Candidate {
	t.Helper()
	ctx := context.Background()
	b, err := fileblob.OpenBucket(filepath.Join(k1Dir, "ck"), &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cl := kafkaCluster(t, 3, 700, "in-K1")
	commit(t, cl, "g", "in-K1", map[int32]int64{2: 650})
	r, err := salvage.NewResolver(b, "", &salvage.Options{Snapshot: k1Chk, Flink: &flinkckpt.Options{FlinkRoot: k1Root},
		Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: cl}}, KafkaGroup: "g", Job: k1Job(), SinkCommitted: committed})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSinkTransactionsPending: a stateless start at a real checkpoint's
// offsets never commits the transactions its Sink V2 committer had
// prepared (Flink commits them only when it restores the checkpoint): the
// salvage candidate is data-loss, saying which committer, how many
// committables of which checkpoint, and how to check and override; the
// position, its facts (the report's loss line) and its one-line summary
// carry it.
func TestSinkTransactionsPending(t *testing.T) {
	c := resolveK1(t, false)
	if c.Guarantee != resume.DataLoss {
		t.Errorf("guarantee %s, want data-loss (reasons %q)", c.Guarantee, c.Reasons)
	}
	w := warning(c, salvage.WarnSinkTransactionsPending)
	for _, want := range []string{`"Sink Committer: sink" (operator 5abb6f104479fbc38acf37f2d04fd907)`, "2 committable(s) prepared at checkpoint 8",
		"a stateless start never commits them", "lost unless the old job committed them", "--flink-sink-committed", "salvage.Options.SinkCommitted"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %s lacks %q: %q", salvage.WarnSinkTransactionsPending, want, w)
		}
	}
	if c.HasWarning(salvage.WarnSinkCommittedAsserted) {
		t.Errorf("asserted without SinkCommitted: %v", c.Warnings)
	}
	pos, err := salvage.PositionOf(c.Position)
	if err != nil {
		t.Fatal(err)
	}
	want := []salvage.SinkPending{{OperatorID: "5abb6f104479fbc38acf37f2d04fd907", UID: "Sink Committer: sink",
		Pending: []sinkstate.Pending{{CheckpointID: 8, Committables: 2, Other: 2}}, Lost: 2}}
	got, _ := json.Marshal(pos.Sinks)
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Errorf("sinks %s, want %s", got, wantJSON)
	}
	if string(got) != `[{"operator_id":"5abb6f104479fbc38acf37f2d04fd907","uid":"Sink Committer: sink","pending":[{"checkpoint_id":8,"committables":2,"other":2}],"lost":2}]` {
		t.Errorf("sinks JSON %s", got)
	}
	facts := pos.Facts()
	if len(facts) != 1 || facts[0].Label != resume.FactLoss || !strings.Contains(facts[0].Text, "2 committable(s) prepared at checkpoint 8") {
		t.Errorf("facts %+v", facts)
	}
	if s := pos.String(); !strings.Contains(s, `sink "Sink Committer: sink" (operator 5abb6f104479fbc38acf37f2d04fd907): 2 prepared committable(s) never committed`) {
		t.Errorf("String %q", s)
	}
	// The starts themselves are exact: only the sink makes it a loss.
	if got := c.Position.Launch().Options["scan.startup.specific-offsets"]; got != "partition:0,offset:656;partition:1,offset:657;partition:2,offset:650" {
		t.Errorf("specific offsets %q", got)
	}
	// Read back from a decision document, the position keeps its sinks.
	doc, err := json.Marshal(c.Position)
	if err != nil {
		t.Fatal(err)
	}
	back, err := salvage.PositionOf(&resume.RawPosition{PositionKind: salvage.KindSalvage, JSON: doc})
	if err != nil || len(back.Sinks) != 1 || back.Sinks[0].Lost != 2 || back.Sinks[0].Pending[0].CheckpointID != 8 {
		t.Errorf("read back %+v, %v", back, err)
	}
}

// TestSinkCommittedAsserted: with SinkCommitted (the operator checked the
// sink) the same checkpoint's salvage stays exact-input, and says what it
// rests on.
func TestSinkCommittedAsserted(t *testing.T) {
	c := resolveK1(t, true)
	if c.Guarantee != resume.ExactInput {
		t.Errorf("guarantee %s, want exact-input (warnings %v)", c.Guarantee, c.Warnings)
	}
	if c.HasWarning(salvage.WarnSinkTransactionsPending) {
		t.Errorf("pending warning despite SinkCommitted: %v", c.Warnings)
	}
	if w := warning(c, salvage.WarnSinkCommittedAsserted); !strings.Contains(w, "2 committable(s) prepared at checkpoint 8") || !strings.Contains(w, "asserts the old job committed") {
		t.Errorf("asserted warning %q", w)
	}
	pos, _ := salvage.PositionOf(c.Position)
	if len(pos.Sinks) != 1 || !pos.Sinks[0].CommittedAsserted || pos.Sinks[0].Lost != 0 || len(pos.Facts()) != 0 {
		t.Errorf("sinks %+v facts %v", pos.Sinks, pos.Facts())
	}
	if strings.Contains(pos.String(), "sink") {
		t.Errorf("String %q", pos.String())
	}
}

// collectorElement frames a CommittableCollectorSerializer payload as the
// committer's list state element: BytePrimitiveArraySerializer's length,
// then SimpleVersionedSerialization's version and length.
func collectorElement(version int32, payload []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(payload)+8))
	b = binary.BigEndian.AppendUint32(b, uint32(version))
	b = binary.BigEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

// committerSavepoint writes a savepoint with a KafkaSource at offset 10 of
// two partitions and a committer operator (uid "Sink Committer: sink")
// whose two subtasks hold the given list state elements.
func committerSavepoint(t *testing.T, elems ...[]byte) (*flinkckpttest.Written, *blob.Bucket) {
	t.Helper()
	b := memblob.OpenBucket(nil)
	t.Cleanup(func() { b.Close() })
	l := &flinkckpttest.Layout{Bucket: b, Root: "s3a://b/"}
	var list []flinkckpttest.ListElement
	for i, e := range elems {
		list = append(list, flinkckpttest.ListElement{Subtask: int32(i), Data: e})
	}
	w, err := l.Savepoint(context.Background(), "savepoint-aaaaaa-000000000001", 5, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{
		flinkckpttest.KafkaSource("src", "topic", 10, 10),
		{UID: "Sink Committer: sink", Parallelism: 2, ListStates: []flinkckpttest.ListState{{Name: sinkstate.CommitterStateName, Elements: list}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return w, b
}

// emptyCollector is a committer subtask's element with nothing to commit:
// version 2, no checkpoint.
var emptyCollector = collectorElement(2, []byte{0xb9, 0x1f, 0x25, 0x2c, 0, 0, 0, 1, 0, 0, 0, 0})

// TestSinkEmptyCollector: a committer whose collectors hold nothing (every
// transaction committed before the snapshot) changes nothing: the same
// candidate as without a committer.
func TestSinkEmptyCollector(t *testing.T) {
	ctx := context.Background()
	resolve := func(elems ...[]byte) resume.Candidate {
		t.Helper()
		w, b := committerSavepoint(t, elems...)
		r, err := salvage.NewResolver(b, "", &salvage.Options{Snapshot: w.Dir})
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	none := resolve()
	empty := resolve(emptyCollector, emptyCollector)
	if empty.Guarantee != resume.ExactInput || empty.Guarantee != none.Guarantee {
		t.Errorf("guarantee %s, without a committer %s", empty.Guarantee, none.Guarantee)
	}
	if warningsText(empty.Warnings) != warningsText(none.Warnings) || strings.Join(empty.Reasons, "\n") != strings.Join(none.Reasons, "\n") {
		t.Errorf("warnings or reasons changed:\n%s\n%q\nwithout a committer:\n%s\n%q", warningsText(empty.Warnings), empty.Reasons, warningsText(none.Warnings), none.Reasons)
	}
	a, _ := json.Marshal(empty.Position)
	bb, _ := json.Marshal(none.Position)
	if string(a) != string(bb) || strings.Contains(string(a), "sinks") {
		t.Errorf("position %s, without a committer %s", a, bb)
	}
	// One subtask with a pending committable (a real K1 element) is enough.
	c := resolve(emptyCollector, k1Element(t))
	if c.Guarantee != resume.DataLoss || !strings.Contains(warning(c, salvage.WarnSinkTransactionsPending), "1 committable(s) prepared at checkpoint 8") {
		t.Errorf("guarantee %s warnings %v", c.Guarantee, c.Warnings)
	}
}

// TestSinkStateUndecodable: committer state that cannot be decoded (a
// connector's own format under the same state name, or a malformed
// collector) may hold prepared transactions: counted as loss, named, and
// SinkCommitted overrides it like any pending transaction.
func TestSinkStateUndecodable(t *testing.T) {
	ctx := context.Background()
	for name, elem := range map[string][]byte{
		"unknown format": collectorElement(4, []byte("paimon manifest committable")),
		"malformed":      collectorElement(2, []byte{0xb9, 0x1f, 0x25, 0x2c, 0, 0, 0, 1, 0, 0, 0, 9}),
	} {
		t.Run(name, func(t *testing.T) {
			w, b := committerSavepoint(t, elem)
			for _, committed := range []bool{false, true} {
				r, err := salvage.NewResolver(b, "", &salvage.Options{Snapshot: w.Dir, SinkCommitted: committed})
				if err != nil {
					t.Fatal(err)
				}
				c, err := r.Resolve(ctx)
				if err != nil {
					t.Fatal(err)
				}
				pos, _ := salvage.PositionOf(c.Position)
				switch {
				case committed && (c.Guarantee != resume.ExactInput || !c.HasWarning(salvage.WarnSinkCommittedAsserted)):
					t.Errorf("asserted: guarantee %s warnings %v", c.Guarantee, c.Warnings)
				case !committed && (c.Guarantee != resume.DataLoss || !strings.Contains(warning(c, salvage.WarnSinkTransactionsPending), "could not be decoded")):
					t.Errorf("guarantee %s warnings %v", c.Guarantee, c.Warnings)
				case len(pos.Sinks) != 1 || pos.Sinks[0].Unknown == "" || !strings.Contains(pos.Sinks[0].UID, "Sink Committer: sink") && pos.Sinks[0].OperatorID == "":
					t.Errorf("sinks %+v", pos.Sinks)
				}
			}
		})
	}
}

// k1Element is the real list state element of K1 chk-8's committer
// subtask 0 (collector v2, checkpoint 8, one pending committable), read
// from its state file.
func k1Element(t *testing.T) []byte {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(k1Dir, "ck", k1Chk, "_metadata"))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := metadata.Parse(md, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range cp.Operators {
		for _, sub := range op.SubtaskStates {
			h := sub.ManagedOperator
			if h == nil || sub.Index != 0 || h.Stream == nil {
				continue
			}
			for _, st := range h.States {
				if st.Name != sinkstate.CommitterStateName {
					continue
				}
				file := filepath.Join(k1Dir, "ck", strings.TrimPrefix(h.Stream.Path, k1Root+"/"))
				if h.Stream.Type == metadata.TypeRelativeFile {
					file = filepath.Join(k1Dir, "ck", k1Chk, h.Stream.Path)
				}
				stream, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				elems, err := opstate.ReadListElements(stream, st.Name, st.Offsets, 0, 0)
				if err != nil || len(elems) != 1 {
					t.Fatalf("elements %d: %v", len(elems), err)
				}
				return collectorElement(elems[0].Version, elems[0].Data)
			}
		}
	}
	t.Fatal("K1 chk-8: no committer state of subtask 0")
	return nil
}

// TestSinkStateFileFaults: a checkpoint whose committer state is in files
// (absolute paths under the Flink root). A file the store fails to return
// fails Resolve (ErrStateUnreadable: the transactions may well be there,
// and weaker candidates stay blocked); a file that is gone may have held
// prepared transactions: counted as loss, named.
func TestSinkStateFileFaults(t *testing.T) {
	ctx := context.Background()
	mem := memblob.OpenBucket(nil)
	defer mem.Close()
	l := &flinkckpttest.Layout{Bucket: mem, Prefix: "ck/", Root: "s3a://bucket/"}
	committer := flinkckpttest.Source{UID: "Sink Committer: sink", ListStates: []flinkckpttest.ListState{{Name: sinkstate.CommitterStateName,
		Elements: []flinkckpttest.ListElement{{Data: k1Element(t)}}}}, InFile: true}
	w, err := l.Checkpoint(ctx, "6f1e00000000000000000000000000aa", 8, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{
		flinkckpttest.KafkaSource("orders", "orders", 10, 11), committer}})
	if err != nil {
		t.Fatal(err)
	}
	var stateFile string
	for _, f := range w.Files {
		if strings.Contains(f, jobgraph.OperatorID("Sink Committer: sink")[:8]+"-") {
			stateFile = f
		}
	}
	if stateFile == "" {
		t.Fatalf("no committer state file written: %q", w.Files)
	}
	resolve := func(fault func(blobtest.Call) error) (resume.Candidate, error) {
		t.Helper()
		b, _ := blobtest.Wrap(mem, &blobtest.Options{Fault: fault})
		defer b.Close()
		r, err := salvage.NewResolver(b, w.Dir, &salvage.Options{Snapshot: w.Dir, Flink: &flinkckpt.Options{FlinkRoot: l.FlinkRoot()}})
		if err != nil {
			t.Fatal(err)
		}
		return r.Resolve(ctx)
	}
	c, err := resolve(nil)
	if err != nil || c.Guarantee != resume.DataLoss || !strings.Contains(warning(c, salvage.WarnSinkTransactionsPending), "1 committable(s) prepared at checkpoint 8") {
		t.Fatalf("healthy: %s %v, %v", c.Guarantee, c.Warnings, err)
	}
	file := regexp.MustCompile(regexp.QuoteMeta(stateFile) + "$")
	if _, err := resolve(blobtest.FailKeys(file)); err == nil || !errors.Is(err, flinkckpt.ErrStateUnreadable) {
		t.Errorf("committer state unreadable: %v, want a failure", err)
	}
	c, err = resolve(blobtest.NotFoundKeys(file))
	if err != nil || c.Guarantee != resume.DataLoss || !strings.Contains(warning(c, salvage.WarnSinkTransactionsPending), "could not be decoded") {
		t.Errorf("committer state gone: %s %v, %v", c.Guarantee, c.Warnings, err)
	}
}

// NewResolvers passes Checks.SinkCommitted to its salvage resolver.
func TestNewResolversSinkCommitted(t *testing.T) {
	ctx := context.Background()
	_, b := committerSavepoint(t, k1Element(t))
	job := jobgraph.JobFromUIDs("src-v2")
	job.AddSinkUID("sink")
	job.AllUIDs = true
	for _, committed := range []bool{false, true} {
		rs, err := salvage.NewResolvers(b, "", &flinkckpt.Options{Job: job}, &salvage.Checks{SinkCommitted: committed})
		if err != nil {
			t.Fatal(err)
		}
		c, err := rs[1].Resolve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]resume.Guarantee{false: resume.DataLoss, true: resume.ExactInput}[committed]
		if c.Guarantee != want || c.HasWarning(salvage.WarnSinkCommittedAsserted) != committed {
			t.Errorf("SinkCommitted %v: guarantee %s, warnings %v", committed, c.Guarantee, c.Warnings)
		}
	}
}
