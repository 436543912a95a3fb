package kafkaoffset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

var _ livecheck.KafkaTransactions = Log{}

// DescribeTransactions describes the transactional ids ids in one kadm
// call: one FindCoordinator batch and one DescribeTransactions request per
// coordinator broker. An id the coordinator does not know
// (TRANSACTIONAL_ID_NOT_FOUND) is left out; any other error of an id, or a
// broker that did not answer, is an error naming it: never an unknown
// passed off as an answer.
func (l Log) DescribeTransactions(ctx context.Context, ids []string) (map[string]livecheck.KafkaTxn, error) {
	if len(ids) == 0 {
		return map[string]livecheck.KafkaTxn{}, nil
	}
	d, err := kadm.NewClient(l.Client).DescribeTransactions(ctx, ids...)
	if err != nil {
		return nil, fmt.Errorf("kafkaoffset: describe transactions: %w", err)
	}
	out := make(map[string]livecheck.KafkaTxn, len(ids))
	var errs []error
	for _, id := range ids {
		t, ok := d[id]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("transactional id %s: no broker answered for it", id))
			continue
		case errors.Is(t.Err, kerr.TransactionalIDNotFound):
			continue
		case t.Err != nil:
			errs = append(errs, fmt.Errorf("transactional id %s: %w", id, t.Err))
			continue
		}
		k := livecheck.KafkaTxn{TransactionalID: id, State: t.State, ProducerID: t.ProducerID, Epoch: t.ProducerEpoch,
			Timeout: time.Duration(t.TimeoutMillis) * time.Millisecond}
		if t.StartTimestamp >= 0 {
			k.Start = time.UnixMilli(t.StartTimestamp).UTC()
		}
		for _, tp := range t.Topics.Sorted() {
			for _, p := range tp.Partitions {
				k.Partitions = append(k.Partitions, fmt.Sprintf("%s/%d", tp.Topic, p))
			}
		}
		out[id] = k
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("kafkaoffset: describe transactions: %w", errors.Join(errs...))
	}
	return out, nil
}

// ListTransactions lists the transactional ids that start with prefix
// (ListTransactions on every broker), sorted. A broker that did not answer
// is an error.
func (l Log) ListTransactions(ctx context.Context, prefix string) ([]string, error) {
	ls, err := kadm.NewClient(l.Client).ListTransactions(ctx, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("kafkaoffset: list transactions: %w", err)
	}
	var out []string
	for id := range ls {
		if strings.HasPrefix(id, prefix) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out, nil
}

// checkSink asks the KafkaSink's brokers for its transactions under the
// prefix (Options.Sink, Options.SinkPrefix): one still open, or aborted
// after the group's last commit (the candidate's At; any when unknown),
// holds output the old job had not committed, which a start at the
// group's commits never commits: data loss, named. kfake answers Empty
// after an abort and keeps no start time: such an id is not counted.
func (r *Resolver) checkSink(ctx context.Context, c *resume.Candidate) error {
	if r.sink == nil || r.sinkPrefix == "" || r.group == "" {
		return nil
	}
	ids, err := r.sink.ListTransactions(ctx, r.sinkPrefix)
	if err != nil {
		return fmt.Errorf("kafkaoffset: KafkaSink transactions %s*: %w", r.sinkPrefix, err)
	}
	if len(ids) == 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("the KafkaSink's brokers list no transaction under transactional id prefix %s", r.sinkPrefix))
		return nil
	}
	got, err := r.sink.DescribeTransactions(ctx, ids)
	if err != nil {
		return fmt.Errorf("kafkaoffset: KafkaSink transactions %s*: %w", r.sinkPrefix, err)
	}
	var bad []string
	for _, id := range ids {
		t, ok := got[id]
		if !ok {
			continue
		}
		desc := fmt.Sprintf("%s (%s, producer id %d, epoch %d", id, t.State, t.ProducerID, t.Epoch)
		if !t.Start.IsZero() {
			desc += ", since " + t.Start.Format(time.RFC3339Nano)
		}
		if len(t.Partitions) > 0 {
			desc += ", writing " + strings.Join(t.Partitions, ", ")
		}
		desc += ")"
		switch t.State {
		case "Ongoing", "PrepareCommit", "PrepareAbort":
			bad = append(bad, desc+": still open, never committed by a stateless start")
		case "CompleteAbort":
			if c.At.IsZero() || t.Start.IsZero() || !t.Start.Before(c.At) {
				bad = append(bad, desc+": aborted after the group's last commit")
			}
		}
	}
	if len(bad) == 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("the KafkaSink's %d transaction(s) under prefix %s are neither open nor aborted since the group's last commit", len(ids), r.sinkPrefix))
		return nil
	}
	c.Warnings = append(c.Warnings, resume.Warnf(WarnSinkTransactions, "data loss possible: the KafkaSink's transactions under prefix %s hold output the old job had not committed: %s; a start at group %s's commits reads past the records that produced it and never commits it", r.sinkPrefix, strings.Join(bad, "; "), r.group))
	c.Guarantee = resume.DataLoss
	return nil
}
