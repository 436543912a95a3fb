package paimon_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

func TestResetConsumer(t *testing.T) {
	b, tb := newTable(t, 10, nil)
	tb.ExpireBefore(3)
	wb, rec := blobtest.Wrap(b, nil)
	tbl := openTable(t, wb, tb.Path(), nil)

	// Dry run: checks, no write.
	plan, err := tbl.PlanResetConsumer(bg, "job", 5)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Count(blobtest.OpWrite) != 0 || plan.Written {
		t.Fatalf("dry run wrote: %s", rec)
	}
	if plan.Content != "{\n  \"nextSnapshot\" : 5\n}" || plan.SQL != "CALL sys.reset_consumer('default.t', 'job', 5)" || plan.Previous != nil {
		t.Errorf("plan %+v", plan)
	}
	if len(plan.Warnings) != 1 || plan.Warnings[0].Code != paimon.WarnNoConsumerExpiration || !strings.Contains(plan.Warnings[0].Text, "consumer.expiration-time is not set in the options of table default.t") || !strings.Contains(plan.Warnings[0].Text, "pins snapshot-5") {
		t.Errorf("warnings %q", plan.Warnings)
	}

	// The write: one object write of Jackson's pretty JSON.
	rec.Reset()
	plan, err = tbl.ResetConsumer(bg, "job", 5, &paimon.ResetOptions{ExpectAbsent: true})
	if err != nil || !plan.Written {
		t.Fatal(plan, err)
	}
	if got := rec.Count(blobtest.OpWrite); got != 1 {
		t.Errorf("%d writes, want 1", got)
	}
	data, err := b.ReadAll(bg, tb.Key("consumer/consumer-job"))
	if err != nil || string(data) != "{\n  \"nextSnapshot\" : 5\n}" {
		t.Errorf("consumer file %q, %v", data, err)
	}
	c, err := tbl.Consumer(bg, "job")
	if err != nil || c.NextSnapshot != 5 {
		t.Errorf("Consumer = %+v, %v", c, err)
	}

	// Again (the file was just written: past the quiet period check only
	// with QuietPeriod off): Previous is reported.
	plan, err = tbl.ResetConsumer(bg, "job", 10, &paimon.ResetOptions{ExpectPrevious: ptr64(5), QuietPeriod: -1})
	if err != nil || plan.Previous == nil || *plan.Previous != 5 {
		t.Errorf("second reset: %+v, %v", plan, err)
	}

	// The resolver now sees the bound consumer (replay: it cannot tell a
	// bound consumer from one a job read past, at 10 of 3..10).
	r, _ := paimon.NewResolver(tbl, "job", nil)
	cand, err := r.Resolve(bg)
	if p, _ := paimon.PositionOf(cand.Position); err != nil || cand.Guarantee != resume.Replay || p.NextSnapshot != 10 {
		t.Fatalf("Resolve after reset: %v %v", cand, err)
	}

	// Snapshots that do not exist are refused, as Paimon's procedure does.
	for _, n := range []int64{1, 2, 11, 0, -1} {
		rec.Reset()
		if _, err := tbl.ResetConsumer(bg, "job", n, &paimon.ResetOptions{Force: true}); err == nil {
			t.Errorf("ResetConsumer to %d succeeded", n)
		} else if n > 0 && (!errors.Is(err, paimon.ErrSnapshotNotFound) || !strings.Contains(err.Error(), "snapshot-")) {
			t.Errorf("ResetConsumer to %d: %v", n, err)
		}
		if rec.Count(blobtest.OpWrite) != 0 {
			t.Errorf("ResetConsumer to %d wrote", n)
		}
	}

	// Consumers lists it with its modification time.
	tb.ConsumerPython("other", 4)
	tb.WriteFile("consumer/consumer-broken", []byte(`{"nextSnapshot": -1}`))
	cs, err := tbl.Consumers(bg)
	if err == nil || !strings.Contains(err.Error(), "consumer-broken") {
		t.Errorf("Consumers error = %v", err)
	}
	var got []string
	for _, c := range cs {
		if c.Err == nil && c.ModTime.IsZero() {
			t.Errorf("%s: no mod time", c.ID)
		}
		got = append(got, c.ID)
	}
	if diff := cmp.Diff([]string{"broken", "job", "other"}, got); diff != "" {
		t.Errorf("Consumers ids (-want +got):\n%s", diff)
	}
	if n, ok := paimon.MinNextSnapshot(cs); !ok || n != 4 {
		t.Errorf("MinNextSnapshot = %d %v", n, ok)
	}

	// Delete, and delete again (no error).
	if err := tbl.DeleteConsumer(bg, "job"); err != nil {
		t.Fatal(err)
	}
	if err := tbl.DeleteConsumer(bg, "job"); err != nil {
		t.Errorf("second delete: %v", err)
	}
	if _, err := tbl.Consumer(bg, "job"); !errors.Is(err, paimon.ErrConsumerNotFound) {
		t.Errorf("after delete: %v", err)
	}
}

func TestResetConsumerWithExpiration(t *testing.T) {
	b, tb := newTable(t, 3, map[string]string{"consumer.expiration-time": "7 d"})
	tbl := openTable(t, b, tb.Path(), nil)
	plan, err := tbl.ResetConsumer(bg, "job", 2, nil)
	if err != nil || len(plan.Warnings) != 0 {
		t.Errorf("plan %+v, %v", plan, err)
	}
}

func TestResetConsumerReplacesCorruptFile(t *testing.T) {
	b, tb := newTable(t, 3, nil)
	tb.WriteFile("consumer/consumer-job", []byte("{"))
	tbl := openTable(t, b, tb.Path(), nil)
	plan, err := tbl.ResetConsumer(bg, "job", 2, &paimon.ResetOptions{Force: true})
	if err != nil || plan.Previous != nil || !hasSub(plan.Warnings, "paimon.consumer-file-unusable: the current consumer file is unusable and will be replaced") {
		t.Errorf("plan %+v, %v", plan, err)
	}
}
