package paimon_test

import (
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/paimon"
)

// A consumer candidate is valid until the consumer's last progress plus
// consumer.expiration-time, to the second: the consumer pins its snapshot
// until then. Without the option nothing expires it: unknown.
func TestConsumerValidUntil(t *testing.T) {
	for _, opts := range []map[string]string{{"consumer.expiration-time": "1 d"}, nil} {
		b, tb := newTable(t, 20, opts)
		tb.Consumer("job", 12)
		tbl := openTable(t, b, tb.Path(), nil)
		cons, err := tbl.Consumer(bg, "job")
		if err != nil {
			t.Fatal(err)
		}
		r, _ := paimon.NewResolver(tbl, "job", nil)
		c, err := r.Resolve(bg)
		if err != nil {
			t.Fatal(err)
		}
		if opts == nil {
			if !c.ValidUntil.IsZero() {
				t.Errorf("no expiration: ValidUntil %v, want unknown", c.ValidUntil)
			}
			continue
		}
		if want := cons.ModTime.Add(24 * time.Hour).UTC(); !c.ValidUntil.Equal(want) {
			t.Errorf("ValidUntil %v, want %v", c.ValidUntil, want)
		}
		if r := strings.Join(c.Reasons, "\n"); !strings.Contains(r, "consumer job pins snapshot-12 and later until consumer.expiration-time 1 d") {
			t.Errorf("reasons:\n%s", r)
		}
	}
}

// TestValidUntilNumRetainedMax (issue 33 item 6): snapshot.num-retained.max
// expires a snapshot after N more commits whatever its age: valid_until
// came from time-retained (2 h) for a snapshot the writer's next commit, a
// minute later, expired. It is now "expires after N more commits", its time
// estimated from the observed commit rate and marked as an estimate.
func TestValidUntilNumRetainedMax(t *testing.T) {
	b, tb := newTable(t, 20, map[string]string{"snapshot.num-retained.max": "5", "snapshot.num-retained.min": "1", "snapshot.time-retained": "2 h"})
	tbl := openTable(t, b, tb.Path(), nil)
	commit := func(id int64) time.Time { return t0.Add(time.Duration(id-1) * time.Minute).UTC() }
	for _, tc := range []struct {
		id   int64
		want time.Time
		why  string
	}{
		{16, commit(21), "valid until about 2026-11-29T10:20:00Z (an estimate): paimon default.t: snapshot.num-retained.max is 5, so snapshot 16 expires after 1 more commits whatever its age; at the observed rate of one commit every 1m0s"},
		{18, commit(23), "snapshot 18 expires after 3 more commits"},
		{15, commit(15), "valid until the next commit: paimon default.t: snapshot.num-retained.max is 5 and snapshot 15 is 5 behind the latest (20)"},
	} {
		until, why, err := tbl.ValidUntil(bg, tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if !until.Equal(tc.want) || !strings.Contains(why, tc.why) {
			t.Errorf("ValidUntil(%d) = %v, %q\nwant %v, %q", tc.id, until, why, tc.want, tc.why)
		}
	}
	// Without the option, the time rule as before.
	b, tb = newTable(t, 20, map[string]string{"snapshot.num-retained.min": "1", "snapshot.time-retained": "2 h"})
	tbl = openTable(t, b, tb.Path(), nil)
	if until, why, err := tbl.ValidUntil(bg, 16); err != nil || !until.Equal(commit(16).Add(2*time.Hour)) || strings.Contains(why, "estimate") {
		t.Errorf("no max: %v, %q, %v", until, why, err)
	}
}
