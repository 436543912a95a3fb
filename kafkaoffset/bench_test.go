package kafkaoffset_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
)

// benchEnv is a 3-broker cluster whose topics have a few records in every
// tenth partition and a commit on every other partition; with commitLog the
// commits are in __consumer_offsets too (50 partitions).
func benchEnv(b *testing.B, parts int32, topics []string, commitLog bool) *env {
	var tps []kafkaoffsettest.Topic
	for _, t := range topics {
		tps = append(tps, kafkaoffsettest.Topic{Name: t, Partitions: parts})
	}
	k := kafkaoffsettest.New(b, &kafkaoffsettest.Options{Brokers: 3, Topics: tps, CommitLog: commitLog})
	for _, t := range topics {
		offs := map[int32]int64{}
		for p := int32(0); p < parts; p++ {
			if p%10 == 0 {
				k.Produce(t, p, base, base.Add(time.Second), base.Add(2*time.Second))
			}
			if p%2 == 0 {
				offs[p] = 0
				if p%10 == 0 {
					offs[p] = 2
				}
			}
		}
		k.CommitAt(base.Add(time.Minute), "job", t, offs)
	}
	return &env{c: k.Kafka, cl: k.Client, adm: k.Admin}
}

// naiveList is what a script calling the admin API per partition does: one
// ListOffsets request per partition and per question (end, log start, by
// time).
func naiveList(ctx context.Context, cl *kgo.Client, topics []string, parts int32, at int64) error {
	for _, t := range topics {
		for p := int32(0); p < parts; p++ {
			for _, ts := range []int64{-1, -2, at} {
				req := kmsg.NewPtrListOffsetsRequest()
				req.ReplicaID = -1
				rt := kmsg.NewListOffsetsRequestTopic()
				rt.Topic = t
				rp := kmsg.NewListOffsetsRequestTopicPartition()
				rp.Partition, rp.Timestamp = p, ts
				rt.Partitions = append(rt.Partitions, rp)
				req.Topics = append(req.Topics, rt)
				resp, err := req.RequestWith(ctx, cl)
				if err != nil {
					return err
				}
				if err := kerr.ErrorForCode(resp.Topics[0].Partitions[0].ErrorCode); err != nil {
					return fmt.Errorf("%s/%d: %w", t, p, err)
				}
			}
		}
	}
	return nil
}

// BenchmarkResolve resolves a group with a time fallback over 1,000
// partitions (one topic, and ten topics of 100; and one topic with the
// group's commit records in __consumer_offsets) on three brokers, side by
// side with one ListOffsets request per partition. It reports requests per
// resolve (ListOffsets: the most any broker got, and the total; OffsetFetch;
// DescribeGroups; DescribeConfigs; Fetch for commit records or record
// times; Metadata), allocations (the in-process kfake brokers' included),
// and how many times slower the naive listing is.
func BenchmarkResolve(b *testing.B) {
	ten := make([]string, 10)
	for i := range ten {
		ten[i] = fmt.Sprintf("t%d", i)
	}
	for _, bc := range []struct {
		name      string
		parts     int32
		topics    []string
		commitLog bool
	}{
		{"1x1000", 1000, []string{"t"}, false},
		{"10x100", 100, ten, false},
		{"1x1000-commit-log", 1000, []string{"t"}, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := benchEnv(b, bc.parts, bc.topics, bc.commitLog)
			ctx := context.Background()
			r, err := kafkaoffset.NewResolver(e.cl, bc.topics, &kafkaoffset.Options{Group: "job", At: base.Add(time.Second)})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := r.Resolve(ctx); err != nil { // warm the client's metadata
				b.Fatal(err)
			}
			lo, of, fe, md := observe(e, kmsg.ListOffsets), observe(e, kmsg.OffsetFetch), observe(e, kmsg.Fetch), observe(e, kmsg.Metadata)
			dg, dc := observe(e, kmsg.DescribeGroups), observe(e, kmsg.DescribeConfigs)
			var ours, naive time.Duration
			loMax := 0
			b.ReportAllocs()
			b.ResetTimer()
			n := 0
			for b.Loop() {
				n++
				before := lo.snapshot()
				start := time.Now()
				if _, err := r.Resolve(ctx); err != nil {
					b.Fatal(err)
				}
				ours += time.Since(start)
				loMax = max(loMax, lo.maxSince(before))
			}
			b.StopTimer()
			b.ReportMetric(float64(loMax), "ListOffsets/broker")
			b.ReportMetric(float64(lo.total())/float64(n), "ListOffsets/op")
			b.ReportMetric(float64(of.total())/float64(n), "OffsetFetch/op")
			b.ReportMetric(float64(dg.total())/float64(n), "DescribeGroups/op")
			b.ReportMetric(float64(dc.total())/float64(n), "DescribeConfigs/op")
			b.ReportMetric(float64(fe.total())/float64(n), "Fetch/op")
			b.ReportMetric(float64(md.total())/float64(n), "Metadata/op")
			md.remove()
			dg.remove()
			dc.remove()
			lo.remove()
			of.remove()
			fe.remove()

			// The naive way, a few rounds (it is slow), outside the timer.
			naiveObs := observeListOffsets(e)
			const rounds = 2
			for range rounds {
				start := time.Now()
				if err := naiveList(ctx, e.cl, bc.topics, bc.parts, base.Add(time.Second).UnixMilli()); err != nil {
					b.Fatal(err)
				}
				naive += time.Since(start)
			}
			b.ReportMetric(float64(naiveObs.total())/rounds, "naive-ListOffsets/op")
			perOurs := float64(ours) / float64(n)
			perNaive := float64(naive) / rounds
			b.ReportMetric(perNaive/1e6, "naive-ms/op")
			b.ReportMetric(perNaive/perOurs, "naive/ours")
		})
	}
}
