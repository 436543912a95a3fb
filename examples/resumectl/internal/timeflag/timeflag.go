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
// offset, also with a space for the T), unix milliseconds (what
// scan.timestamp-millis takes), or a negative duration relative to now
// ("-15m", "-2h30m"). A time without a zone or offset ("2026-11-29
// 19:40:00", "2026-11-29") is refused with an error naming both readings:
// kafka-consumer-groups --to-datetime reads it as UTC, Paimon's
// scan.timestamp as the job's local time, and 8 hours apart a start skips
// or replays that much input.
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
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return time.Time{}, zonelessError(s, t)
		}
	}
	return time.Time{}, fmt.Errorf("time %s: want RFC 3339 with a zone or offset (2026-11-29T10:00:00Z, 2026-11-29T18:00:00+08:00), unix milliseconds, or -DURATION before now", redact.Quote(s))
}

// zonelessError names the two readings of a time without a zone: UTC, and
// local time (this machine's zone, as a job in it would read
// scan.timestamp).
func zonelessError(s string, t time.Time) error {
	const layout = "2006-01-02T15:04:05.999999999Z07:00"
	local := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.Local)
	return fmt.Errorf("time %s has no zone or offset, and its two readings differ: as UTC (kafka-consumer-groups --to-datetime) it is %s; as local time (Paimon's scan.timestamp reads the job's time zone; this machine's is %s) it is %s = %s; write the zone: %s or %s",
		redact.Quote(s), t.UTC().Format(layout), time.Local.String(), local.Format(layout), local.UTC().Format(layout), t.UTC().Format(layout), local.Format(layout))
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
