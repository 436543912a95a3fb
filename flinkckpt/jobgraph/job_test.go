package jobgraph_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
)

func TestOperatorIDFromUID(t *testing.T) {
	for uid, want := range map[string]string{
		"kafka-source-operator-uid": "cb16aa5adb311e8ac72482def19accbe",
		"1_source":                  "d3f21cabc6fe0fdf76c8be915bdb22a2",
	} {
		if got := jobgraph.OperatorID(uid); got != want {
			t.Errorf("OperatorID(%q) = %s, want %s", uid, got, want)
		}
	}
}

func TestJobAdd(t *testing.T) {
	j := jobgraph.JobFromUIDs("kafka-source-operator-uid")
	if err := j.AddUIDHash("CB16AA5ADB311E8AC72482DEF19ACCBE"); err != nil {
		t.Fatal(err)
	}
	if err := j.Add(jobgraph.JobOperator{ID: "d3f21cabc6fe0fdf76c8be915bdb22a2", Name: "source", Maybe: true}); err != nil {
		t.Fatal(err)
	}
	j.AddUID("1_source")
	want := []jobgraph.JobOperator{
		{ID: "cb16aa5adb311e8ac72482def19accbe", UID: "kafka-source-operator-uid"},
		{ID: "d3f21cabc6fe0fdf76c8be915bdb22a2", UID: "1_source", Name: "source"},
	}
	if diff := cmp.Diff(want, j.Operators); diff != "" {
		t.Errorf("operators (-want +got):\n%s", diff)
	}
	if !j.Has("cb16aa5adb311e8ac72482def19accbe") || j.Has("00000000000000000000000000000000") {
		t.Error("Has")
	}
	var none *jobgraph.Job
	if none.Has("cb16aa5adb311e8ac72482def19accbe") {
		t.Error("nil job has an operator")
	}
	for _, bad := range []string{"", "cb16", "zz16aa5adb311e8ac72482def19accbe", "cb16aa5adb311e8ac72482def19accbe00"} {
		if err := j.AddOperatorID(bad); err == nil {
			t.Errorf("AddOperatorID(%q) accepted", bad)
		}
	}
}

// TestJobAddAfterDirectEdits: Operators may be edited directly; Add still
// keeps each id once.
func TestJobAddAfterDirectEdits(t *testing.T) {
	j := jobgraph.JobFromUIDs("a", "b")
	j.Operators = append(j.Operators, jobgraph.JobOperator{ID: jobgraph.OperatorID("c")})
	j.AddUID("c")
	j.Operators[0], j.Operators[1] = j.Operators[1], j.Operators[0]
	j.AddUID("a")
	j.AddUID("b")
	j.Operators = j.Operators[1:]
	j.AddUID("b")
	var uids []string
	for _, o := range j.Operators {
		uids = append(uids, o.UID)
	}
	if diff := cmp.Diff([]string{"a", "c", "b"}, uids); diff != "" {
		t.Errorf("uids (-want +got):\n%s", diff)
	}
}
