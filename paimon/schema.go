package paimon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/resumekit/resumekit/resume/redact"
)

// Schema is the part of a schema file resumekit uses.
type Schema struct {
	ID      int64             `json:"id"`
	Options map[string]string `json:"options"`
	Key     string            `json:"key"`
}

// ParseSchema parses a schema-<id> file; "id" is required and "options" may
// be absent. key names the file in errors.
func ParseSchema(key string, data []byte) (*Schema, error) {
	var f struct {
		ID      *int64            `json:"id"`
		Options map[string]string `json:"options"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, corruptf(key, "schema JSON: %v", err)
	}
	if f.ID == nil || *f.ID < 0 || *f.ID > MaxID {
		return nil, corruptf(key, `schema JSON has no valid "id" (0..2^62)`)
	}
	if f.Options == nil {
		f.Options = map[string]string{}
	}
	return &Schema{ID: *f.ID, Options: f.Options, Key: key}, nil
}

// LatestSchema reads the newest schema/schema-<id> (the largest id, as
// Paimon's SchemaManager.latest lists it). A table without schema files gives
// an error wrapping ErrCorrupt.
func (t *Table) LatestSchema(ctx context.Context) (*Schema, error) {
	_, hi, ok, err := t.listIDs(ctx, t.schemaDir(), "schema-")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, corruptf(t.schemaDir(), "no schema file: not a Paimon table?")
	}
	return t.readSchema(ctx, hi)
}

func (t *Table) readSchema(ctx context.Context, id int64) (*Schema, error) {
	key := t.schemaKey(id)
	data, _, err := t.read(ctx, key)
	if err != nil {
		if errors.Is(err, errNotFound) {
			return nil, corruptf(key, "schema file does not exist")
		}
		return nil, err
	}
	s, err := ParseSchema(key, data)
	if err != nil {
		return nil, err
	}
	if s.ID != id {
		return nil, corruptf(key, `schema file holds "id" %d`, s.ID)
	}
	return s, nil
}

// schemaFrom finds the newest schema without a listing: schema ids are
// consecutive (SchemaManager commits id+1), so starting from the latest
// snapshot's schema it probes schema-<id+1> until one is missing. It falls
// back to a listing when the start schema is missing or after many probes.
func (t *Table) schemaFrom(ctx context.Context, id int64) (*Schema, error) {
	const maxProbes = 8
	for i := 0; i < maxProbes; i++ {
		next, err := t.exists(ctx, t.schemaKey(id+1))
		if err != nil {
			return nil, err
		}
		if !next {
			s, err := t.readSchema(ctx, id)
			if err == nil || !errors.Is(err, ErrCorrupt) {
				return s, err
			}
			break
		}
		id++
	}
	return t.LatestSchema(ctx)
}

// ParseDuration reads a Paimon (Flink TimeUtils) duration such as "1 d",
// "7d", "12 h", "30 min", "90s", "500 ms", or a bare number of milliseconds.
func ParseDuration(s string) (time.Duration, error) {
	n, mult, err := parseDurationParts(s)
	if err != nil {
		return 0, err
	}
	if n > int64((1<<63-1)/mult) {
		return 0, fmt.Errorf("paimon: duration %s is too long", redact.Quote(s))
	}
	return time.Duration(n) * mult, nil
}

// parseDurationParts splits a Paimon duration into a count and a unit.
func parseDurationParts(s string) (int64, time.Duration, error) {
	in := s
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, 0, fmt.Errorf("paimon: duration %s does not start with a number", redact.Quote(in))
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil { // digits only: out of range
		return 0, 0, fmt.Errorf("paimon: duration %s: number out of range", redact.Quote(in))
	}
	unit := strings.ToLower(strings.TrimLeftFunc(s[i:], unicode.IsSpace))
	var mult time.Duration
	switch unit {
	case "", "ms", "milli", "millis", "millisecond", "milliseconds":
		mult = time.Millisecond
	case "ns", "nano", "nanos", "nanosecond", "nanoseconds":
		mult = time.Nanosecond
	case "µs", "us", "micro", "micros", "microsecond", "microseconds":
		mult = time.Microsecond
	case "s", "sec", "secs", "second", "seconds":
		mult = time.Second
	case "m", "min", "mins", "minute", "minutes":
		mult = time.Minute
	case "h", "hour", "hours":
		mult = time.Hour
	case "d", "day", "days":
		mult = 24 * time.Hour
	default:
		return 0, 0, fmt.Errorf("paimon: duration %s: unknown unit %s", redact.Quote(in), redact.Quote(unit))
	}
	return n, mult, nil
}
