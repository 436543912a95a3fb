package resume_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// ValidUntil goes into the document as valid_until (RFC 3339 UTC, omitted
// when unknown) and comes back; the chosen candidate is warned about when
// it is within Policy.MinValidity of now, or already past (whatever
// MinValidity is), not otherwise.
func TestValidUntil(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		until time.Time
		min   time.Duration
		warn  bool
	}{
		{"Unknown", time.Time{}, time.Hour, false},
		{"FarEnough", now.Add(2 * time.Hour), time.Hour, false},
		{"ExactlyMin", now.Add(time.Hour), time.Hour, false},
		{"Close", now.Add(59 * time.Minute), time.Hour, true},
		{"Past", now.Add(-time.Minute), time.Hour, true},
		{"NoMinimum", now.Add(time.Minute), 0, false},
		// Issue 33 item 6: already past warns whatever MinValidity is.
		{"PastNoMinimum", now.Add(-time.Minute), 0, true},
		{"PastSmallMinimum", now.Add(-time.Minute), time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := resume.Candidate{Position: resumetest.Position{PositionKind: "test", Summary: "p"}, Guarantee: resume.ExactlyOnce,
				Reasons: []string{"found"}, ValidUntil: tc.until}
			d, err := (&resume.Chain{Resolvers: []resume.Resolver{resumetest.Static("r", c)},
				Policy: resume.Policy{MinValidity: tc.min, Now: func() time.Time { return now }}}).Resolve(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Chosen.HasWarning(resume.WarnShortValidity); got != tc.warn {
				t.Errorf("short-validity warning %v, want %v: %v", got, tc.warn, d.Chosen.Warnings)
			}
			data, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			if has := strings.Contains(string(data), `"valid_until":"`+tc.until.Format(time.RFC3339)+`"`); has == tc.until.IsZero() {
				t.Errorf("valid_until in the document: %v: %s", has, data)
			}
			var back resume.Decision
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			if !back.Chosen.ValidUntil.Equal(tc.until) {
				t.Errorf("read back %v, want %v", back.Chosen.ValidUntil, tc.until)
			}
		})
	}
	var c resume.Candidate
	if err := json.Unmarshal([]byte(`{"resolver":"r","kind":"k","guarantee":"replay","valid_until":"soon","position":{},"summary":"s","launch":{},"reasons":[],"warnings":[]}`), &c); err == nil || !strings.Contains(err.Error(), "valid_until") {
		t.Errorf("bad valid_until: %v", err)
	}
}
