package kafkaoffset_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume"
)

// TestStartTimeOnTheFirstRetainedRecord pins the package doc's decision:
// a start time that lands on the first retained record, stamped exactly at
// the time, with records deleted below it, is possible loss — deleted
// records can share that millisecond (here offsets 3 and 4 are stamped
// like offset 5) — and possible loss counts as loss. A first record at the
// time above the log start, or a log nothing was deleted from, is no loss.
// On kfake, with DeleteRecords.
func TestStartTimeOnTheFirstRetainedRecord(t *testing.T) {
	at := base.Add(5 * time.Second)
	stamps := []int64{ms(0), ms(time.Second), ms(2 * time.Second), at.UnixMilli(), at.UnixMilli(), at.UnixMilli(), ms(6 * time.Second), ms(7 * time.Second)}
	for _, tc := range []struct {
		name     string
		deleted  int64 // log start after DeleteRecords; 0: none
		at       time.Time
		want     resume.Guarantee
		offset   int64
		lost     int64
		contains string
	}{
		// Offsets 3 and 4 (stamped at the time) deleted: loss, certainly
		// here, and in general it cannot be told.
		{"DeletedShareTheMillisecond", 5, at, resume.DataLoss, 5, 5, "stamped exactly at the time"},
		// Offset 3 is the first at the time: records below it were all
		// before the time here, but nothing in the log can show it.
		{"FirstAtTheTimeIsTheLogStart", 3, at, resume.DataLoss, 3, 3, "may share that millisecond"},
		// The first record at the time is above the log start: offset 2,
		// retained, is older than the time, so nothing at or after it was
		// deleted.
		{"OlderRecordStillRetained", 2, at, resume.Replay, 3, 0, ""},
		// Nothing deleted, the time on the first record.
		{"NothingDeleted", 0, base, resume.Replay, 0, 0, ""},
		// The first retained record after the time: loss, as before.
		{"TimeBeforeTheRetainedData", 3, at.Add(-time.Millisecond), resume.DataLoss, 3, 3, "older than the retained data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 1, 1, []string{"t"})
			e.produce(t, "t", 0, stamps...)
			if tc.deleted > 0 {
				e.deleteRecords(t, "t", 0, tc.deleted)
			}
			r := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{At: tc.at})
			res, err := r.Offsets(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want := []row{{0, tc.deleted, int64(len(stamps)), -1, tc.offset, kafkaoffset.FromTime, tc.lost}}
			if diff := cmp.Diff(want, rows(res)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			c, err := r.Resolve(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if c.Guarantee != tc.want {
				t.Errorf("guarantee %s, want %s; reasons %q", c.Guarantee, tc.want, c.Reasons)
			}
			if tc.contains != "" && (len(res) != 1 || !strings.Contains(res[0].Reason, tc.contains)) {
				t.Errorf("reason %q lacks %q", res[0].Reason, tc.contains)
			}
		})
	}
}
