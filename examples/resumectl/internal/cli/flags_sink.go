package cli

import (
	"context"
	"flag"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// sinkFlags are resolve's sink group: the KafkaSink the snapshots'
// committers wrote to, when its cluster is not --kafka-brokers', its
// transaction timeout when nobody is asked, and its transactional id
// prefix. Its build adds them to the one set of live checkers (built.live)
// the restore and the salvage path check against.
type sinkFlags struct {
	brokers, prefix string
	// topics are the KafkaSink's topics (--kafka-sink-topic).
	topics  string
	timeout durationFlag
	// paimonTable is the table a Paimon sink writes (--paimon-sink-table).
	paimonTable string
}

func (s *sinkFlags) register(fs *flag.FlagSet, _ *env) {
	fs.StringVar(&s.brokers, "kafka-sink-brokers", "", "the KafkaSink's brokers (`H:P[,H:P]`) when it writes to another cluster than --kafka-brokers: asked (DescribeTransactions) what became of the transactions a snapshot's committer holds")
	fs.Var(&s.timeout, "kafka-sink-transaction-timeout", "the KafkaSink's transaction timeout (`DUR`) assumed when no broker is asked (default 15m, the broker's transaction.max.timeout.ms): the deadline of a flink.sink-not-checked warning")
	fs.StringVar(&s.prefix, "kafka-sink-transactional-id-prefix", "", "the KafkaSink's transactional id `PREFIX` (setTransactionalIdPrefix): the start at --kafka-group's commits lists its transactions (ListTransactions, DescribeTransactions) and is data-loss when one is still open or was aborted after the last commit")
	fs.StringVar(&s.topics, "kafka-sink-topic", "", "the topics (`TOPIC[,TOPIC]`) the KafkaSink writes: a lost transaction whose partitions the broker no longer lists (a completed abort clears them) is reported as writing partitions of these")
	fs.StringVar(&s.paimonTable, "paimon-sink-table", "", "the table (`URL`) a Paimon sink writes: a snapshot's Paimon committer's pending checkpoints are decided from its snapshots by commit user (Paimon's own rule)")
}

// set reports whether any of the group's flags was given.
func (s *sinkFlags) set() bool {
	return s.brokers != "" || s.prefix != "" || s.timeout.d != 0 || s.paimonTable != "" || s.topics != ""
}

func (s *sinkFlags) check(src sources) error {
	switch {
	case s.paimonTable != "" && !src.flink:
		return usagef("resolve: --paimon-sink-table needs --flink-checkpoints or --flink-savepoints (the committer state is in the snapshots)")
	case s.set() && !src.flink && !src.kafka:
		return usagef("resolve: --kafka-sink-brokers, --kafka-sink-topic, --kafka-sink-transaction-timeout and --kafka-sink-transactional-id-prefix need --flink-checkpoints, --flink-savepoints or --kafka-topic")
	case s.timeout.d < 0:
		return usagef("resolve: --kafka-sink-transaction-timeout: negative")
	}
	return nil
}

// build dials the sink's brokers and records the sink's settings in b,
// before the Kafka group (its stateless start asks the sink's
// transactions under the prefix) and the live group (the one checker set
// takes them) build.
func (s *sinkFlags) build(ctx context.Context, e *env, b *built) error {
	if !s.set() {
		return nil
	}
	b.sinkSet, b.sinkTimeout, b.sinkPrefix = true, s.timeout.d, s.prefix
	for _, t := range strings.Split(s.topics, ",") {
		if t = strings.TrimSpace(t); t != "" {
			b.sinkTopics = append(b.sinkTopics, t)
		}
	}
	if s.paimonTable != "" {
		t, closeTable, err := openPaimon(ctx, e, s.paimonTable, "")
		if err != nil {
			return err
		}
		b.closers = append(b.closers, closeTable)
		b.paimonSink = t
	}
	if s.brokers == "" {
		return nil
	}
	cl, err := dialKafka(e, "--kafka-sink-brokers", s.brokers)
	if err != nil {
		return err
	}
	b.closers = append(b.closers, cl.Close)
	b.sink = kafkaoffset.Log{Client: cl}
	return nil
}

// sinkOf is the checker of the KafkaSink's transactions: its own brokers
// (--kafka-sink-brokers), else the Kafka group's cluster cl.
func sinkOf(b *built, cl *kgo.Client) livecheck.KafkaTransactions {
	if b.sink != nil {
		return b.sink
	}
	return kafkaoffset.Log{Client: cl}
}
