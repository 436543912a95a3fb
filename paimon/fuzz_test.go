package paimon_test

import (
	"errors"
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
)

// Seed corpora live in testdata/fuzz/<FuzzName>/.

func FuzzConsumer(f *testing.F) {
	f.Add([]byte("{\n  \"nextSnapshot\" : 42\n}"))
	f.Add([]byte(`{"nextSnapshot": 7}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		const key = "t/consumer/consumer-x"
		n, err := paimon.ParseConsumer(key, data)
		if err != nil {
			if !errors.Is(err, paimon.ErrCorrupt) || !strings.Contains(err.Error(), key) {
				t.Fatalf("error %v is not ErrCorrupt naming the key", err)
			}
			return
		}
		if n <= 0 {
			t.Fatalf("accepted nextSnapshot %d", n)
		}
		back, err := paimon.ParseConsumer(key, paimon.ConsumerJSON(n))
		if err != nil || back != n {
			t.Fatalf("ConsumerJSON(%d) parses as %d, %v", n, back, err)
		}
	})
}

func FuzzSnapshot(f *testing.F) {
	f.Add([]byte(`{"version":3,"id":1,"schemaId":0,"timeMillis":1784213608378}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		const key = "t/snapshot/snapshot-1"
		s, err := paimon.ParseSnapshot(key, data)
		if err != nil {
			if !errors.Is(err, paimon.ErrCorrupt) || !strings.Contains(err.Error(), key) {
				t.Fatalf("error %v is not ErrCorrupt naming the key", err)
			}
			return
		}
		if s.ID <= 0 || s.SchemaID < 0 || s.Time.UnixMilli() != s.TimeMillis || s.Key != key {
			t.Fatalf("accepted %+v", s)
		}
		if s.Watermark != nil && *s.Watermark == -1<<63 {
			t.Fatal("Long.MIN_VALUE watermark kept")
		}
	})
}

func FuzzHint(f *testing.F) {
	f.Add([]byte("42"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const key = "t/snapshot/LATEST"
		id, err := paimon.ParseHint(key, data)
		want, werr := strconv.ParseInt(string(data), 10, 64)
		if (err == nil) != (werr == nil) || (err == nil && id != want) {
			t.Fatalf("ParseHint(%q) = %d, %v; strconv says %d, %v", data, id, err, want, werr)
		}
		if err != nil && (!errors.Is(err, paimon.ErrCorrupt) || !strings.Contains(err.Error(), key)) {
			t.Fatalf("error %v is not ErrCorrupt naming the key", err)
		}
	})
}

func FuzzSchema(f *testing.F) {
	f.Add([]byte(`{"version":3,"id":0,"options":{"consumer.expiration-time":"1 d"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := paimon.ParseSchema("t/schema/schema-0", data)
		if err == nil && (s.ID < 0 || s.Options == nil) {
			t.Fatalf("accepted %+v", s)
		}
	})
}

// FuzzValidateID: an accepted consumer id keeps consumer-<id> inside the
// consumer folder.
func FuzzValidateID(f *testing.F) {
	f.Add("job-1")
	f.Add("../x")
	f.Fuzz(func(t *testing.T, id string) {
		if paimon.ValidateID("consumer", id) != nil {
			return
		}
		key := "t/consumer/consumer-" + id
		if path.Clean(key) != key || strings.ContainsAny(id, "/\\\x00\n\r") || strings.Contains(id, "..") {
			t.Fatalf("accepted %q", id)
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	f.Add("7 d")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := paimon.ParseDuration(s)
		if err == nil && d < 0 {
			t.Fatalf("ParseDuration(%q) = %v", s, d)
		}
	})
}

// FuzzTableOptions: any table option in the newest schema, and any declared
// Paimon version, is read without a panic: a version that does not parse
// is refused by NewResolver; an option that does not parse becomes a coded
// warning. Snapshots 1..5 expired into long-lived changelogs; the consumer
// is at 3, so the decoupling decision is exercised every time.
func FuzzTableOptions(f *testing.F) {
	f.Add("changelog.time-retained", "7 d", "")
	f.Add("changelog.num-retained.max", "2147483647", "0.8")
	f.Add("consumer.changelog-only", "TRUE", "1.4.1")
	f.Add("changelog-producer", "lookup", "0.8.2")
	f.Add("scan.mode", "latest", "1.5-SNAPSHOT")
	f.Add("consumer.mode", "AT-LEAST-ONCE", "2.0")
	f.Add("snapshot.time-retained", "99999999999999 d", "0.7")
	b, tb := newTable(f, 10, nil)
	tb.Consumer("job", 3).ExpireKeepChangelog(6)
	tbl := openTable(f, b, tb.Path(), nil)
	f.Fuzz(func(t *testing.T, key, value, version string) {
		r, err := paimon.NewResolver(tbl, "job", &paimon.Options{PaimonVersion: version})
		if err != nil {
			return
		}
		if err := b.WriteAll(bg, tb.Key("schema/schema-1"), paimontest.SchemaJSON(1, map[string]string{key: value}, t0), nil); err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(bg)
		if err != nil {
			if key == "consumer.mode" {
				return // Paimon refuses an unknown mode too
			}
			t.Fatalf("options {%q: %q}: %v", key, value, err)
		}
		p, err := paimon.PositionOf(c.Position)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case p.NextSnapshot == 3 && c.Guarantee >= resume.Replay && p.ChangelogDecoupled:
		case p.NextSnapshot == 6 && c.Guarantee == resume.DataLoss && !p.ChangelogDecoupled:
		default:
			t.Fatalf("options {%q: %q} version %q: %v next %d decoupled %v", key, value, version, c.Guarantee, p.NextSnapshot, p.ChangelogDecoupled)
		}
		if c.Position.Launch().Options["scan.snapshot-id"] == "" {
			t.Fatal("no scan.snapshot-id in the launch")
		}
	})
}
