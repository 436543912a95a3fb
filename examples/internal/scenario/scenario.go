// Package scenario builds the three restart situations resumekit's users
// meet — a Paimon streaming job whose savepoint was lost, a Flink CDC job
// after a JobManager crash, a stateless Kafka job redeployed — with real file
// formats in a bucket and real Kafka protocol in an in-process kfake cluster.
// resumectl demo and the programs in examples/ use it; every time in it is
// fixed relative to Now, so their output is deterministic.
package scenario

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gocloud.dev/blob"
)

// Now is the story's "now": the moment someone restarts the jobs.
var Now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// Env is where a scenario is built.
type Env struct {
	// Bucket receives every file.
	Bucket *blob.Bucket
	// Root is the Flink file-system URI of the bucket's key "" (e.g.
	// "file:///tmp/demo/" for a fileblob bucket on /tmp/demo), used for the
	// absolute paths Flink writes into _metadata.
	Root string
	// Touch sets an object's modification time (os.Chtimes for a local directory,
	// blobtest.Recorder.SetModTime for memblob): Flink's _metadata holds no
	// time, and Paimon consumer files are judged by theirs.
	Touch func(key string, t time.Time) error
}

func (e *Env) touch(key string, t time.Time) error {
	if e.Touch == nil {
		return errors.New("scenario: Env.Touch is nil")
	}
	if err := e.Touch(key, t); err != nil {
		return fmt.Errorf("scenario: set the time of %s: %w", key, err)
	}
	return nil
}

var ctxBackground = context.Background
