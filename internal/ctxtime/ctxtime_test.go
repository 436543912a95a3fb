package ctxtime

import (
	"context"
	"errors"
	"testing"
)

func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// Centuries: only the cancelled context can end it within the test.
	if err := Sleep(ctx, 1<<62); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep after cancel = %v, want context.Canceled", err)
	}
}
