package timeflag

import (
	"strings"
	"testing"
	"time"
)

var fixedNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func TestParseTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"2026-11-29T10:00:00Z", time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)},
		{"2026-11-29T11:00:00+01:00", time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)},
		{"2026-11-29 10:00:00Z", time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)},
		{"2026-11-29T10:00:00.250+00:00", time.Date(2026, 11, 29, 10, 0, 0, 250e6, time.UTC)},
		{"1795946400000", time.UnixMilli(1795946400000).UTC()},
		{"0", time.UnixMilli(0).UTC()},
		{"-15m", fixedNow.Add(-15 * time.Minute)},
		{" -2h30m ", fixedNow.Add(-150 * time.Minute)},
	} {
		got, err := ParseTime(tc.in, fixedNow)
		if err != nil || !got.Equal(tc.want) || got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v, %v; want %v in UTC", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "yesterday", "-", "-x", "99999999999999999999", "2026-13-01", "1e9", "10:00"} {
		if _, err := ParseTime(bad, fixedNow); err == nil {
			t.Errorf("ParseTime(%q) succeeded, want an error", bad)
		}
	}
}

// TestZonelessTimeRefused (issue 33 item 8): a time without a zone or
// offset was read as UTC while Paimon's scan.timestamp reads local time (in
// UTC+8 a start skipped 8 hours): it is refused, naming both readings.
func TestZonelessTimeRefused(t *testing.T) {
	defer func(l *time.Location) { time.Local = l }(time.Local)
	time.Local = time.FixedZone("UTC+8", 8*3600)
	for _, tc := range []struct{ in, utc, local string }{
		{"2026-11-29T19:40:00", "2026-11-29T19:40:00Z", "2026-11-29T19:40:00+08:00 = 2026-11-29T11:40:00Z"},
		{"2026-11-29 19:40:00.5", "2026-11-29T19:40:00.5Z", "2026-11-29T19:40:00.5+08:00 = 2026-11-29T11:40:00.5Z"},
		{"2026-11-29 19:40", "2026-11-29T19:40:00Z", "2026-11-29T19:40:00+08:00"},
		{"2026-11-29", "2026-11-29T00:00:00Z", "2026-11-29T00:00:00+08:00 = 2026-11-28T16:00:00Z"},
	} {
		_, err := ParseTime(tc.in, fixedNow)
		if err == nil {
			t.Errorf("ParseTime(%q) succeeded, want an error", tc.in)
			continue
		}
		for _, want := range []string{"has no zone or offset", "as UTC (kafka-consumer-groups --to-datetime) it is " + tc.utc, "as local time (Paimon's scan.timestamp", "this machine's is UTC+8) it is " + tc.local} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("ParseTime(%q): %v\nwant %q", tc.in, err, want)
			}
		}
	}
}

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"90m", 90 * time.Minute},
		{"1h30m", 90 * time.Minute},
		{"7d", 7 * 24 * time.Hour},
		{"1d12h", 36 * time.Hour},
		{"0s", 0},
	} {
		got, err := ParseDuration(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "d", "-5m", "5", "1d-2h", "200000d", "abc"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) succeeded, want an error", bad)
		}
	}
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2026-11-29T10:00:00Z", "2026-11-29 10:00:00", "2026-11-29 10:00:00+08:00", "1795946400000", "-15m", "2026-11-29", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseTime(s, fixedNow)
		if err != nil {
			if !strings.Contains(err.Error(), "time") {
				t.Errorf("error %q does not say what it parsed", err)
			}
			return
		}
		if got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v, not UTC", s, got)
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"90m", "7d", "1d12h", "-5m", "0s", "d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err == nil && d < 0 {
			t.Errorf("ParseDuration(%q) = %v, negative", s, d)
		}
	})
}
