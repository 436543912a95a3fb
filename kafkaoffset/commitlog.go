package kafkaoffset

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/resumekit/resumekit/resume/redact"
)

// ConsumerOffsetsTopic is Kafka's internal topic that holds every group's
// commits, one OffsetCommit record per commit and partition. OffsetFetch
// answers from the coordinator's cache of it, without the commit time; the
// records carry it (commit_timestamp, the broker's clock when the commit
// arrived).
const ConsumerOffsetsTopic = "__consumer_offsets"

// GroupPartition returns the partition of __consumer_offsets that holds
// group's commits when the topic has n partitions (offsets.topic.num.partitions,
// 50 by default): Kafka's Utils.abs(groupId.hashCode()) % n, with Java's
// String.hashCode over the id's UTF-16 code units and Utils.abs mapping
// Integer.MIN_VALUE to 0. It returns -1 when n < 1.
func GroupPartition(group string, n int32) int32 {
	if n < 1 {
		return -1
	}
	var h int32
	for _, u := range utf16.Encode([]rune(group)) {
		h = 31*h + int32(u)
	}
	switch {
	case h == -1<<31:
		h = 0
	case h < 0:
		h = -h
	}
	return h % n
}

// commitRecord is one decoded OffsetCommit record of __consumer_offsets.
type commitRecord struct {
	group, topic string
	partition    int32
	// offset and commitMillis are -1 for a tombstone (the commit was
	// deleted: expired, OffsetDelete, or the topic deleted).
	offset, commitMillis int64
	tombstone            bool
}

// Record layouts (Kafka's OffsetCommitKey.json and OffsetCommitValue.json in
// group-coordinator/src/main/resources/common/message): the key starts with
// an int16 version, 0 and 1 being an offset commit (group, topic: int16
// length strings; partition: int32) and 2 and above other records (group
// metadata, KIP-848 consumer group records, share groups, …). The value is
// an int16 version 0-4: offset int64, leader_epoch int32 (v3+), metadata
// string (compact from v4, the first flexible version), commit_timestamp
// int64, expire_timestamp int64 (v1 only), tagged fields (v4+).
const (
	maxCommitKeyVersion   = 1
	maxCommitValueVersion = 4
)

// decodeCommitRecord decodes one __consumer_offsets record. ok is false for
// a record that is not an offset commit (its key version is 2 or above, or
// negative); err names what is wrong with an offset commit that does not
// decode. A nil value is a tombstone.
func decodeCommitRecord(key, value []byte) (rec commitRecord, ok bool, err error) {
	if len(key) < 2 {
		return rec, false, fmt.Errorf("commit record key of %d bytes: shorter than its version", len(key))
	}
	if v := int16(binary.BigEndian.Uint16(key)); v < 0 || v > maxCommitKeyVersion {
		return rec, false, nil
	}
	var k kmsg.OffsetCommitKey
	if err := k.ReadFrom(key); err != nil {
		return rec, false, fmt.Errorf("offset commit key (version %d): %w", k.Version, err)
	}
	if n := len(k.AppendTo(nil)); n != len(key) { // kmsg leaves trailing bytes unread
		return rec, false, fmt.Errorf("offset commit key (version %d) for group %s: %d bytes after the partition", k.Version, redact.Quote(k.Group), len(key)-n)
	}
	rec = commitRecord{group: k.Group, topic: k.Topic, partition: k.Partition, offset: -1, commitMillis: -1}
	if value == nil {
		rec.tombstone = true
		return rec, true, nil
	}
	if len(value) < 2 {
		return rec, false, fmt.Errorf("offset commit value of %d bytes for group %s %s/%d: shorter than its version", len(value), redact.Quote(k.Group), k.Topic, k.Partition)
	}
	if v := int16(binary.BigEndian.Uint16(value)); v < 0 || v > maxCommitValueVersion {
		return rec, false, fmt.Errorf("offset commit value for group %s %s/%d: unknown version %d (known: 0-%d)", redact.Quote(k.Group), k.Topic, k.Partition, v, maxCommitValueVersion)
	}
	var v kmsg.OffsetCommitValue
	if err := v.ReadFrom(value); err != nil {
		return rec, false, fmt.Errorf("offset commit value (version %d) for group %s %s/%d: %w", v.Version, redact.Quote(k.Group), k.Topic, k.Partition, err)
	}
	if n := len(v.AppendTo(nil)); n != len(value) {
		return rec, false, fmt.Errorf("offset commit value (version %d) for group %s %s/%d: %d bytes after the last field", v.Version, redact.Quote(k.Group), k.Topic, k.Partition, len(value)-n)
	}
	rec.offset, rec.commitMillis = v.Offset, v.CommitTimestamp
	return rec, true, nil
}

// commitLog is where the group's commit records live, as the metadata and
// the offset listings found it.
type commitLog struct {
	topicID    [16]byte
	partition  int32 // of __consumer_offsets; -1 when not known
	leader     int32
	start, end int64
	// err is why the log cannot be read (the topic is not visible to the
	// client, not materialised, or its partition could not be listed).
	err error
}

// Bounds of the commit log scan: at most commitLogMaxFetches Fetch requests
// of at most commitLogFetchBytes each, to the leader of the group's
// partition, reading back from the end in spans of commitLogFirstSpan
// offsets, doubling.
const (
	commitLogFetchBytes = 1 << 20
	commitLogMaxFetches = 8
	commitLogFirstSpan  = 1024
)

// readCommitTimes reads the newest commit record of each partition in ps
// that has a commit, from the end of the group's __consumer_offsets
// partition backwards, and sets CommitMillis (or CommitTimeErr, saying why
// not). It returns the partitions whose newest record holds another offset
// than OffsetFetch answered: the group committed while it was being looked
// at. Only a done ctx is an error.
func (r *Resolver) readCommitTimes(ctx context.Context, log *commitLog, ps []*PartitionOffsets) ([]string, error) {
	want := map[tp]*PartitionOffsets{}
	for _, p := range ps {
		if p.Err == nil && p.Committed >= 0 {
			want[p.key()] = p
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	if log.err != nil {
		for _, p := range want {
			p.CommitTimeErr = log.err
		}
		return nil, nil
	}

	found := map[tp]commitRecord{}
	var (
		fetches, scanned, bad int
		readErr               error
		exhausted             bool
		// hiddenFrom is the last stable offset of the partition when
		// the reading stopped there: a read_committed Fetch returns
		// nothing from an open transaction's first record on (another
		// application's sendOffsetsToTransaction), so newer records of
		// the group may sit above it. -1 when nothing was hidden.
		hiddenFrom = int64(-1)
	)
	top, span := log.end, int64(commitLogFirstSpan)
scan:
	for top > log.start && len(found) < len(want) {
		from := max(log.start, top-span)
		// A span counts only when read to its top: a key found low in a
		// span may have a newer record higher up.
		chunk := map[tp]commitRecord{}
		for off := from; off < top; {
			if fetches == r.logFetches {
				exhausted = true
				break scan
			}
			fetches++
			recs, next, lso, err := r.fetchCommitLog(ctx, log, off)
			if err != nil {
				if ctx.Err() != nil {
					return nil, fmt.Errorf("kafkaoffset: read %s: %w", ConsumerOffsetsTopic, ctx.Err())
				}
				readErr = err
				break scan
			}
			for _, rec := range recs {
				if rec.Offset >= top {
					break
				}
				scanned++
				cr, ok, err := decodeCommitRecord(rec.Key, rec.Value)
				if err != nil {
					bad++
					continue
				}
				k := tp{cr.topic, cr.partition}
				if !ok || cr.group != r.group || want[k] == nil {
					continue
				}
				if _, done := found[k]; !done {
					chunk[k] = cr // later records of the span overwrite earlier ones
				}
			}
			if next <= off && lso >= 0 && off >= lso {
				// The readable end: the span is read up to it.
				if hiddenFrom < 0 || lso < hiddenFrom {
					hiddenFrom = lso
				}
				break
			}
			if next <= off {
				readErr = fmt.Errorf("partition %d: no progress at offset %d", log.partition, off)
				break scan
			}
			off = next
		}
		for k, cr := range chunk {
			found[k] = cr
		}
		top, span = from, span*2
	}

	where := fmt.Sprintf("%s partition %d", ConsumerOffsetsTopic, log.partition)
	hidden := ""
	if hiddenFrom >= 0 {
		hidden = fmt.Sprintf("in %s the records from offset %d on (end %d) are behind an open transaction, which a read_committed Fetch does not pass, and may hold a newer commit", where, hiddenFrom, log.end)
	}
	var moved []string
	for k, p := range want {
		p.commitsHidden = hidden
		cr, ok := found[k]
		switch {
		case ok && hidden != "" && (cr.tombstone || cr.offset != p.Committed):
			// Not proof of a commit during the lookup: the newest
			// record may be the hidden one.
			p.CommitTimeErr = fmt.Errorf("the newest commit record read holds another offset than OffsetFetch answered (%d), and %s", p.Committed, hidden)
		case ok && cr.tombstone:
			p.CommitTimeErr = fmt.Errorf("%s: the newest commit record is a tombstone (the offset was deleted), yet OffsetFetch answered %d", where, p.Committed)
		case ok && cr.offset != p.Committed:
			moved = append(moved, fmt.Sprintf("%s %d→%d", p.name(), p.Committed, cr.offset))
		case ok:
			p.CommitMillis = cr.commitMillis
		case readErr != nil:
			p.CommitTimeErr = fmt.Errorf("%s: %w", where, readErr)
		case hidden != "":
			p.CommitTimeErr = fmt.Errorf("no commit record below offset %d, and %s", hiddenFrom, hidden)
		case exhausted:
			p.CommitTimeErr = fmt.Errorf("%s: no commit record in the newest %d records read (%d Fetch requests, the most it reads)", where, scanned, fetches)
		default:
			p.CommitTimeErr = fmt.Errorf("%s: no commit record in its %d records", where, scanned)
		}
		if p.CommitTimeErr != nil && bad > 0 {
			p.CommitTimeErr = fmt.Errorf("%w (%d records did not decode)", p.CommitTimeErr, bad)
		}
	}
	return moved, nil
}

// fetchCommitLog reads from offset off of the group's partition with one
// Fetch request (read_committed: aborted transactional offset commits are
// dropped) and returns the records, the offset after the last batch that
// came back whole, and the partition's last stable offset (-1 when the
// broker did not say), past which read_committed returns nothing.
func (r *Resolver) fetchCommitLog(ctx context.Context, log *commitLog, off int64) ([]*kgo.Record, int64, int64, error) {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = 0
	req.MinBytes = 0
	req.MaxBytes = commitLogFetchBytes
	req.IsolationLevel = 1
	req.SessionEpoch = -1
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic = ConsumerOffsetsTopic
	rt.TopicID = log.topicID
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition = log.partition
	rp.FetchOffset = off
	rp.PartitionMaxBytes = commitLogFetchBytes
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	kresp, err := r.cl.Broker(int(log.leader)).Request(ctx, req)
	if err != nil {
		return nil, off, -1, fmt.Errorf("partition %d: fetch from broker %d: %w", log.partition, log.leader, err)
	}
	resp := kresp.(*kmsg.FetchResponse)
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, off, -1, fmt.Errorf("partition %d: fetch: %w", log.partition, err)
	}
	for i := range resp.Topics {
		for j := range resp.Topics[i].Partitions {
			rp := &resp.Topics[i].Partitions[j]
			if rp.Partition != log.partition {
				continue
			}
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
				return nil, off, -1, fmt.Errorf("partition %d: fetch at %d: %w", log.partition, off, err)
			}
			fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{
				KeepControlRecords: true,
				Offset:             off,
				Topic:              ConsumerOffsetsTopic,
				Partition:          rp.Partition,
				IsolationLevel:     kgo.ReadCommitted(),
			}, rp, kgo.DefaultDecompressor(), nil)
			if fp.Err != nil {
				return nil, off, -1, fmt.Errorf("partition %d: fetch at %d: %w", log.partition, off, fp.Err)
			}
			return fp.Records, batchesEnd(rp.RecordBatches, off), rp.LastStableOffset, nil
		}
	}
	return nil, off, -1, errors.New("no answer for the partition")
}

// batchesEnd walks the headers of the record batches in raw and returns the
// offset after the last whole batch, or off when none is whole. A v2 batch
// (magic 2 at byte 16) has its last offset delta at byte 23; an old message
// set entry (magic 0 or 1) carries its last offset as its own (a compressed
// wrapper's offset is its last inner one). Aborted and control batches
// count: they are read past, not returned.
func batchesEnd(raw []byte, off int64) int64 {
	next := off
	for len(raw) >= 17 {
		base := int64(binary.BigEndian.Uint64(raw))
		length := int64(int32(binary.BigEndian.Uint32(raw[8:])))
		if length < 5 || 12+length > int64(len(raw)) {
			break
		}
		last := base
		if raw[16] >= 2 {
			if length < 15 {
				break
			}
			last += int64(int32(binary.BigEndian.Uint32(raw[23:])))
		}
		if last+1 > next {
			next = last + 1
		}
		raw = raw[12+length:]
	}
	return next
}
