package kafkaoffset_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
)

// joinConsumerProtocol makes a kgo consumer join group on the KIP-848
// `consumer` protocol (ConsumerGroupHeartbeat, the server assigns) and
// returns once it has partitions assigned.
func joinConsumerProtocol(t *testing.T, k *kafkaoffsettest.Cluster, group, topic string) {
	t.Helper()
	assigned := make(chan struct{})
	var once sync.Once
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(k.Addrs()...),
		kgo.ClientID("other-app"),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.Balancers(kgo.RangeBalancer()),
		kgo.ServerSideBalancer(),
		kgo.DisableAutoCommit(),
		kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) {
			once.Do(func() { close(assigned) })
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			cl.PollFetches(ctx)
		}
	}()
	t.Cleanup(func() { cancel(); <-done; cl.Close() })
	select {
	case <-assigned:
	case <-t.Context().Done():
		t.Fatal("the consumer-protocol member was never assigned")
	}
}

// TestResolveGroupWithConsumerProtocolMembers (issue 33 item 5): a group on
// the KIP-848 `consumer` protocol shows no members to the classic
// DescribeGroups; its members are found with ConsumerGroupDescribe, and
// the group is refused as shared with another application, for a resolve
// and for a reset alike.
func TestResolveGroupWithConsumerProtocolMembers(t *testing.T) {
	k := commitTimesCluster(t, false, 0)
	joinConsumerProtocol(t, k, "job", "t")
	dg, err := k.Admin.DescribeGroups(context.Background(), "job")
	if err != nil {
		t.Fatal(err)
	}
	if g := dg["job"]; len(g.Members) != 0 {
		t.Fatalf("the classic DescribeGroups shows %d members; the test needs a group it cannot see", len(g.Members))
	}
	_, err = newResolver(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "job", At: base}).Resolve(context.Background())
	var gm *kafkaoffset.GroupMembersError
	if !errors.As(err, &gm) || !errors.Is(err, kafkaoffset.ErrGroupNotEmpty) {
		t.Fatalf("err = %v, want a *GroupMembersError", err)
	}
	if gm.Group != "job" || len(gm.Members) != 1 || !strings.HasPrefix(gm.Members[0], "other-app@") || !strings.Contains(err.Error(), "consumer protocol") {
		t.Errorf("err = %v (%+v)", err, gm)
	}
	_, err = kafkaoffset.ResetGroup(context.Background(), k.Client, "job", &kafkaoffset.Position{Topics: []string{"t"}, Partitions: []kafkaoffset.Partition{{Topic: "t", Partition: 0, Offset: 1}}}, false)
	if !errors.As(err, &gm) || !gm.Reset {
		t.Errorf("reset: err = %v, want a *GroupMembersError", err)
	}
}

// TestGroupMembersBeforeConsumerProtocol: a client (or broker) that
// predates ConsumerGroupDescribe (Kafka 3.6) describes an unknown group as
// Dead without an error; the consumer-protocol check it cannot ask is not
// an error: such a cluster has no consumer-protocol groups.
func TestGroupMembersBeforeConsumerProtocol(t *testing.T) {
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{{Name: "t"}}, ClientOpts: []kgo.Opt{kgo.MaxVersions(kversion.V3_6_0())}})
	k.Produce("t", 0, base, base)
	if _, err := newResolver(t, k.Client, []string{"t"}, &kafkaoffset.Options{Group: "nobody", At: base}).Resolve(context.Background()); err != nil {
		t.Fatalf("a 3.6 client: %v", err)
	}
}
