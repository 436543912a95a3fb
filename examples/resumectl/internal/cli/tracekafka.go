package cli

import (
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kafkaTrace is the tracer's view of one Kafka client's requests, through
// franz-go's hooks: a request is pending from the moment it was written to
// a broker until its response was read (or the read failed, or the
// connection closed), so a broker that accepts the connection and never
// answers shows as the request it was sent and its address, in the
// progress line and the timeout error, as a hanging store's call does.
type kafkaTrace struct {
	t   *tracer
	n   int // the tracer's number for this client, apart from the buckets'
	seq atomic.Int64
}

var (
	_ kgo.HookBrokerWrite      = (*kafkaTrace)(nil)
	_ kgo.HookBrokerRead       = (*kafkaTrace)(nil)
	_ kgo.HookBrokerDisconnect = (*kafkaTrace)(nil)
)

// kafkaHook returns the hook that follows a Kafka client's requests
// (kgo.WithHooks); nil for a nil tracer.
func (t *tracer) kafkaHook() kgo.Hook {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	t.buckets++
	n := t.buckets
	t.mu.Unlock()
	return &kafkaTrace{t: t, n: n}
}

// broker names a broker by its address (seeds have no node id of their
// own: their address is what was given).
func kafkaBroker(m kgo.BrokerMetadata) string {
	return "Kafka broker " + net.JoinHostPort(m.Host, strconv.Itoa(int(m.Port)))
}

// OnBrokerWrite makes a request written without error pending.
func (k *kafkaTrace) OnBrokerWrite(m kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err != nil {
		return
	}
	k.t.begin(callKey{k.n, k.seq.Add(1)}, traceCall{op: kmsg.NameForKey(key) + " request", at: kafkaBroker(m), kafkaKey: key + 1})
}

// OnBrokerRead ends the oldest pending request of that key to that
// broker: the response, or the failed read, arrived.
func (k *kafkaTrace) OnBrokerRead(m kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, _ error) {
	k.t.endKafka(k.n, kafkaBroker(m), key+1, false)
}

// OnBrokerDisconnect ends every request pending at that broker: its
// connection is gone.
func (k *kafkaTrace) OnBrokerDisconnect(m kgo.BrokerMetadata, _ net.Conn) {
	k.t.endKafka(k.n, kafkaBroker(m), 0, true)
}

// endKafka removes the oldest pending request of client n at broker at
// with key+1 kk, or, with all, every one at that broker.
func (t *tracer) endKafka(n int, at string, kk int16, all bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var oldest *callKey
	for ck, c := range t.inflight {
		if ck.bucket != n || c.at != at || (!all && c.kafkaKey != kk) {
			continue
		}
		if all {
			delete(t.inflight, ck)
			continue
		}
		if oldest == nil || ck.call < oldest.call {
			k := ck
			oldest = &k
		}
	}
	if oldest != nil {
		delete(t.inflight, *oldest)
	}
	if t.onEndKafka != nil {
		t.onEndKafka()
	}
}
