package scenario

import (
	"time"

	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// Paimon is the streaming job that read table shop.db/orders with consumer-id
// "orders-enrich" and lost its savepoint in a refactor.
type Paimon struct {
	// TablePath is the table's key prefix in the bucket.
	TablePath string
	// Consumer is the old job's consumer-id (its file exists).
	Consumer string
	// NewConsumer is a consumer-id the old job did not use (no file).
	NewConsumer string
	// StoppedAbout is when the old job is believed to have stopped; a job
	// without a consumer restarts by time from a little before it.
	StoppedAbout time.Time
}

// BuildPaimon writes table shop.db/orders: snapshots 1–60 committed one a
// minute from 11:00 (snapshot n at 11:00+(n-1) min), 1–20 already expired,
// consumer.expiration-time 1 d, and consumer "orders-enrich" at nextSnapshot
// 58 written at 11:56:30 (it consumed snapshot 57, committed at 11:56).
func BuildPaimon(e *Env, prefix string) (*Paimon, error) {
	p := &Paimon{
		TablePath:    prefix + "warehouse/shop.db/orders",
		Consumer:     "orders-enrich",
		NewConsumer:  "orders-enrich-v2",
		StoppedAbout: Now.Add(-10 * time.Minute),
	}
	start := Now.Add(-time.Hour)
	// paimontest fails through a TB, as in a test; resumetest.Run turns
	// that into an error for a program.
	err := resumetest.Run(func(t resumetest.TB) {
		tb := paimontest.New(t, e.Bucket, p.TablePath).
			Schema(map[string]string{"consumer.expiration-time": "1 d", "bucket": "4"}).
			CommitEvery(60, start, time.Minute).
			ExpireBefore(21).
			Consumer(p.Consumer, 58)
		if err := e.touch(tb.Key("consumer/consumer-"+p.Consumer), start.Add(56*time.Minute+30*time.Second)); err != nil {
			t.Fatalf("%v", err)
		}
	})
	return p, err
}
