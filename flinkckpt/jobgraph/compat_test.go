package jobgraph_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/internal/fixtures"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

func id(i int) string { return strings.Repeat("0", 31) + string(rune('a'+i)) }

var opHandle = &metadata.OperatorHandle{Type: metadata.TypeOperatorStream,
	Stream: &metadata.StreamHandle{Type: metadata.TypeByteStream, Name: "s", Data: []byte{1}}}

// TestCheckCompatEmptyOperatorRule follows loadAndValidateCheckpoint: an
// operator missing from the new job may be skipped only when it has no
// coordinator state and no subtask with any state handle.
func TestCheckCompatEmptyOperatorRule(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   metadata.Operator
		want jobgraph.Match
	}{
		{"NoSubtasks", metadata.Operator{}, jobgraph.MatchStateless},
		{"SubtasksWithoutHandles", metadata.Operator{SubtaskStates: []metadata.SubtaskState{{Index: 0}, {Index: 1}}}, jobgraph.MatchStateless},
		{"FinishedOperator", metadata.Operator{Finished: true}, jobgraph.MatchStateless},
		{"FinishedSubtask", metadata.Operator{SubtaskStates: []metadata.SubtaskState{{Finished: true}}}, jobgraph.MatchStateless},
		{"CoordinatorOnly", metadata.Operator{Coordinator: &metadata.StreamHandle{Type: metadata.TypeByteStream, Data: []byte{0}}}, jobgraph.MatchDropped},
		{"ManagedOperatorState", metadata.Operator{SubtaskStates: []metadata.SubtaskState{{ManagedOperator: opHandle}}}, jobgraph.MatchDropped},
		{"EmptyOperatorStateHandle", metadata.Operator{SubtaskStates: []metadata.SubtaskState{{ManagedOperator: &metadata.OperatorHandle{Type: metadata.TypeOperatorStream}}}}, jobgraph.MatchDropped},
		{"RawOperatorState", metadata.Operator{SubtaskStates: []metadata.SubtaskState{{}, {RawOperator: opHandle}}}, jobgraph.MatchDropped},
		{"ManagedKeyedState", metadata.Operator{SubtaskStates: []metadata.SubtaskState{{ManagedKeyed: &metadata.KeyedHandle{Type: metadata.TypeKeyGroupsV2}}}}, jobgraph.MatchDropped},
		{"RawKeyedState", metadata.Operator{SubtaskStates: []metadata.SubtaskState{{RawKeyed: &metadata.KeyedHandle{Type: metadata.TypeKeyGroups}}}}, jobgraph.MatchDropped},
		{"InputChannelState", metadata.Operator{SubtaskStates: []metadata.SubtaskState{{InputChannels: []metadata.ChannelHandle{{Type: metadata.ChannelInput}}}}}, jobgraph.MatchDropped},
		{"ResultSubpartitionState", metadata.Operator{SubtaskStates: []metadata.SubtaskState{{ResultSubpartitions: []metadata.ChannelHandle{{Type: metadata.ChannelOutput}}}}}, jobgraph.MatchDropped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.op.ID = id(0)
			cp := &metadata.Checkpoint{CheckpointID: 7, Operators: []metadata.Operator{tc.op}}
			c := jobgraph.CheckCompat(cp, &jobgraph.Job{})
			if got := c.Operators[0].Match; got != tc.want {
				t.Fatalf("match %s, want %s", got, tc.want)
			}
			if dropped := tc.want == jobgraph.MatchDropped; c.Compatible == dropped || (len(c.Dropped) == 1) != dropped ||
				c.Restorable(false) == dropped || !c.Restorable(true) {
				t.Errorf("compatible %v, dropped %v, restorable %v/%v", c.Compatible, c.Dropped, c.Restorable(false), c.Restorable(true))
			}
			// The same operator in the new job is restored either way.
			j := &jobgraph.Job{}
			if err := j.AddOperatorID(id(0)); err != nil {
				t.Fatal(err)
			}
			if c := jobgraph.CheckCompat(cp, j); c.Operators[0].Match != jobgraph.MatchRestored || !c.Compatible {
				t.Errorf("in the new job: %+v", c)
			}
		})
	}
}

func readFixture(t *testing.T, dir string) *metadata.Checkpoint {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtures.Dir(t), dir, "_metadata"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cp, err := metadata.Read(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// TestCheckCompatKafkaSource: the real KafkaSource savepoints restore into
// a job whose source has the uid they were taken with, and not into one
// with another uid.
func TestCheckCompatKafkaSource(t *testing.T) {
	const sourceID = "cb16aa5adb311e8ac72482def19accbe"
	for _, dir := range []string{"v4-kafka-source-native-savepoint/savepoint-3c7c0a-07c49f841952", "v5-kafka-source-enum3-savepoint/savepoint-246fa1-85f387ecce0c"} {
		t.Run(strings.Split(dir, "/")[0], func(t *testing.T) {
			cp := readFixture(t, dir)
			c := jobgraph.CheckCompat(cp, jobgraph.JobFromUIDs("kafka-source-operator-uid"))
			if !c.Compatible || len(c.Dropped) != 0 || len(c.NewWithoutState) != 0 {
				t.Fatalf("compatible %v dropped %v new %v", c.Compatible, c.Dropped, c.NewWithoutState)
			}
			matches := map[string]jobgraph.Match{}
			for _, o := range c.Operators {
				matches[o.ID] = o.Match
				if o.ID == sourceID && o.UID != "kafka-source-operator-uid" {
					t.Errorf("source uid %q", o.UID)
				}
			}
			if matches[sourceID] != jobgraph.MatchRestored || matches["7d246211b2be972287522fe7978b38c1"] != jobgraph.MatchStateless {
				t.Errorf("matches %v", matches)
			}

			// Another uid: the v5 savepoint records the source's uid, so
			// its state is certainly dropped; in v4 the id may as well be a
			// uid-less operator's the new job has unchanged: unknown
			// (issue 22 item 3), until the job is said to name all its
			// operators.
			other := jobgraph.JobFromUIDs("kafka-source-uid")
			c = jobgraph.CheckCompat(cp, other)
			if cp.Version >= 5 {
				if c.Compatible || !cmp.Equal(c.Dropped, []string{sourceID}) || len(c.Unknown) != 0 || !cmp.Equal(c.NewWithoutState, []string{"kafka-source-uid"}) {
					t.Errorf("other uid: compatible %v dropped %v unknown %v new %v", c.Compatible, c.Dropped, c.Unknown, c.NewWithoutState)
				}
			} else {
				if c.Compatible || len(c.Dropped) != 0 || !cmp.Equal(c.Unknown, []string{sourceID}) || !c.Restorable(false) ||
					!strings.Contains(c.UnknownNames(), sourceID) || !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, "--flink-all-uids") }) {
					t.Errorf("other uid (v4): compatible %v dropped %v unknown %v notes %q", c.Compatible, c.Dropped, c.Unknown, c.Notes)
				}
				other.AllUIDs = true
				c = jobgraph.CheckCompat(cp, other)
			}
			if c.Compatible || !cmp.Equal(c.Dropped, []string{sourceID}) || len(c.Unknown) != 0 || !strings.Contains(c.DroppedNames(), sourceID) {
				t.Errorf("other uid, all uids: dropped %v unknown %v names %q", c.Dropped, c.Unknown, c.DroppedNames())
			}
		})
	}
}

// TestCheckCompatSinkUIDs: a real savepoint of a sink with writer, committer
// and global committer (Flink's UnifiedSinkMigrationITCase, uid
// 1c4ec0f9-…): the writer keeps the uid, the global committer's id is
// "Sink <uid> Global Committer"'s.
func TestCheckCompatSinkUIDs(t *testing.T) {
	cp := readFixture(t, "v3-unified-sink/savepoint-7bd90b-3a2cda6957cb")
	j := &jobgraph.Job{}
	j.AddSinkUID("1c4ec0f9-2d96-46e9-99ea-45e8c3df5202")
	c := jobgraph.CheckCompat(cp, j)
	byUID := map[string]jobgraph.CompatOperator{}
	for _, o := range c.Operators {
		byUID[o.UID] = o
	}
	writer, global := byUID["1c4ec0f9-2d96-46e9-99ea-45e8c3df5202"], byUID["Sink 1c4ec0f9-2d96-46e9-99ea-45e8c3df5202 Global Committer"]
	if writer.Match != jobgraph.MatchRestored || writer.Maybe || !writer.HasState {
		t.Errorf("writer %+v", writer)
	}
	if global.Match != jobgraph.MatchRestored || !global.Maybe || !global.HasState {
		t.Errorf("global committer %+v", global)
	}
	// The source had no uid (issue 22 item 3): a job given by its sink's
	// uid may have that uid-less source unchanged, and Flink would restore
	// it: unknown, neither restored nor dropped, named in a note.
	if !cmp.Equal(c.Unknown, []string{"cbc357ccb763df2852fee8c4fc7d55f2"}) || len(c.Dropped) != 0 || c.Compatible || !c.Restorable(false) {
		t.Errorf("unknown %v dropped %v", c.Unknown, c.Dropped)
	}
	if len(c.Notes) < 2 || !strings.Contains(c.Notes[0], "cbc357ccb763df2852fee8c4fc7d55f2") || !strings.Contains(c.Notes[1], "Global Committer") {
		t.Errorf("notes %q", c.Notes)
	}
	// The caller adds its id (as Flink's logs show it): restored.
	if err := j.AddOperatorID("cbc357ccb763df2852fee8c4fc7d55f2"); err != nil {
		t.Fatal(err)
	}
	if c := jobgraph.CheckCompat(cp, j); len(c.Unknown) != 0 || len(c.Dropped) != 0 || !c.Compatible {
		t.Errorf("with the source's id: unknown %v dropped %v compatible %v", c.Unknown, c.Dropped, c.Compatible)
	}
}

func TestCheckCompatParallelism(t *testing.T) {
	keyed := metadata.Operator{ID: id(0), Parallelism: 2, MaxParallelism: 128,
		SubtaskStates: []metadata.SubtaskState{{ManagedKeyed: &metadata.KeyedHandle{Type: metadata.TypeKeyGroupsV2}}}}
	stateless := metadata.Operator{ID: id(1), Parallelism: 2, MaxParallelism: 128, SubtaskStates: []metadata.SubtaskState{{}}}
	cp := &metadata.Checkpoint{Operators: []metadata.Operator{keyed, stateless}}
	codes := func(c *jobgraph.Compat) []string {
		var out []string
		for _, p := range c.Problems {
			out = append(out, p.Operator[31:]+" "+string(p.Code))
		}
		return out
	}
	job := func(par, maxPar int, ops ...jobgraph.JobOperator) *jobgraph.Job {
		j := &jobgraph.Job{Parallelism: par, MaxParallelism: maxPar}
		for _, o := range ops {
			if err := j.Add(o); err != nil {
				t.Fatal(err)
			}
		}
		return j
	}
	for _, tc := range []struct {
		name       string
		job        *jobgraph.Job
		want       []string
		compatible bool
	}{
		{"Unknown", job(0, 0, jobgraph.JobOperator{ID: id(0)}, jobgraph.JobOperator{ID: id(1)}), nil, true},
		{"Same", job(4, 128, jobgraph.JobOperator{ID: id(0)}, jobgraph.JobOperator{ID: id(1)}), nil, true},
		{"MaxParallelismChanged", job(4, 256, jobgraph.JobOperator{ID: id(0)}, jobgraph.JobOperator{ID: id(1)}),
			[]string{"a max-parallelism-changed", "b max-parallelism-changed"}, false},
		{"PerOperator", job(0, 0, jobgraph.JobOperator{ID: id(0), MaxParallelism: 64}, jobgraph.JobOperator{ID: id(1)}),
			[]string{"a max-parallelism-changed"}, false},
		{"ParallelismAboveOldMax", job(200, 0, jobgraph.JobOperator{ID: id(0)}, jobgraph.JobOperator{ID: id(1)}),
			// b has a subtask entry without a state handle: Flink checks it
			// too (issue 22 item 2).
			[]string{"a parallelism-above-max-parallelism", "b parallelism-above-max-parallelism"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := jobgraph.CheckCompat(cp, tc.job)
			if diff := cmp.Diff(tc.want, codes(c)); diff != "" || c.Compatible != tc.compatible || c.Restorable(true) != tc.compatible {
				t.Errorf("problems (-want +got):\n%s compatible %v", diff, c.Compatible)
			}
			notChecked := slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, "were not checked") })
			if notChecked != (tc.name == "Unknown") {
				t.Errorf("notes %q", c.Notes)
			}
		})
	}
}

func TestCheckCompatJSON(t *testing.T) {
	cp := &metadata.Checkpoint{CheckpointID: 9, Operators: []metadata.Operator{
		{ID: jobgraph.OperatorID("a"), SubtaskStates: []metadata.SubtaskState{{ManagedOperator: opHandle}}},
		{ID: id(1), Name: "Map", UID: "", SubtaskStates: []metadata.SubtaskState{{}}},
		{ID: id(2), SubtaskStates: []metadata.SubtaskState{{ManagedOperator: opHandle}}},
	}}
	j := jobgraph.JobFromUIDs("a", "b")
	j.AllUIDs = true
	c := jobgraph.CheckCompat(cp, j)
	c.Snapshot = "s3a://b/sp/savepoint-1"
	c.Notes = nil
	got, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	facts := `"keyed_state":false,"coordinator_state":false,"parallelism":0,"max_parallelism":0,"finished":false,"channel_state":false,"subtask_entries":1}`
	want := `{"snapshot":"s3a://b/sp/savepoint-1","checkpoint_id":9,"compatible":false,"operators":[` +
		`{"id":"` + jobgraph.OperatorID("a") + `","uid":"a","has_state":true,"match":"restored","maybe":false,` + facts + `,` +
		`{"id":"` + id(1) + `","name":"Map","has_state":false,"match":"stateless","maybe":false,` + facts + `,` +
		`{"id":"` + id(2) + `","has_state":true,"match":"dropped","maybe":false,` + facts + `],` +
		`"dropped":["` + id(2) + `"],"new_without_state":["b"],"unknown":[],"problems":[],"notes":[]}`
	if string(got) != want {
		t.Errorf("JSON\n got %s\nwant %s", got, want)
	}
	// Without AllUIDs the operator may be a uid-less one of the new job.
	j.AllUIDs = false
	c = jobgraph.CheckCompat(cp, j)
	c.Notes = nil
	got, _ = json.Marshal(c)
	if !strings.Contains(string(got), `{"id":"`+id(2)+`","has_state":true,"match":"unknown","maybe":false,`+facts+`],"dropped":[],"new_without_state":["b"],"unknown":["`+id(2)+`"]`) {
		t.Errorf("unknown JSON %s", got)
	}
	empty, _ := json.Marshal(jobgraph.CheckCompat(&metadata.Checkpoint{}, nil))
	if !strings.Contains(string(empty), `"operators":[],"dropped":[],"new_without_state":[],"unknown":[],"problems":[]`) {
		t.Errorf("empty lists must be [] not null: %s", empty)
	}
	byHand, _ := json.Marshal(jobgraph.Compat{Snapshot: "x"})
	if want := `{"snapshot":"x","checkpoint_id":0,"compatible":false,"operators":[],"dropped":[],"new_without_state":[],"unknown":[],"problems":[],"notes":[]}`; string(byHand) != want {
		t.Errorf("by hand: %s\nwant %s", byHand, want)
	}
	// Every field a maybe-restore and a problem carry is in it (issue 22
	// item 6).
	mj := &jobgraph.Job{Parallelism: 300}
	mj.AddSinkUID("a")
	mc, _ := json.Marshal(jobgraph.CheckCompat(&metadata.Checkpoint{Operators: []metadata.Operator{
		{ID: jobgraph.OperatorID("Sink Committer: a"), MaxParallelism: 128, SubtaskStates: []metadata.SubtaskState{{ManagedOperator: opHandle}}}}}, mj))
	for _, want := range []string{`"match":"restored","maybe":true`, `"code":"parallelism-above-max-parallelism","fatal":true`, `"notes":["restored only if the new job creates`} {
		if !strings.Contains(string(mc), want) {
			t.Errorf("maybe JSON lacks %s: %s", want, mc)
		}
	}
}

// TestSetUIDHashPrecedence (issue 22 item 8): Flink maps an operator with
// a uid and a uid hash to the snapshot's state under the hash when there
// is any, and otherwise to the state under its uid's id
// (StateAssignmentOperation). A _metadata v5 operator recorded with a uid
// but another id had a uid hash: a job named by that uid restores it only
// if it keeps the hash, which resumekit cannot see — unknown, with a note.
func TestSetUIDHashPrecedence(t *testing.T) {
	hash := jobgraph.OperatorID("the old generated id")
	byUID := jobgraph.OperatorID("count")
	state := []metadata.SubtaskState{{ManagedOperator: opHandle}}
	both := &metadata.Checkpoint{Operators: []metadata.Operator{{ID: hash, SubtaskStates: state}, {ID: byUID, SubtaskStates: state}}}
	j := &jobgraph.Job{AllUIDs: true}
	if err := j.AddUIDWithHash("count", strings.ToUpper(hash)); err != nil {
		t.Fatal(err)
	}
	c := jobgraph.CheckCompat(both, j)
	if c.Operators[0].Match != jobgraph.MatchRestored || c.Operators[1].Match != jobgraph.MatchDropped || len(c.NewWithoutState) != 0 {
		t.Errorf("hash and uid state: %+v new %v", c.Operators, c.NewWithoutState)
	}
	onlyUID := &metadata.Checkpoint{Operators: []metadata.Operator{{ID: byUID, SubtaskStates: state}}}
	if c := jobgraph.CheckCompat(onlyUID, j); c.Operators[0].Match != jobgraph.MatchRestored || !c.Compatible {
		t.Errorf("uid state only: %+v", c.Operators)
	}
	if err := j.AddUIDWithHash("x", "12"); err == nil {
		t.Error("a bad hash was accepted")
	}

	v5 := &metadata.Checkpoint{Version: 5, Operators: []metadata.Operator{{ID: hash, UID: "count", Name: "count", SubtaskStates: state}}}
	for _, all := range []bool{false, true} {
		j := jobgraph.JobFromUIDs("count")
		j.AllUIDs = all
		c := jobgraph.CheckCompat(v5, j)
		if !cmp.Equal(c.Unknown, []string{hash}) || len(c.Dropped) != 0 ||
			!slices.ContainsFunc(c.Notes, func(n string) bool {
				return strings.Contains(n, "setUidHash") && strings.Contains(n, hash+" (uid count)")
			}) {
			t.Errorf("v5 hashed, all uids %v: unknown %v dropped %v notes %q", all, c.Unknown, c.Dropped, c.Notes)
		}
	}
	jh := &jobgraph.Job{}
	if err := jh.AddUIDWithHash("count", hash); err != nil {
		t.Fatal(err)
	}
	if c := jobgraph.CheckCompat(v5, jh); !c.Compatible {
		t.Errorf("v5 hashed, hash kept: %+v", c)
	}
	// Another uid entirely: dropped (the uid is recorded).
	if c := jobgraph.CheckCompat(v5, jobgraph.JobFromUIDs("other")); !cmp.Equal(c.Dropped, []string{hash}) {
		t.Errorf("v5 hashed, other uid: dropped %v unknown %v", c.Dropped, c.Unknown)
	}
}

// TestUIDHashAloneRunsUnderGeneratedID: an operator with setUidHash and no
// uid runs under a topology hash (its StreamConfig's operator id, the
// JobGraph's generated id; conformance C2 shows it in Flink 1.20), so the
// job's own checkpoints hold its state there, and Flink restores from it
// when the snapshot has nothing under the hash. With --flink-all-uids
// (which Flink's pipeline.auto-generate-uids: false accepts for such a job)
// that state was called dropped, rejecting a checkpoint Flink restores.
func TestUIDHashAloneRunsUnderGeneratedID(t *testing.T) {
	hash := jobgraph.OperatorID("the hash the old job's state is under")
	generated := jobgraph.OperatorID("a topology hash no description gives")
	state := []metadata.SubtaskState{{ManagedOperator: opHandle}}
	j := jobgraph.JobFromUIDs("src")
	if err := j.AddUIDHash(hash); err != nil {
		t.Fatal(err)
	}
	j.AllUIDs = true
	own := &metadata.Checkpoint{Operators: []metadata.Operator{
		{ID: jobgraph.OperatorID("src"), SubtaskStates: state}, {ID: generated, SubtaskStates: state}}}
	c := jobgraph.CheckCompat(own, j)
	if len(c.Dropped) != 0 || !cmp.Equal(c.Unknown, []string{generated}) || !c.Restorable(false) || c.Compatible {
		t.Errorf("own checkpoint: dropped %v unknown %v compatible %v", c.Dropped, c.Unknown, c.Compatible)
	}
	if len(c.NewWithoutState) != 0 {
		t.Errorf("the hashed operator may take the unknown state, yet starts empty: %v", c.NewWithoutState)
	}
	if !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, "uid hash and no uid ("+hash+")") }) {
		t.Errorf("notes %q", c.Notes)
	}
	// State under the hash: the operator takes it, and other state is
	// dropped as the description names every operator.
	old := &metadata.Checkpoint{Operators: []metadata.Operator{
		{ID: hash, SubtaskStates: state}, {ID: generated, SubtaskStates: state}}}
	c = jobgraph.CheckCompat(old, j)
	if c.Operators[0].Match != jobgraph.MatchRestored || !cmp.Equal(c.Dropped, []string{generated}) {
		t.Errorf("state under the hash: %+v", c.Operators)
	}
	// An operator id given directly is the id it runs under.
	k := jobgraph.JobFromUIDs("src")
	if err := k.AddOperatorID(generated); err != nil {
		t.Fatal(err)
	}
	k.AllUIDs = true
	if c := jobgraph.CheckCompat(own, k); !c.Compatible {
		t.Errorf("operator id: %+v", c)
	}
	if o, _ := k.Operator(generated); o.UIDHash != "" {
		t.Errorf("an operator id is no uid hash: %+v", o)
	}
}
