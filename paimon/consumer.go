package paimon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
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
		return 0, false, corruptf(key, `consumer JSON has no "nextSnapshot"%s`, readAsZero)
	}
	if err := json.Unmarshal(f.NextSnapshot, &n); err != nil {
		return 0, false, corruptf(key, `"nextSnapshot" %s is not an integer id`, truncate(string(f.NextSnapshot), 40))
	}
	if n <= 0 {
		return 0, false, corruptf(key, `"nextSnapshot" %d is not a positive snapshot id%s`, n, readAsZero)
	}
	if n > MaxID {
		return 0, false, corruptf(key, `"nextSnapshot" %d is above 2^62: malformed`, n)
	}
	return n, false, nil
}

// readAsZero completes the error of a consumer file that Paimon reads
// without failing (Consumer is @JsonIgnoreProperties(ignoreUnknown = true)
// with a primitive long, which Jackson sets to 0 when missing or null) as a
// consumer below every snapshot.
const readAsZero = ": Paimon reads it as a consumer at snapshot 0 or below, which stops snapshot expiry for the whole table (a gocloud fileblob consumer-<id>.attrs sidecar is such a file); delete it unless a job uses it"

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
	key := t.consumerKey(id)
	for try := 1; ; try++ {
		c, transient, err := t.readConsumer(ctx, id, key)
		if !transient {
			return c, err
		}
		if try >= t.o.ConsumerRetries {
			return nil, stillBad(err, try)
		}
		if err := t.pause(ctx, t.o.ConsumerRetryInterval); err != nil {
			return nil, fmt.Errorf("paimon: read %s: %w", key, err)
		}
	}
}

func stillBad(err error, reads int) error {
	return fmt.Errorf("%w (still so after %d reads: a writer may have died mid-rewrite)", err, reads)
}

// readConsumer reads a consumer file once; transient is true for an empty
// or half-written file, worth reading again.
func (t *Table) readConsumer(ctx context.Context, id, key string) (c *Consumer, transient bool, err error) {
	data, mod, err := t.read(ctx, key)
	if err != nil {
		if errors.Is(err, errNotFound) {
			return nil, false, fmt.Errorf("paimon: consumer %q: %s does not exist: %w", id, key, ErrConsumerNotFound)
		}
		return nil, false, err
	}
	n, transient, err := parseConsumer(key, data)
	if err != nil {
		return nil, transient, err
	}
	return &Consumer{ID: id, NextSnapshot: n, ModTime: mod.UTC(), Key: key}, false, nil
}

// Consumers lists every consumer of the table, like the $consumers system
// table plus each file's modification time, sorted by id. A file that cannot
// be read is returned with its Err set, and the returned error joins those
// errors; a failed listing returns nil and the error.
//
// The files are read Concurrency at a time. Empty or half-written ones are
// read again in rounds, ConsumerRetryInterval apart, at most ConsumerRetries
// reads each: a table with many such files costs ConsumerRetries-1 pauses in
// all, not per file (Paimon's per-file 10 × 200 ms would add up to minutes).
//
// Names found in storage are not held to ValidateID, which is for ids a
// caller gives: a consumer-<id> file whose id has control or invisible
// characters is listed and read like any other, as Paimon lists it; print
// such ids escaped.
func (t *Table) Consumers(ctx context.Context) ([]Consumer, error) {
	dir := t.consumerDir()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("paimon: list %s: %w", dir, err)
	}
	it := t.bucket.List(&blob.ListOptions{Prefix: dir + "consumer-", Delimiter: "/"})
	var keys []string
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("paimon: list %s: %w", dir, ctxErr(ctx, err))
		}
		if !obj.IsDir {
			keys = append(keys, obj.Key)
		}
	}
	type result struct {
		c   *Consumer
		err error
	}
	res := make([]result, len(keys))
	pending := make([]int, len(keys))
	for i := range pending {
		pending[i] = i
	}
	for round := 1; len(pending) > 0; round++ {
		again := make([]bool, len(keys))
		parallel(len(pending), t.o.Concurrency, func(j int) {
			i := pending[j]
			id := strings.TrimPrefix(keys[i], dir+"consumer-")
			c, transient, err := t.readConsumer(ctx, id, keys[i])
			if transient && round < t.o.ConsumerRetries {
				again[i] = true
				return
			}
			if transient {
				err = stillBad(err, round)
			}
			res[i] = result{c, err}
		})
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("paimon: read consumers: %w", cerr)
		}
		pending = pending[:0]
		for i, a := range again {
			if a {
				pending = append(pending, i)
			}
		}
		if len(pending) > 0 {
			if err := t.pause(ctx, t.o.ConsumerRetryInterval); err != nil {
				return nil, fmt.Errorf("paimon: read consumers: %w", err)
			}
		}
	}
	var (
		out  []Consumer
		errs []error
	)
	for i, r := range res {
		switch {
		case r.err == nil:
			out = append(out, *r.c)
		case errors.Is(r.err, ErrConsumerNotFound):
			// deleted (expired) since the listing
		default:
			errs = append(errs, r.err)
			out = append(out, Consumer{ID: strings.TrimPrefix(keys[i], dir+"consumer-"), Key: keys[i], Err: r.err})
		}
	}
	return out, errors.Join(errs...)
}

// parallel runs f(0..n-1), at most limit at once, and waits for all.
func parallel(n, limit int, f func(i int)) {
	if limit < 1 {
		limit = 1
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, limit)
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f(i)
		}()
	}
	wg.Wait()
}

// MinNextSnapshot returns the smallest nextSnapshot over readable consumers,
// the bound below which Paimon's expiry may delete snapshots; ok is false
// when there is no readable consumer. Consumers with an Err are left out,
// though Paimon reads some of them (no nextSnapshot, or one below 1, as a
// fileblob .attrs sidecar is) as a consumer at 0, which stops expiry
// altogether: their Err says so.
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
