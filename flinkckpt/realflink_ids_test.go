package flinkckpt_test

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// generatedIDFacts is conformance scenario C2's ids.json.gz: seeded random
// DataStream topologies as Flink 1.20 built them into JobGraphs (the
// harness's GeneratedIds).
type generatedIDFacts struct {
	Scenario   string `json:"scenario"`
	Flink      string `json:"flink"`
	Seed       int64  `json:"seed"`
	Topologies []struct {
		T           int  `json:"t"`
		Parallelism int  `json:"parallelism"`
		Chaining    bool `json:"chaining"`
		// Refused is Flink's error when it would not build the topology (a
		// sink whose own topology sets uids must have a uid).
		Refused string `json:"refused"`
		// AutoUidsOff is "accepted" when Flink builds the topology with
		// pipeline.auto-generate-uids: false (every operator has a uid or
		// a uid hash), else Flink's error.
		AutoUidsOff string `json:"autoUidsOff"`
		// Ops are what the topology's code says: the user's operators.
		Ops []struct {
			Name           string `json:"name"`
			Kind           string `json:"kind"`
			UID            string `json:"uid"`
			UIDHash        string `json:"uidHash"`
			UIDHashRefused string `json:"uidHashRefused"`
		} `json:"ops"`
		// Nodes are the JobGraph's operators: each OperatorIDPair and the
		// StreamNode it came from, attributed to a user operator (Op).
		Nodes []struct {
			Op          string `json:"op"`
			Name        string `json:"name"`
			Expansion   bool   `json:"expansion"`
			UID         string `json:"uid"`
			UserHash    string `json:"userHash"`
			Generated   string `json:"generated"`
			UserDefined string `json:"userDefined"`
			Vertex      int    `json:"vertex"`
		} `json:"nodes"`
	} `json:"topologies"`
}

// generatedIDsDir is the C2 export: in $RESUMEKIT_CONFORMANCE_DIR when that
// export has it (a smoke export does), else the frozen one under testdata.
func generatedIDsDir(t *testing.T) string {
	d := filepath.Join(realFlinkDir(t), "C2")
	if _, err := os.Stat(filepath.Join(d, "ids.json.gz")); err != nil && os.Getenv("RESUMEKIT_CONFORMANCE_DIR") != "" {
		t.Logf("%s has no C2 export (%v): reading the frozen one", realFlinkDir(t), err)
		return filepath.Join("testdata", "conformance", "C2")
	}
	return d
}

func readGeneratedIDFacts(t *testing.T) *generatedIDFacts {
	path := filepath.Join(generatedIDsDir(t), "ids.json.gz")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("C2 facts: %v", err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var facts generatedIDFacts
	if err := json.NewDecoder(z).Decode(&facts); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &facts
}

// TestRealFlinkGeneratedIDs checks resumekit's operator ids against the
// JobGraphs Flink 1.20 built for conformance scenario C2's generated
// topologies (hundreds, with uids over ASCII and multi-byte UTF-8, uid
// hashes, chaining on and off, SinkV2 sinks with committers, global
// committers or a pre-write topology of the connector's own, legacy
// sinks): the id of every uid (murmur3, OperatorID) is the JobGraph's
// generated id, including the SinkV2 expansion's "Sink Committer: <uid>",
// "Sink <uid> Global Committer" and a connector operator's "<uid>: <its
// uid>" (which AddSinkUID leaves to the caller); the Job a description of the
// topology builds (AddUID, AddUIDWithHash, AddUIDHash, AddSinkUID) has
// every such id, each uid hash as the user-defined id, and no operator
// the JobGraph lacks except ones marked Maybe; the operators without a uid
// — whose generated ids are topology hashes — are never claimed, and a
// checkpoint of the topology's own job (state under every generated id)
// finds them unknown, never dropped, even where Flink accepts the job
// with pipeline.auto-generate-uids: false (Job.AllUIDs).
func TestRealFlinkGeneratedIDs(t *testing.T) {
	facts := readGeneratedIDFacts(t)
	var n struct {
		topologies, nodes, fromUID, multibyte, expansions, uidHashes, hashOnly, unpredictable, maybeAbsent, allUIDs, allUIDsHashOnly, refused, unnamed, refusedByFlink, connectorOwn int
	}
	for _, top := range facts.Topologies {
		name := fmt.Sprintf("topology %d", top.T)
		if top.Refused != "" {
			n.refusedByFlink++
			continue
		}
		n.topologies++
		// The job as its description names it, one call per user operator.
		job := &jobgraph.Job{}
		for _, op := range top.Ops {
			var err error
			switch {
			case op.UID != "" && op.UIDHash != "":
				err = job.AddUIDWithHash(op.UID, op.UIDHash)
			case op.UID != "" && strings.HasPrefix(op.Kind, "sink") && op.Kind != "sink-legacy":
				job.AddSinkUID(op.UID)
			case op.UID != "":
				job.AddUID(op.UID)
			case op.UIDHash != "":
				err = job.AddUIDHash(op.UIDHash)
			}
			if err != nil {
				t.Fatalf("%s: %s: %v", name, op.Name, err)
			}
			if op.UIDHashRefused != "" {
				n.refused++
			}
		}
		sinkUID := top.Ops[len(top.Ops)-1].UID
		inGraph := map[string]bool{}
		hashOnly := false
		for _, nd := range top.Nodes {
			inGraph[nd.Generated] = true
			if nd.UserDefined != "" {
				inGraph[nd.UserDefined] = true
			}
		}
		for _, nd := range top.Nodes {
			n.nodes++
			what := fmt.Sprintf("%s: operator %q (of %s)", name, nd.Name, nd.Op)
			if nd.Expansion {
				n.expansions++
			}
			if nd.UserHash != nd.UserDefined {
				t.Errorf("%s: uid hash %q but user-defined id %q", what, nd.UserHash, nd.UserDefined)
			}
			switch {
			case nd.UID != "":
				n.fromUID++
				if len(nd.UID) != len([]rune(nd.UID)) {
					n.multibyte++
				}
				if got := jobgraph.OperatorID(nd.UID); got != nd.Generated {
					t.Errorf("%s: uid %q: resumekit's operator id %s, the JobGraph's %s", what, nd.UID, got, nd.Generated)
				}
				jo, ok := job.Operator(nd.Generated)
				if !ok && nd.Expansion && sinkUID != "" && strings.HasPrefix(nd.UID, sinkUID+": ") {
					// an operator of the connector's own topology with a uid of
					// its own: "<sink uid>: <its uid>", which AddSinkUID does not
					// guess (the uid is the connector's)
					n.connectorOwn++
					break
				}
				if !ok {
					t.Errorf("%s: uid %q: the job described by its uids has no operator %s", what, nd.UID, nd.Generated)
					break
				}
				if jo.UID != nd.UID {
					t.Errorf("%s: operator %s has uid %q in the Job, %q in the JobGraph", what, nd.Generated, jo.UID, nd.UID)
				}
				if jo.UIDHash != nd.UserDefined {
					t.Errorf("%s: uid hash %q in the Job, user-defined id %q in the JobGraph", what, jo.UIDHash, nd.UserDefined)
				}
				if nd.UserDefined != "" {
					n.uidHashes++
				}
			case nd.UserDefined != "":
				n.hashOnly++
				hashOnly = true
				if _, ok := job.Operator(nd.UserDefined); !ok {
					t.Errorf("%s: uid hash %s: not in the Job", what, nd.UserDefined)
				}
				if _, ok := job.Operator(nd.Generated); ok {
					t.Errorf("%s: its generated id %s is a topology hash, yet the Job claims it", what, nd.Generated)
				}
			default:
				n.unpredictable++
				if jo, ok := job.Operator(nd.Generated); ok {
					t.Errorf("%s: no uid, its generated id %s is a topology hash, yet the Job has it as %+v", what, nd.Generated, jo)
				}
			}
		}
		// The Job names no operator the JobGraph lacks, unless it says maybe.
		for _, jo := range job.Operators {
			if inGraph[jo.ID] {
				continue
			}
			if !jo.Maybe {
				t.Errorf("%s: the Job has operator %s (uid %q), the JobGraph does not", name, jo.ID, jo.UID)
			}
			n.maybeAbsent++
		}
		// A checkpoint of the topology's own job holds state under every
		// generated id (StreamConfig's operator id): Flink restores it all.
		own := &metadata.Checkpoint{CheckpointID: 1}
		for _, nd := range top.Nodes {
			own.Operators = append(own.Operators, stateful(nd.Generated))
		}
		checkOwn := func(job *jobgraph.Job, label string) {
			c := jobgraph.CheckCompat(own, job)
			if len(c.Dropped) > 0 {
				t.Errorf("%s (%s): a checkpoint of the job itself, which Flink restores whole, has dropped operators %s", name, label, c.DroppedNames())
			}
			for i, nd := range top.Nodes {
				// restored where the description gives the id; otherwise a
				// topology hash (no uid, or a uid hash alone) or a connector's
				// own uid it does not name: unknown
				want := jobgraph.MatchUnknown
				if _, ok := job.Operator(nd.Generated); ok && nd.UID != "" {
					want = jobgraph.MatchRestored
				}
				if got := c.Operators[i].Match; got != want {
					t.Errorf("%s (%s): operator %q %s (uid %q): %s, want %s", name, label, nd.Name, nd.Generated, nd.UID, got, want)
				}
			}
		}
		if len(job.Operators) == 0 {
			// nothing named: the zero Job is a job with no operators, not this one
			n.unnamed++
			continue
		}
		checkOwn(job, "description")
		if top.AutoUidsOff == "accepted" {
			// Flink accepts the job with pipeline.auto-generate-uids: false,
			// so --flink-all-uids describes it truthfully.
			n.allUIDs++
			if hashOnly {
				n.allUIDsHashOnly++
			}
			// All uids: the description names every operator, the
			// connector's own ones by their uids too.
			all := &jobgraph.Job{AllUIDs: true}
			all.Operators = append(all.Operators, job.Operators...)
			for _, nd := range top.Nodes {
				if _, ok := job.Operator(nd.Generated); !ok && nd.UID != "" {
					all.AddUID(nd.UID)
				}
			}
			checkOwn(all, "all uids")
		}
		// A snapshot of an older job whose state is under each uid hash (what
		// setUidHash is for) and each uid's id elsewhere restores whole.
		old := &metadata.Checkpoint{CheckpointID: 1}
		var oldIDs []string
		for _, nd := range top.Nodes {
			_, described := job.Operator(nd.Generated)
			switch {
			case nd.UserDefined != "":
				oldIDs = append(oldIDs, nd.UserDefined)
			case nd.UID != "" && described:
				oldIDs = append(oldIDs, nd.Generated)
			}
		}
		for _, id := range oldIDs {
			old.Operators = append(old.Operators, stateful(id))
		}
		c := jobgraph.CheckCompat(old, job)
		for i, id := range oldIDs {
			if c.Operators[i].Match != jobgraph.MatchRestored {
				t.Errorf("%s: a snapshot with state under %s, which the JobGraph maps (uid or uid hash): %s", name, id, c.Operators[i].Match)
			}
		}
	}
	if n.topologies < 200 || n.fromUID == 0 || n.multibyte == 0 || n.expansions == 0 || n.uidHashes == 0 || n.hashOnly == 0 ||
		n.unpredictable == 0 || n.maybeAbsent == 0 || n.allUIDsHashOnly == 0 || n.connectorOwn == 0 {
		t.Errorf("C2 export checks too little: %+v", n)
	}
	t.Logf("C2 (Flink %s, seed %d): %+v", facts.Flink, facts.Seed, n)
}

// stateful is a snapshot operator with operator state in one subtask.
func stateful(id string) metadata.Operator {
	return metadata.Operator{ID: id, Parallelism: 1, MaxParallelism: 128, Subtasks: 1,
		SubtaskStates: []metadata.SubtaskState{{ManagedOperator: &metadata.OperatorHandle{}}}}
}
