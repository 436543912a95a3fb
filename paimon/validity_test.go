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
