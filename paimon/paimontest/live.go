package paimontest

import (
	"context"
	"fmt"
	"sync"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// LiveConsumer is the consumer file of a job that is still running. The
// Flink source rewrites it on every completed checkpoint
// (DataTableStreamScan.notifyCheckpointComplete → ConsumerManager.resetConsumer),
// so two reads a moment apart see different files, and a reset written in
// between is undone at the next checkpoint. Use it to test code that must
// notice a running job.
//
// Its methods are safe for concurrent use; do not commit to the builder
// while a LiveConsumer's hook may run.
type LiveConsumer struct {
	t   *Table
	id  string
	key string

	mu          sync.Mutex
	next        int64
	reads       int
	checkpoints int
	err         error
}

// LiveConsumer writes consumer-<id> at nextSnapshot, as Consumer does, and
// returns the running job's handle.
func (t *Table) LiveConsumer(id string, nextSnapshot int64) *LiveConsumer {
	t.tb.Helper()
	t.Consumer(id, nextSnapshot)
	return &LiveConsumer{t: t, id: id, key: t.base + "consumer/consumer-" + id, next: nextSnapshot}
}

// Key returns the consumer file's bucket key.
func (l *LiveConsumer) Key() string { return l.key }

// NextSnapshot returns the nextSnapshot last written.
func (l *LiveConsumer) NextSnapshot() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next
}

// Checkpoints returns how often the file was rewritten since LiveConsumer
// wrote it.
func (l *LiveConsumer) Checkpoints() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.checkpoints
}

// Err returns the first error a rewrite met (the hook cannot fail a test
// from the goroutine it runs in).
func (l *LiveConsumer) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Checkpoint rewrites the file as a completed checkpoint does: the consumer
// moves one snapshot on, up to latest+1, where a caught-up job waits and
// writes the same value again (a new modification time, the same content).
// It returns the value written.
func (l *LiveConsumer) Checkpoint(ctx context.Context) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.checkpoint(ctx)
}

func (l *LiveConsumer) checkpoint(ctx context.Context) (int64, error) {
	if l.next <= l.t.latest {
		l.next++
	}
	if err := l.t.bucket.WriteAll(ctx, l.key, paimon.ConsumerJSON(l.next), nil); err != nil {
		err = fmt.Errorf("paimontest: live consumer %s: write %s: %w", l.id, l.key, err)
		if l.err == nil {
			l.err = err
		}
		return l.next, err
	}
	l.checkpoints++
	return l.next, nil
}

// Before is a [blobtest.Options.Before] hook that makes the job checkpoint
// between any two looks at its file: before every read or attributes call
// on the consumer file but the first, the file is rewritten (Checkpoint).
// Wrap the table's bucket with it:
//
//	live := tb.LiveConsumer("job", 7)
//	b, _ := blobtest.Wrap(bucket, &blobtest.Options{Before: live.Before})
func (l *LiveConsumer) Before(ctx context.Context, c blobtest.Call, _ *blob.Bucket) {
	if c.Key != l.key || (c.Op != blobtest.OpRead && c.Op != blobtest.OpAttributes) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reads++
	if l.reads > 1 {
		_, _ = l.checkpoint(ctx) // recorded in l.err
	}
}
