package flinkckpt_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/resume"
)

// realFlinkFacts is conformance/run --export's facts.json: what Flink 1.20
// did with each snapshot the scenario left on disk.
type realFlinkFacts struct {
	Scenario  string `json:"scenario"`
	Flink     string `json:"flink"`
	Root      string `json:"root"`
	Snapshots []struct {
		Dir        string   `json:"dir"`
		ID         int64    `json:"id"`
		Savepoint  bool     `json:"savepoint"`
		Metadata   bool     `json:"metadata"`
		Restorable bool     `json:"restorable"`
		Error      string   `json:"error"`
		RestoredID *int64   `json:"restoredId"`
		References []string `json:"references"`
		// MetadataVersion is the version the _metadata header states,
		// read by the harness from the file's first bytes (0 in exports
		// made before it recorded it).
		MetadataVersion int `json:"metadataVersion"`
		Operators       []struct {
			ID string `json:"id"`
			// Name and UID as Flink's own reader returns them from a
			// _metadata v5+ (Flink 2.x exports only).
			Name             string `json:"name"`
			UID              string `json:"uid"`
			MaxParallelism   int    `json:"maxParallelism"`
			Parallelism      int    `json:"parallelism"`
			SubtaskState     bool   `json:"subtaskState"`
			CoordinatorState bool   `json:"coordinatorState"`
		} `json:"operators"`
	} `json:"snapshots"`
	Result struct {
		Flink struct {
			// SourceOffsetsFromOutput is where each Kafka partition continues
			// after the newest checkpoint, read from what the old job's
			// two-phase sink committed (the harness's sourceOffsetsFromOutput).
			SourceOffsetsFromOutput *struct {
				Dir     string           `json:"dir"`
				Offsets map[string]int64 `json:"offsets"`
			} `json:"source_offsets_from_output"`
		} `json:"flink"`
		Stages []struct {
			Stage          string   `json:"stage"`
			CompatArgs     []string `json:"compat_args"`
			CompatSnapshot string   `json:"compat_snapshot"`
			CompatAllow    bool     `json:"compat_allow_non_restored_state"`
			Flink          struct {
				Trial struct {
					Restorable bool   `json:"restorable"`
					Error      string `json:"error"`
				} `json:"trial"`
			} `json:"flink"`
		} `json:"stages"`
	} `json:"result"`
}

// realFlinkDir is $RESUMEKIT_CONFORMANCE_DIR (a fresh conformance/run
// --export) or the frozen export of the smoke set committed under testdata.
func realFlinkDir(t *testing.T) string {
	if d := os.Getenv("RESUMEKIT_CONFORMANCE_DIR"); d != "" {
		return d
	}
	return filepath.Join("testdata", "conformance")
}

// realFlink2xDir is $RESUMEKIT_CONFORMANCE_2X_DIR (a fresh conformance/run
// --flink 2.x --export) or the frozen export of Flink 2.x runs under testdata.
func realFlink2xDir() string {
	if d := os.Getenv("RESUMEKIT_CONFORMANCE_2X_DIR"); d != "" {
		return d
	}
	return filepath.Join("testdata", "conformance-2.x")
}

// TestRealFlink reads trees written by real Flink 1.20 (conformance/run
// --export) and checks resumekit against what Flink did with each snapshot,
// with no JVM: List's state (in progress → incomplete, restored by Flink →
// complete, a missing file Flink failed on → broken), the referenced files
// (against Flink's own Checkpoints.loadCheckpointMetadata), the operators'
// ids, parallelism, max parallelism and whether they hold state, and
// CheckCompat against Flink's restore of each compatibility variant, and
// the Kafka source positions decoded from a checkpoint against the offsets
// Flink's committed output says it was taken at.
func TestRealFlink(t *testing.T) {
	dir := realFlinkDir(t)
	seen := checkRealFlinkExport(t, dir)
	// The export must exercise every kind of check, or the test proves little.
	if seen.incomplete == 0 || seen.complete == 0 || seen.broken == 0 || seen.compat == 0 || seen.savepoints == 0 || seen.plans == 0 || seen.positions == 0 || seen.ha == 0 {
		t.Errorf("real Flink export %s checks too little: %+v", dir, seen)
	}
	t.Logf("%s: %+v", dir, seen)
}

// TestRealFlink2x runs TestRealFlink's checks on the trees real Flink 2.x
// wrote (conformance/run --flink 2.x --export, frozen under
// testdata/conformance-2.x), and checks the format of 2.x's _metadata
// against Flink's own reader: the version each header states (5 or 6,
// never read by Flink 1.20) is the one the parser reports, and every
// operator's name and uid (v5+) are the ones Flink read. The export holds
// ForSt's checkpoints too (F15).
func TestRealFlink2x(t *testing.T) {
	dir := realFlink2xDir()
	seen := checkRealFlinkExport(t, dir)
	if seen.incomplete == 0 || seen.complete == 0 || seen.broken == 0 || seen.savepoints == 0 || seen.compat == 0 || seen.ha == 0 ||
		seen.files == 0 || seen.operators == 0 || seen.v5plus == 0 || seen.uids == 0 || seen.names == 0 || seen.channel == 0 {
		t.Errorf("real Flink 2.x export %s checks too little: %+v", dir, seen)
	}
	t.Logf("%s: %+v", dir, seen)
}

// checkRealFlinkExport runs checkRealFlink on every scenario dir of an
// export.
func checkRealFlinkExport(t *testing.T, dir string) realFlinkSeen {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("real Flink export %s: %v", dir, err)
	}
	var seen realFlinkSeen
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) { checkRealFlink(t, filepath.Join(dir, e.Name()), &seen) })
	}
	return seen
}

// realFlinkSeen counts what TestRealFlink compared.
type realFlinkSeen struct {
	incomplete, complete, broken, savepoints, files, operators, compat, plans, positions, ha int
	// v5plus counts _metadata of version 5 or later (Flink 2.x), names
	// and uids the operators' names and uids compared.
	v5plus, names, uids int
	// channel counts the channel-state (unaligned) files compared.
	channel int
}

// realFlinkHA is the HA oracle's ha.json in a scenario's export: the
// checkpoint Flink's own ZooKeeper HA recovery restored after the crash (a
// second JobManager recovering the killed job), and how that recovery went.
type realFlinkHA struct {
	Restored *struct {
		ID   int64  `json:"id"`
		Path string `json:"path"`
	} `json:"ha_restored"`
	HA struct {
		JobID    string `json:"jobId"`
		RunTasks bool   `json:"runTasks"`
		Recovery struct {
			Status string `json:"status"`
			Error  string `json:"error"`
		} `json:"recovery"`
	} `json:"ha"`
}

func checkRealFlink(t *testing.T, dir string, seen *realFlinkSeen) {
	raw, err := os.ReadFile(filepath.Join(dir, "facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f realFlinkFacts
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("facts.json: %v", err)
	}
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	root := strings.TrimSuffix(f.Root, "/")
	got := map[string]flinkckpt.Snapshot{}
	for _, prefix := range []string{"ck", "sp"} {
		if _, err := os.Stat(filepath.Join(dir, prefix)); err != nil {
			continue
		}
		snaps, err := flinkckpt.List(ctx, b, prefix+"/", &flinkckpt.Options{FlinkRoot: root + "/" + prefix})
		if err != nil {
			t.Fatalf("List %s: %v", prefix, err)
		}
		for _, s := range snaps {
			got[strings.TrimSuffix(s.Key, "/")] = s
		}
	}
	for _, want := range f.Snapshots {
		s, ok := got[want.Dir]
		if !ok {
			t.Errorf("%s: Flink wrote it, List does not return it", want.Dir)
			continue
		}
		switch {
		case !want.Metadata:
			if s.State != flinkckpt.StateIncomplete {
				t.Errorf("%s: no _metadata (Flink: %s), List says %s: %s", want.Dir, want.Error, s.State, s.Reason)
			}
			seen.incomplete++
			continue
		case want.Restorable:
			if s.State != flinkckpt.StateComplete {
				t.Errorf("%s: Flink restored it (checkpoint %v), List says %s: %s", want.Dir, want.RestoredID, s.State, s.Reason)
			}
			if want.RestoredID != nil && *want.RestoredID != s.CheckpointID {
				t.Errorf("%s: Flink restored checkpoint %d, List says id %d", want.Dir, *want.RestoredID, s.CheckpointID)
			}
			seen.complete++
			if want.Savepoint {
				seen.savepoints++
			}
		case strings.Contains(want.Error, "FileNotFoundException") || strings.Contains(want.Error, "NoSuchFileException"):
			if s.State != flinkckpt.StateBroken {
				t.Errorf("%s: Flink fails on a missing file (%.200s), List says %s: %s", want.Dir, want.Error, s.State, s.Reason)
			}
			seen.broken++
		}
		if s.Metadata == nil {
			t.Errorf("%s: List read no _metadata (%s)", want.Dir, s.Reason)
			continue
		}
		if s.CheckpointID != want.ID {
			t.Errorf("%s: checkpoint id %d, Flink %d", want.Dir, s.CheckpointID, want.ID)
		}
		if want.MetadataVersion != 0 && s.Metadata.Version != want.MetadataVersion {
			t.Errorf("%s: _metadata version %d, its header says %d", want.Dir, s.Metadata.Version, want.MetadataVersion)
		}
		if s.Metadata.Version >= 5 {
			seen.v5plus++
		}
		for _, op := range s.Metadata.Operators {
			for _, ch := range op.SubtaskStates {
				seen.channel += len(ch.InputChannels) + len(ch.ResultSubpartitions)
			}
		}
		if s.Savepoint != want.Savepoint {
			t.Errorf("%s: savepoint %v, Flink %v", want.Dir, s.Savepoint, want.Savepoint)
		}
		// Referenced files: resumekit's keys against Flink's references.
		if s.Verification != nil {
			var keys []string
			for _, fc := range s.Verification.Files {
				keys = append(keys, fc.Key)
			}
			sort.Strings(keys)
			refs := append([]string(nil), want.References...)
			sort.Strings(refs)
			seen.files += len(refs)
			if strings.Join(keys, "\n") != strings.Join(refs, "\n") {
				t.Errorf("%s: referenced files\nresumekit: %q\nFlink:     %q", want.Dir, keys, refs)
			}
		}
		// Operators: ids, parallelism, max parallelism, state (CheckCompat's HasState is Flink's hasState rule).
		job := &jobgraph.Job{}
		for _, op := range want.Operators {
			if err := job.AddOperatorID(op.ID); err != nil {
				t.Fatal(err)
			}
		}
		c := jobgraph.CheckCompat(s.Metadata, job)
		byID := map[string]jobgraph.CompatOperator{}
		for _, op := range c.Operators {
			byID[op.ID] = op
		}
		if len(c.Operators) != len(want.Operators) {
			t.Errorf("%s: %d operators, Flink %d", want.Dir, len(c.Operators), len(want.Operators))
		}
		seen.operators += len(want.Operators)
		for _, op := range want.Operators {
			g, ok := byID[op.ID]
			if !ok {
				t.Errorf("%s: operator %s missing", want.Dir, op.ID)
				continue
			}
			if g.MaxParallelism != op.MaxParallelism || g.Parallelism != op.Parallelism {
				t.Errorf("%s: operator %s parallelism %d/%d, Flink %d/%d", want.Dir, op.ID, g.Parallelism, g.MaxParallelism, op.Parallelism, op.MaxParallelism)
			}
			if g.HasState != (op.SubtaskState || op.CoordinatorState) || g.CoordinatorState != op.CoordinatorState {
				t.Errorf("%s: operator %s has state %v (coordinator %v), Flink %v (coordinator %v)", want.Dir, op.ID, g.HasState, g.CoordinatorState, op.SubtaskState || op.CoordinatorState, op.CoordinatorState)
			}
		}
		// Names and uids (v5+): the parser's against Flink's reader's.
		parsed := map[string]metadata.Operator{}
		for _, op := range s.Metadata.Operators {
			parsed[op.ID] = op
		}
		for _, op := range want.Operators {
			p := parsed[op.ID]
			if p.Name != op.Name || p.UID != op.UID {
				t.Errorf("%s: operator %s name %q uid %q, Flink read name %q uid %q", want.Dir, op.ID, p.Name, p.UID, op.Name, op.UID)
			}
			if op.Name != "" {
				seen.names++
			}
			if op.UID != "" {
				seen.uids++
			}
		}
		if !c.Compatible {
			t.Errorf("%s: not compatible with a job of its own operators: %+v", want.Dir, c)
		}
	}
	// Source positions: the KafkaSource state resumekit decodes against the
	// offsets Flink's committed output says the checkpoint was taken at.
	if so := f.Result.Flink.SourceOffsetsFromOutput; so != nil {
		_, st, err := flinkckpt.Sources(ctx, b, so.Dir+"/", &flinkckpt.Options{FlinkRoot: root + "/ck"})
		if err != nil {
			t.Fatalf("Sources %s: %v", so.Dir, err)
		}
		got := map[string]int64{}
		for _, src := range st.Sources {
			if src.Kafka == nil {
				continue
			}
			ps, _ := src.Kafka.Positions()
			for _, p := range ps {
				if p.Marker != sourcestate.MarkerNone {
					t.Errorf("%s: partition %d holds marker %s, Flink's output says offset %d", so.Dir, p.Partition, p.Marker, so.Offsets[strconv.Itoa(int(p.Partition))])
				}
				got[strconv.Itoa(int(p.Partition))] = p.Offset
			}
		}
		if len(got) != len(so.Offsets) {
			t.Errorf("%s: source positions %v, Flink's output %v", so.Dir, got, so.Offsets)
		}
		for p, want := range so.Offsets {
			if got[p] != want {
				t.Errorf("%s: partition %s continues at %d, Flink's committed output says %d", so.Dir, p, got[p], want)
			}
		}
		seen.positions += len(so.Offsets)
	}
	// Flink's own choice (the HA oracle): the checkpoint its HA recovery
	// restored is the newest one List calls complete, or, when that recovery
	// failed on a missing file, one List calls broken.
	if raw, err := os.ReadFile(filepath.Join(dir, "ha.json")); err == nil {
		var h realFlinkHA
		if err := json.Unmarshal(raw, &h); err != nil {
			t.Fatalf("ha.json: %v", err)
		}
		if h.Restored == nil {
			t.Errorf("ha.json: Flink's HA recovery of job %s restored nothing", h.HA.JobID)
		} else {
			key := "ck/" + h.HA.JobID + "/chk-" + strconv.FormatInt(h.Restored.ID, 10)
			s, ok := got[key]
			failed := strings.Contains(h.HA.Recovery.Error, "FileNotFoundException")
			switch {
			case !ok:
				t.Errorf("%s: Flink's HA recovery restored it, List does not return it", key)
			case failed && s.State != flinkckpt.StateBroken:
				t.Errorf("%s: Flink's HA recovery restored it and failed on a missing file (%.200s), List says %s: %s", key, h.HA.Recovery.Error, s.State, s.Reason)
			case !failed && h.HA.Recovery.Error != "":
				t.Errorf("%s: Flink's HA recovery failed: %.300s", key, h.HA.Recovery.Error)
			case !failed && s.State != flinkckpt.StateComplete:
				t.Errorf("%s: Flink's HA recovery restored it, List says %s: %s", key, s.State, s.Reason)
			case !failed:
				for k, o := range got {
					if o.JobID == h.HA.JobID && !o.Savepoint && o.State == flinkckpt.StateComplete && o.CheckpointID > h.Restored.ID {
						t.Errorf("%s: Flink's HA recovery restored checkpoint %d, List calls the newer %s complete", key, h.Restored.ID, k)
					}
				}
			}
			seen.ha++
		}
	}
	// Compatibility variants: CheckCompat against Flink's restore into each.
	for _, st := range f.Result.Stages {
		if len(st.CompatArgs) == 0 || st.CompatAllow {
			continue
		}
		s, ok := got[st.CompatSnapshot]
		if !ok || s.Metadata == nil {
			t.Errorf("%s: compat snapshot %s not listed", st.Stage, st.CompatSnapshot)
			continue
		}
		job := &jobgraph.Job{}
		args := st.CompatArgs
		plan, planConfig := "", map[string]string{}
		allUIDs := false
		for i := 0; i < len(args); i += 2 {
			if args[i] == "--all-uids" {
				allUIDs = true
				i-- // a flag without a value
				continue
			}
			if i+1 >= len(args) {
				t.Fatalf("%s: compat flag %s without its value", st.Stage, args[i])
			}
			v := args[i+1]
			switch args[i] {
			case "--plan":
				// the scenario's plan file, exported beside its trees (S1)
				plan = filepath.Join(dir, strings.TrimPrefix(v, strings.TrimPrefix(root, "file://")+"/"))
			case "--plan-config":
				k, val, _ := strings.Cut(v, "=")
				planConfig[k] = val
			case "--uid":
				job.AddUID(v)
			case "--sink-uid":
				job.AddSinkUID(v)
			case "--uid-hash":
				if err := job.AddUIDHash(v); err != nil {
					t.Fatal(err)
				}
			case "--parallelism":
				job.Parallelism, _ = strconv.Atoi(v)
			case "--max-parallelism":
				job.MaxParallelism, _ = strconv.Atoi(v)
			default:
				t.Fatalf("%s: compat flag %s not handled here", st.Stage, args[i])
			}
		}
		if plan != "" {
			pf, err := os.Open(plan)
			if err != nil {
				t.Fatalf("%s: %v", st.Stage, err)
			}
			job, err = jobgraph.JobFromPlan(pf, &jobgraph.PlanOptions{Config: planConfig})
			pf.Close()
			if err != nil {
				t.Fatalf("%s: plan %s: %v", st.Stage, plan, err)
			}
			seen.plans++
		}
		job.AllUIDs = job.AllUIDs || allUIDs
		c := jobgraph.CheckCompat(s.Metadata, job)
		seen.compat++
		if c.Compatible != st.Flink.Trial.Restorable {
			t.Errorf("%s: CheckCompat says compatible=%v (dropped %v, problems %v); Flink restorable=%v (%.300s)",
				st.Stage, c.Compatible, c.Dropped, c.Problems, st.Flink.Trial.Restorable, st.Flink.Trial.Error)
		}
	}
}

// TestRealFlinkResolverChoosesWhatFlinkRestores resolves the checkpoint
// roots real Flink 1.20 and 2.x left after a crash (the frozen exports) and checks
// the Resolver chooses the newest checkpoint Flink itself restored into
// the same job: F1 (the newest in progress, no _metadata), F2 (the newest
// references a deleted shared/ sst) and F6 (savepoints between
// checkpoints).
func TestRealFlinkResolverChoosesWhatFlinkRestores(t *testing.T) {
	for _, dir := range []string{realFlinkDir(t), realFlink2xDir()} {
		for _, name := range []string{"F1", "F2", "F6"} {
			t.Run(filepath.Base(dir)+"/"+name, func(t *testing.T) { checkResolverChoosesWhatFlinkRestores(t, filepath.Join(dir, name), name) })
		}
	}
}

// checkResolverChoosesWhatFlinkRestores resolves one exported scenario's
// checkpoint root and compares the choice with Flink's newest restore.
func checkResolverChoosesWhatFlinkRestores(t *testing.T, sd, name string) {
	raw, err := os.ReadFile(filepath.Join(sd, "facts.json"))
	if err != nil {
		t.Skipf("%s not in the export %s", name, filepath.Dir(sd))
	}
	var f realFlinkFacts
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	var want int64 = -1
	for _, s := range f.Snapshots {
		if strings.HasPrefix(s.Dir, "ck/") && s.Restorable && s.ID > want {
			want = s.ID
		}
	}
	if want < 0 {
		t.Fatalf("%s: Flink restored no checkpoint", name)
	}
	b, err := fileblob.OpenBucket(sd, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r, err := flinkckpt.NewResolver(b, "ck/", &flinkckpt.Options{FlinkRoot: strings.TrimSuffix(f.Root, "/") + "/ck"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(context.Background())
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	p, ok := c.Position.(flinkckpt.Position)
	if !ok {
		t.Fatalf("position %T", c.Position)
	}
	if p.CheckpointID != want {
		t.Errorf("chose checkpoint %d (%s); Flink restored %d as the newest: %v", p.CheckpointID, c.Guarantee, want, c.Reasons)
	}
	if c.Guarantee != resume.ExactlyOnce {
		t.Errorf("graded %s: %v", c.Guarantee, c.Reasons)
	}
}
