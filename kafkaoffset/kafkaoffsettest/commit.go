package kafkaoffsettest

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/resumekit/resumekit/kafkaoffset"
)

// Commit commits offsets (partition → offset) of topic to group, as a
// Flink KafkaSource does when a checkpoint completes, stamped with
// Options.Now (the wall clock by default) in the commit log.
func (c *Cluster) Commit(group, topic string, offsets map[int32]int64) {
	c.t.Helper()
	c.CommitAt(c.now(), group, topic, offsets)
}

// CommitAt commits offsets of topic to group; with Options.CommitLog the
// OffsetCommit records in __consumer_offsets carry at as their commit time.
func (c *Cluster) CommitAt(at time.Time, group, topic string, offsets map[int32]int64) {
	c.t.Helper()
	os := make(kadm.Offsets)
	for p, o := range offsets {
		os.AddOffset(topic, p, o, -1)
	}
	resps, err := c.Admin.CommitOffsets(context.Background(), group, os)
	if err == nil {
		err = resps.Error()
	}
	if err != nil {
		c.t.Fatalf("kafkaoffsettest: commit %v of %s to group %q: %v", offsets, topic, group, err)
	}
	if c.logParts == 0 {
		return
	}
	recs := make([]Record, 0, len(offsets))
	for _, p := range slices.Sorted(maps.Keys(offsets)) {
		recs = append(recs, Record{Key: CommitKey(group, topic, p), Value: CommitValue(offsets[p], at), Time: at})
	}
	produceWith(c.t, c.prod, kafkaoffset.ConsumerOffsetsTopic, kafkaoffset.GroupPartition(group, c.logParts), recs)
}

// DeleteCommit writes the tombstone a broker writes to __consumer_offsets
// when a group's commit is deleted (expired, OffsetDelete); it changes
// nothing in kfake's own offsets. It needs Options.CommitLog.
func (c *Cluster) DeleteCommit(group, topic string, partition int32) {
	c.t.Helper()
	if c.logParts == 0 {
		c.t.Fatalf("kafkaoffsettest: DeleteCommit needs Options.CommitLog")
	}
	produceWith(c.t, c.prod, kafkaoffset.ConsumerOffsetsTopic, kafkaoffset.GroupPartition(group, c.logParts),
		[]Record{{Key: CommitKey(group, topic, partition), Time: c.now()}})
}

// CommitKey is the key of a group's OffsetCommit record in
// __consumer_offsets, as brokers write it (key version 1: group, topic,
// partition).
func CommitKey(group, topic string, partition int32) []byte {
	k := kmsg.NewOffsetCommitKey()
	k.Version = 1
	k.Group, k.Topic, k.Partition = group, topic, partition
	return k.AppendTo(nil)
}

// CommitValue is the value of an OffsetCommit record (value version 3:
// offset, leader epoch -1, empty metadata, commit time).
func CommitValue(offset int64, at time.Time) []byte {
	v := kmsg.NewOffsetCommitValue()
	v.Version = 3
	v.Offset = offset
	v.LeaderEpoch = -1
	v.CommitTimestamp = at.UnixMilli()
	return v.AppendTo(nil)
}

// JoinGroup makes one member join group through the classic group
// protocol, as another application using the same group id does (a Flink
// KafkaSource never joins: it uses assign()). The member stays until the
// test ends, then leaves. It returns the member id.
func (c *Cluster) JoinGroup(group string) string {
	c.t.Helper()
	ctx := context.Background()
	meta := kmsg.NewConsumerMemberMetadata()
	proto := kmsg.NewJoinGroupRequestProtocol()
	proto.Name = "range"
	proto.Metadata = meta.AppendTo(nil)
	join := kmsg.NewPtrJoinGroupRequest()
	join.Group = group
	join.SessionTimeoutMillis = 300_000
	join.RebalanceTimeoutMillis = 60_000
	join.ProtocolType = "consumer"
	join.Protocols = []kmsg.JoinGroupRequestProtocol{proto}
	var resp *kmsg.JoinGroupResponse
	for range 2 { // the first join only hands out a member id (KIP-394)
		var err error
		if resp, err = join.RequestWith(ctx, c.prod); err != nil {
			c.t.Fatalf("kafkaoffsettest: join group %q: %v", group, err)
		}
		if err := kerr.ErrorForCode(resp.ErrorCode); err != kerr.MemberIDRequired {
			if err != nil {
				c.t.Fatalf("kafkaoffsettest: join group %q: %v", group, err)
			}
			break
		}
		join.MemberID = resp.MemberID
	}
	assignment := kmsg.NewConsumerMemberAssignment()
	ga := kmsg.NewSyncGroupRequestGroupAssignment()
	ga.MemberID = resp.MemberID
	ga.MemberAssignment = assignment.AppendTo(nil)
	sync := kmsg.NewPtrSyncGroupRequest()
	sync.Group = group
	sync.Generation = resp.Generation
	sync.MemberID = resp.MemberID
	sync.ProtocolType = kmsg.StringPtr("consumer")
	sync.Protocol = resp.Protocol
	sync.GroupAssignment = []kmsg.SyncGroupRequestGroupAssignment{ga}
	sresp, err := sync.RequestWith(ctx, c.prod)
	if err == nil {
		err = kerr.ErrorForCode(sresp.ErrorCode)
	}
	if err != nil {
		c.t.Fatalf("kafkaoffsettest: sync group %q: %v", group, err)
	}
	member := resp.MemberID
	c.t.Cleanup(func() {
		leave := kmsg.NewPtrLeaveGroupRequest()
		leave.Group = group
		leave.MemberID = member
		m := kmsg.NewLeaveGroupRequestMember()
		m.MemberID = member
		leave.Members = []kmsg.LeaveGroupRequestMember{m}
		leave.RequestWith(context.Background(), c.prod) //nolint:errcheck // best effort: the cluster closes next
	})
	return member
}
