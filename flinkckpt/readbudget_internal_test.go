package flinkckpt

import (
	"context"
	"errors"
	"testing"
)

// TestReadBudget: a _metadata larger than the budget is read alone (it
// takes the whole budget and waits for nothing else), and a read waiting
// for the budget gives up with its context.
func TestReadBudget(t *testing.T) {
	release, err := acquireRead(context.Background(), 3*MetadataReadBudget)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := acquireRead(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("while the budget is taken: %v, want context.Canceled", err)
	}
	release()
	r1, err := acquireRead(context.Background(), MetadataReadBudget/2)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := acquireRead(context.Background(), 0) // an empty file still counts one byte
	if err != nil {
		t.Fatal(err)
	}
	r1()
	r2()
	if !readBudget.TryAcquire(MetadataReadBudget) {
		t.Fatal("budget not all released")
	}
	readBudget.Release(MetadataReadBudget)
}
