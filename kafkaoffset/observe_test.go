package kafkaoffset_test

import (
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// observer counts requests of one key per broker with kfake's observing
// faults (they let the request through).
type observer struct {
	perNode map[int32]*kfake.FaultHandle
}

func observe(e *env, key kmsg.Key) *observer {
	o := &observer{perNode: map[int32]*kfake.FaultHandle{}}
	for n := range e.c.ListenAddrs() {
		node := int32(n)
		o.perNode[node] = e.c.Fault(kfake.Fault{Keys: []kmsg.Key{key}, Nodes: []int32{node}, Observe: true, Count: -1, TopLevel: topLevel(key)})
	}
	return o
}

// topLevel: OffsetFetch carries no partitions when it asks for every topic
// of a group, so it is counted at the top level.
func topLevel(key kmsg.Key) bool { return key == kmsg.OffsetFetch }

func observeListOffsets(e *env) *observer { return observe(e, kmsg.ListOffsets) }

func (o *observer) total() int {
	n := 0
	for _, h := range o.perNode {
		n += h.Hits()
	}
	return n
}

func (o *observer) max() int {
	m := 0
	for _, h := range o.perNode {
		m = max(m, h.Hits())
	}
	return m
}

func (o *observer) remove() {
	for _, h := range o.perNode {
		h.Remove()
	}
}

func (o *observer) snapshot() map[int32]int {
	s := map[int32]int{}
	for n, h := range o.perNode {
		s[n] = h.Hits()
	}
	return s
}

// maxSince is the most requests one broker got since the snapshot.
func (o *observer) maxSince(s map[int32]int) int {
	m := 0
	for n, h := range o.perNode {
		m = max(m, h.Hits()-s[n])
	}
	return m
}
