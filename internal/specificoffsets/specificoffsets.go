// Package specificoffsets is the one home of the Flink Kafka connector's
// scan.startup.specific-offsets format, "partition:0,offset:42;partition:1,offset:300",
// which kafkaoffset (committed offsets, offsets by time) and flinkckpt/salvage
// (offsets recorded in a snapshot) both write and kafkaoffset reads.
package specificoffsets

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/resumekit/resumekit/resume/redact"
)

// Entry renders one partition's offset: "partition:<p>,offset:<o>".
func Entry(partition int32, offset int64) string {
	return "partition:" + strconv.FormatInt(int64(partition), 10) + ",offset:" + strconv.FormatInt(offset, 10)
}

// Format renders the entries of items, in order, separated by ';'; at
// gives an item's partition and offset.
func Format[T any](items []T, at func(T) (partition int32, offset int64)) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(Entry(at(it)))
	}
	return b.String()
}

// Parse reads a value into partition → offset. Like Flink, it accepts an
// optional trailing ';' and refuses anything else that does not match:
// negative or duplicate partitions, negative offsets, and numbers out of
// range. Its errors name the entry; callers prefix their package.
func Parse(s string) (map[int32]int64, error) {
	out := map[int32]int64{}
	s = strings.TrimSuffix(s, ";")
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty specific offsets")
	}
	for i, pair := range strings.Split(s, ";") {
		ps, os, ok := strings.Cut(strings.TrimSpace(pair), ",")
		pv, okp := strings.CutPrefix(strings.TrimSpace(ps), "partition:")
		ov, oko := strings.CutPrefix(strings.TrimSpace(os), "offset:")
		if !ok || !okp || !oko {
			return nil, fmt.Errorf("specific offsets entry %d %s: want partition:<n>,offset:<n>", i, redact.Quote(pair))
		}
		p, err := strconv.ParseInt(pv, 10, 32)
		if err != nil || p < 0 {
			return nil, fmt.Errorf("specific offsets entry %d %s: bad partition", i, redact.Quote(pair))
		}
		o, err := strconv.ParseInt(ov, 10, 64)
		if err != nil || o < 0 {
			return nil, fmt.Errorf("specific offsets entry %d %s: bad offset", i, redact.Quote(pair))
		}
		if _, dup := out[int32(p)]; dup {
			return nil, fmt.Errorf("specific offsets entry %d %s: partition %d given twice", i, redact.Quote(pair), p)
		}
		out[int32(p)] = o
	}
	return out, nil
}
