// Package ctxtime holds the one wait that a context ends early, for the
// resolvers' retries and observation windows (flinkckpt, kafkaoffset).
package ctxtime

import (
	"context"
	"time"
)

// Sleep waits d or until ctx is done; then it returns ctx.Err().
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
