package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// parseTime reads a TIME flag: RFC 3339 ("2026-11-29T10:00:00Z", with any
// offset), "2006-01-02 15:04:05" or "2006-01-02T15:04:05" without a zone (UTC,
// as kafka-consumer-groups --to-datetime reads it), a date "2006-01-02" (UTC
// midnight), unix milliseconds (what scan.timestamp-millis takes), or a
// negative duration relative to now ("-15m", "-2h30m").
func parseTime(s string, now time.Time) (time.Time, error) {
	t, err := parseTimeText(s, now)
	if err != nil {
		return time.Time{}, err
	}
	if t.Before(time.Unix(0, 0)) {
		// Kafka and Paimon times are Unix milliseconds; an early time
		// (0001-01-01T00:00:00Z is Go's zero time) must not read as "no
		// time given" either.
		return time.Time{}, fmt.Errorf("time %s is before 1970-01-01: Kafka and Paimon times are Unix milliseconds (use 1970-01-01T00:00:00Z for the earliest)", quoteShort(s))
	}
	return t, nil
}

func parseTimeText(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, fmt.Errorf("empty time")
	}
	if strings.HasPrefix(s, "-") {
		d, err := time.ParseDuration(s)
		if err != nil {
			return time.Time{}, fmt.Errorf("time %s: not a duration relative to now like -15m", quoteShort(s))
		}
		return now.Add(d).UTC(), nil
	}
	if isDigits(s) {
		ms, err := strconv.ParseInt(s, 10, 64)
		if err != nil || ms > 253402300799999 { // year 9999
			return time.Time{}, fmt.Errorf("time %s: unix milliseconds out of range", quoteShort(s))
		}
		return time.UnixMilli(ms).UTC(), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("time %s: want RFC 3339 (2026-11-29T10:00:00Z), \"2026-11-29 10:00:00\" (UTC), unix milliseconds, or -DURATION before now", quoteShort(s))
}

// parseDuration reads a DURATION flag: Go durations ("90m", "1h30m") plus days
// ("7d", "1d12h"), as retention settings are usually stated. Negative values
// are refused.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	orig := s
	var days int64
	if i := strings.IndexByte(s, 'd'); i > 0 && isDigits(s[:i]) {
		n, err := strconv.ParseInt(s[:i], 10, 64)
		if err != nil || n > 106751 { // time.Duration holds about 292 years
			return 0, fmt.Errorf("duration %s: too many days", quoteShort(orig))
		}
		days, s = n, s[i+1:]
	}
	var d time.Duration
	if s != "" {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("duration %s: want e.g. 90m, 1h30m or 7d", quoteShort(orig))
		}
	} else if days == 0 {
		return 0, fmt.Errorf("duration %s: want e.g. 90m, 1h30m or 7d", quoteShort(orig))
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %s: must not be negative", quoteShort(orig))
	}
	total := time.Duration(days)*24*time.Hour + d
	if total < d {
		return 0, fmt.Errorf("duration %s: out of range", quoteShort(orig))
	}
	return total, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

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
	if t, err := parseTime(f.raw, now); err == nil {
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
	t, err := parseTime(s, now())
	if err != nil {
		return err
	}
	f.t, f.raw, f.set = t, s, true
	return nil
}

// durationFlag is a flag.Value for DURATION flags (with days).
type durationFlag struct{ d time.Duration }

func (f *durationFlag) String() string {
	if f == nil {
		return ""
	}
	return f.d.String()
}

func (f *durationFlag) Set(s string) error {
	d, err := parseDuration(s)
	if err != nil {
		return err
	}
	f.d = d
	return nil
}
