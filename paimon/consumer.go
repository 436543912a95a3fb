package paimon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"gocloud.dev/blob"
)

// Consumer is one consumer file: <table>/consumer/consumer-<id>.
type Consumer struct {
	ID string `json:"consumer_id"`
	// NextSnapshot is the snapshot the consumer reads next.
	NextSnapshot int64 `json:"next_snapshot_id"`
	// ModTime is the file's modification time: the last time the job
	// recorded progress (the Flink source rewrites the file on every
	// completed checkpoint).
	ModTime time.Time `json:"mod_time"`
	Key     string    `json:"key"`
	// Err is set in the results of Table.Consumers for a file that could not
	// be read; the other fields but ID and Key are then zero.
	Err error `json:"-"`
}

// ParseConsumer parses the content of a consumer file: a JSON object whose
// "nextSnapshot" is a positive integer. Both Jackson's pretty form
// {"nextSnapshot" : 42} and Python's compact form are accepted, with any
// white space; unknown fields are ignored. key names the file in errors.
func ParseConsumer(key string, data []byte) (int64, error) {
	n, _, err := parseConsumer(key, data)
	return n, err
}

// parseConsumer also reports whether the failure is one a concurrent
// rewrite produces (empty or truncated JSON), which is worth reading again.
func parseConsumer(key string, data []byte) (n int64, transient bool, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return 0, true, corruptf(key, "empty consumer file")
	}
	var f struct {
		NextSnapshot json.RawMessage `json:"nextSnapshot"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, true, corruptf(key, "half-written consumer JSON: %v", err)
		}
		return 0, false, corruptf(key, "consumer JSON: %v", err)
	}
	if f.NextSnapshot == nil || string(f.NextSnapshot) == "null" {
		return 0, false, corruptf(key, `consumer JSON has no "nextSnapshot"`)
	}
	if err := json.Unmarshal(f.NextSnapshot, &n); err != nil {
		return 0, false, corruptf(key, `"nextSnapshot" %s is not an integer id`, truncate(string(f.NextSnapshot), 40))
	}
	if n <= 0 {
		return 0, false, corruptf(key, `"nextSnapshot" %d is not a positive snapshot id`, n)
	}
	return n, false, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// ConsumerJSON returns the consumer file content Paimon's Java writer
// produces (Jackson's default pretty printer): {\n  "nextSnapshot" : 42\n}.
func ConsumerJSON(nextSnapshot int64) []byte {
	return fmt.Appendf(nil, "{\n  \"nextSnapshot\" : %d\n}", nextSnapshot)
}

// Consumer reads the consumer file of id. A missing file gives an error
// wrapping ErrConsumerNotFound. An empty or half-written file — Paimon
// rewrites consumer files in place on object stores and local disks — is
// read again ConsumerRetries times, ConsumerRetryInterval apart (Paimon: 10
// times, 200 ms), then reported as ErrCorrupt naming the key.
func (t *Table) Consumer(ctx context.Context, id string) (*Consumer, error) {
	if err := ValidateID("consumer", id); err != nil {
		return nil, err
	}
	return t.readConsumer(ctx, id, t.consumerKey(id))
}

func (t *Table) readConsumer(ctx context.Context, id, key string) (*Consumer, error) {
	for try := 1; ; try++ {
		data, mod, err := t.read(ctx, key)
		if err != nil {
			if errors.Is(err, errNotFound) {
				return nil, fmt.Errorf("paimon: consumer %q: %s does not exist: %w", id, key, ErrConsumerNotFound)
			}
			return nil, err
		}
		n, transient, err := parseConsumer(key, data)
		if err == nil {
			return &Consumer{ID: id, NextSnapshot: n, ModTime: mod.UTC(), Key: key}, nil
		}
		if !transient {
			return nil, err
		}
		if try >= t.o.ConsumerRetries {
			return nil, fmt.Errorf("%w (still so after %d reads: a writer may have died mid-rewrite)", err, try)
		}
		if err := pause(ctx, t.o.ConsumerRetryInterval); err != nil {
			return nil, fmt.Errorf("paimon: read %s: %w", key, err)
		}
	}
}

// Consumers lists every consumer of the table, like the $consumers system
// table plus each file's modification time, sorted by id. A file that cannot
// be read is returned with its Err set, and the returned error joins those
// errors; a failed listing returns nil and the error.
func (t *Table) Consumers(ctx context.Context) ([]Consumer, error) {
	dir := t.consumerDir()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("paimon: list %s: %w", dir, err)
	}
	it := t.bucket.List(&blob.ListOptions{Prefix: dir + "consumer-", Delimiter: "/"})
	var (
		out  []Consumer
		errs []error
	)
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("paimon: list %s: %w", dir, ctxErr(ctx, err))
		}
		if obj.IsDir {
			continue
		}
		id := strings.TrimPrefix(obj.Key, dir+"consumer-")
		c, err := t.readConsumer(ctx, id, obj.Key)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, fmt.Errorf("paimon: read consumers: %w", cerr)
			}
			if errors.Is(err, ErrConsumerNotFound) {
				continue // deleted (expired) since the listing
			}
			errs = append(errs, err)
			out = append(out, Consumer{ID: id, Key: obj.Key, Err: err})
			continue
		}
		out = append(out, *c)
	}
	return out, errors.Join(errs...)
}

// MinNextSnapshot returns the smallest nextSnapshot over readable consumers,
// the bound below which Paimon's expiry may delete snapshots; ok is false
// when there is no readable consumer.
func MinNextSnapshot(cs []Consumer) (n int64, ok bool) {
	for _, c := range cs {
		if c.Err != nil {
			continue
		}
		if !ok || c.NextSnapshot < n {
			n, ok = c.NextSnapshot, true
		}
	}
	return n, ok
}

// DeleteConsumer deletes the consumer file of id, as reset_consumer without
// a snapshot id does. Deleting a consumer that does not exist is not an
// error. The id is validated before anything is touched.
func (t *Table) DeleteConsumer(ctx context.Context, id string) error {
	if err := ValidateID("consumer", id); err != nil {
		return err
	}
	key := t.consumerKey(id)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("paimon: delete %s: %w", key, err)
	}
	if err := t.bucket.Delete(ctx, key); err != nil {
		if gcerrorsNotFound(err) {
			return nil
		}
		return fmt.Errorf("paimon: delete %s: %w", key, ctxErr(ctx, err))
	}
	return nil
}
