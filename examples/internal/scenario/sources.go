package scenario

import (
	"time"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
)

// Sources is a savepoint of a job that read Kafka topic "orders" and the
// Paimon table shop.db/orders, taken before a refactor that made its state
// unusable: the positions in it are what a stateless restart salvages.
type Sources struct {
	// Savepoints is the savepoint directory's key prefix; Savepoint the
	// savepoint's dir key.
	Savepoints, Savepoint string
}

// BuildSources writes <prefix>sp-sources/savepoint-5e1f00-000000000001/
// (_metadata v5, checkpoint 77, 11:45): a KafkaSource (uid "orders-source") whose
// readers were at offsets 40, 41 and 42 of "orders" (BuildKafka's topic;
// after its Retention, partition 2 has lost offsets 42..53), and Paimon's
// MonitorSource (uid "orders-monitor") whose next snapshot was 15
// (BuildPaimon's table has expired 1..20).
func BuildSources(e *Env, prefix string) (*Sources, error) {
	s := &Sources{Savepoints: prefix + "sp-sources/"}
	l := &flinkckpttest.Layout{Bucket: e.Bucket, Prefix: s.Savepoints, Root: e.Root}
	w, err := l.Savepoint(ctxBackground(), "savepoint-5e1f00-000000000001", 77, &flinkckpttest.Checkpoint{Version: 5,
		Sources: []flinkckpttest.Source{
			flinkckpttest.KafkaSource("orders-source", "orders", 40, 41, 42),
			flinkckpttest.MonitorSource("orders-monitor", 15),
		}})
	if err != nil {
		return nil, err
	}
	s.Savepoint = w.Dir
	return s, e.touch(w.Dir+"_metadata", Now.Add(-15*time.Minute))
}
