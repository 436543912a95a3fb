package cli

import (
	"context"
	"flag"

	"github.com/resumekit/resumekit/kafkaoffset"
)

// kafkaFlags are resolve's Kafka group: the brokers and topics, resolved by
// a kafkaoffset.Resolver from the group's commits or a time; the brokers
// alone (with a Flink location) check the snapshots' Kafka offsets.
type kafkaFlags struct {
	brokers, topic, group   string
	isolation, commitSource string
	strict                  bool
	from                    timeFlag
	rewind, observe         durationFlag
}

func (k *kafkaFlags) register(fs *flag.FlagSet, _ *env) {
	fs.StringVar(&k.brokers, "kafka-brokers", "", "seed brokers, `H:P[,H:P]`")
	fs.StringVar(&k.topic, "kafka-topic", "", "topic(s) the job reads, `T[,T]`")
	fs.StringVar(&k.group, "kafka-group", "", "the group KafkaSource committed offsets to (its group.id); a salvaged start begins partitions the old job had not started at its commits")
	fs.Var(&k.from, "kafka-from", "start `TIME` for partitions without a commit (or all, without --kafka-group)")
	fs.Var(&k.rewind, "kafka-rewind", "like --kafka-from, as a `DUR` before now (e.g. 15m)")
	fs.Var(&k.observe, "kafka-observe", "watch the group's offsets this long (`DUR`) and fail if they move: the old job still runs")
	fs.StringVar(&k.isolation, "kafka-isolation", "", "the new job's isolation.level: read_committed (default: starts stay below open transactions) or read_uncommitted")
	fs.StringVar(&k.commitSource, "kafka-commit-source", "", "how the old job committed: checkpoint (default, assumed), auto (enable.auto.commit: data loss) or unknown (data loss)")
	fs.BoolVar(&k.strict, "kafka-strict", false, "grade as data loss what may be lost but cannot be shown (compacted topics further behind than delete.retention.ms)")
}

// names reports whether the command names a Kafka source.
func (k *kafkaFlags) names() bool { return k.brokers != "" || k.topic != "" }

// set reports whether any option of the topic's resolver was given
// (--kafka-group aside: it also serves a salvaged start).
func (k *kafkaFlags) set() bool {
	return k.from.set || k.rewind.d != 0 || k.observe.d != 0 || k.isolation != "" || k.commitSource != "" || k.strict
}

func (k *kafkaFlags) check(s sources) error {
	switch {
	case s.kafka && (k.brokers == "" || k.topic == "") && !(s.flink && k.brokers != ""):
		return usagef("resolve: --kafka-brokers and --kafka-topic go together (or --kafka-brokers alone with a Flink location, to check the snapshots' Kafka offsets)")
	case s.flink && k.topic == "" && k.brokers != "" && k.set():
		// --kafka-group alone serves the salvaged start: partitions the old
		// job had not started from its group's commit start at the commit.
		return usagef("resolve: --kafka-from, --kafka-rewind, --kafka-observe, --kafka-isolation, --kafka-commit-source and --kafka-strict need --kafka-topic")
	case k.from.set && k.rewind.d != 0:
		return usagef("resolve: --kafka-from and --kafka-rewind are exclusive")
	case s.kafka && k.topic != "" && k.group == "" && !k.from.set && k.rewind.d == 0:
		return usagef("resolve: Kafka needs --kafka-group, --kafka-from or --kafka-rewind")
	case !s.kafka && (k.group != "" || k.set()):
		return usagef("resolve: --kafka-group, --kafka-from, --kafka-rewind, --kafka-observe, --kafka-isolation, --kafka-commit-source and --kafka-strict need --kafka-brokers")
	}
	return nil
}

// build connects to the brokers (the live checkers' Kafka client) and,
// with a topic, builds its resolver.
func (k *kafkaFlags) build(_ context.Context, e *env, b *built) error {
	if k.brokers == "" {
		return nil
	}
	at := k.from.t
	if k.rewind.d != 0 {
		at = b.now().Add(-k.rewind.d)
	}
	cl, err := dialKafka(e, "--kafka-brokers", k.brokers)
	if err != nil {
		return err
	}
	b.closers = append(b.closers, cl.Close)
	b.kafka = cl
	if k.topic == "" {
		return nil
	}
	r, err := kafkaoffset.NewResolver(cl, splitComma(k.topic), &kafkaoffset.Options{
		Group: k.group, At: at, ObserveWindow: k.observe.d, Now: b.now,
		IsolationLevel: kafkaoffset.IsolationLevel(k.isolation), CommitSource: kafkaoffset.CommitSource(k.commitSource), Strict: k.strict,
		Sink: sinkOf(b, cl), SinkPrefix: b.sinkPrefix,
	})
	if err != nil {
		return usagef("resolve: %v", err)
	}
	b.stateless = append(b.stateless, r)
	return nil
}
