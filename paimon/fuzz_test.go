package paimon_test

import (
	"errors"
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/paimon"
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
