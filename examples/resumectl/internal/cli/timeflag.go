package cli

import (
	"time"

	"github.com/resumekit/resumekit/examples/resumectl/internal/timeflag"
)

// timeFlag is a flag.Value for TIME flags. A relative time ("-15m") is read
// against the wall clock when the flag is set; rebase reads it again against
// another "now" (resolve --now), whatever order the flags came in.
type timeFlag struct {
	t   time.Time
	raw string
	now func() time.Time
	// set says the flag was given: 0001-01-01T00:00:00Z is a time, not
	// "not given" (and is refused as before 1970).
	set bool
}

// rebase parses the flag's text again relative to now.
func (f *timeFlag) rebase(now time.Time) {
	if f.raw == "" {
		return
	}
	if t, err := timeflag.ParseTime(f.raw, now); err == nil {
		f.t = t
	}
}

func (f *timeFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return f.t.Format(time.RFC3339Nano)
}

func (f *timeFlag) Set(s string) error {
	now := time.Now
	if f.now != nil {
		now = f.now
	}
	t, err := timeflag.ParseTime(s, now())
	if err != nil {
		return err
	}
	f.t, f.raw, f.set = t, s, true
	return nil
}

// durationFlag is a flag.Value for DUR flags (with days).
type durationFlag struct{ d time.Duration }

func (f *durationFlag) String() string {
	if f == nil {
		return ""
	}
	return f.d.String()
}

func (f *durationFlag) Set(s string) error {
	d, err := timeflag.ParseDuration(s)
	if err != nil {
		return err
	}
	f.d = d
	return nil
}
