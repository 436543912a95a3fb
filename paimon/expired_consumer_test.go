package paimon_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
)

// TestMissingConsumerNamesExpiration: a consumer file that is gone from a
// table with consumer.expiration-time set was most likely deleted by the
// writer's expiry while the job was down (conformance P2 on real Paimon
// 1.3: the writer deletes the idle consumer's file before it expires the
// snapshots it pinned). The no-position error says so and names the way
// out (a start by time); without the option it does not guess; an override
// in Options.TableOptions counts as the table's.
func TestMissingConsumerNamesExpiration(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		schema    map[string]string
		overrides map[string]string
		want      string
	}{
		{"Set", map[string]string{"consumer.expiration-time": "1 h"}, nil, `consumer.expiration-time is "1 h"`},
		{"Override", nil, map[string]string{"consumer.expiration-time": "30 min"}, `consumer.expiration-time is "30 min"`},
		{"NotSet", nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := newTable(t, 3, tc.schema)
			tbl := openTable(t, b, "wh/default.db/t", nil)
			r, err := paimon.NewResolver(tbl, "job", &paimon.Options{TableOptions: tc.overrides})
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Resolve(ctx)
			if !errors.Is(err, resume.ErrNoPosition) {
				t.Fatalf("Resolve: %v, want a no-position error", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, "does not exist and no start time was given") {
				t.Errorf("error %q lost its first part", msg)
			}
			switch {
			case tc.want == "" && strings.Contains(msg, "expiration-time"):
				t.Errorf("error %q guesses an expiry the table does not set", msg)
			case tc.want != "" && (!strings.Contains(msg, tc.want) || !strings.Contains(msg, "--paimon-from")):
				t.Errorf("error %q, want it to name %s and the start by time", msg, tc.want)
			}
		})
	}
}
