// Package timeflag parses resumectl's TIME and DURATION flag values. It is
// a package of its own, importing only the standard library and
// resume/redact (to quote bad values short), so that its fuzz targets build
// and run quickly.
package timeflag

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/resumekit/resumekit/resume/redact"
)

// ParseTime reads a TIME flag: RFC 3339 ("2026-11-29T10:00:00Z", with any
// offset), "2006-01-02 15:04:05" or "2006-01-02T15:04:05" without a zone (UTC,
// as kafka-consumer-groups --to-datetime reads it), a date "2006-01-02" (UTC
// midnight), unix milliseconds (what scan.timestamp-millis takes), or a
// negative duration relative to now ("-15m", "-2h30m").
func ParseTime(s string, now time.Time) (time.Time, error) {
	t, err := parseTimeText(s, now)
	if err != nil {
		return time.Time{}, err
	}
	if t.Before(time.Unix(0, 0)) {
		// Kafka and Paimon times are Unix milliseconds; an early time
		// (0001-01-01T00:00:00Z is Go's zero time) must not read as "no
		// time given" either.
		return time.Time{}, fmt.Errorf("time %s is before 1970-01-01: Kafka and Paimon times are Unix milliseconds (use 1970-01-01T00:00:00Z for the earliest)", redact.Quote(s))
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
			return time.Time{}, fmt.Errorf("time %s: not a duration relative to now like -15m", redact.Quote(s))
		}
		return now.Add(d).UTC(), nil
	}
	if isDigits(s) {
		ms, err := strconv.ParseInt(s, 10, 64)
		if err != nil || ms > 253402300799999 { // year 9999
			return time.Time{}, fmt.Errorf("time %s: unix milliseconds out of range", redact.Quote(s))
		}
		return time.UnixMilli(ms).UTC(), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("time %s: want RFC 3339 (2026-11-29T10:00:00Z), \"2026-11-29 10:00:00\" (UTC), unix milliseconds, or -DURATION before now", redact.Quote(s))
}

// ParseDuration reads a DURATION flag: Go durations ("90m", "1h30m") plus days
// ("7d", "1d12h"), as retention settings are usually stated. Negative values
// are refused.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	orig := s
	var days int64
	if i := strings.IndexByte(s, 'd'); i > 0 && isDigits(s[:i]) {
		n, err := strconv.ParseInt(s[:i], 10, 64)
		if err != nil || n > 106751 { // time.Duration holds about 292 years
			return 0, fmt.Errorf("duration %s: too many days", redact.Quote(orig))
		}
		days, s = n, s[i+1:]
	}
	var d time.Duration
	if s != "" {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("duration %s: want e.g. 90m, 1h30m or 7d", redact.Quote(orig))
		}
	} else if days == 0 {
		return 0, fmt.Errorf("duration %s: want e.g. 90m, 1h30m or 7d", redact.Quote(orig))
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %s: must not be negative", redact.Quote(orig))
	}
	total := time.Duration(days)*24*time.Hour + d
	if total < d {
		return 0, fmt.Errorf("duration %s: out of range", redact.Quote(orig))
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
