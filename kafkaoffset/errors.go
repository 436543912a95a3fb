package kafkaoffset

import (
	"errors"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
)

// ErrCommitAboveEnd is wrapped by the error of a partition whose committed
// offset is above its end offset: the topic was truncated, or deleted and
// recreated, and the commit belongs to data that no longer exists. Check it
// with errors.Is.
var ErrCommitAboveEnd = errors.New("kafkaoffset: committed offset above the end offset")

// ErrStillCommitting is returned when the group's committed offsets moved
// during the observation window: the old job seems to be running. Check it
// with errors.Is.
var ErrStillCommitting = errors.New("kafkaoffset: the group is still committing: the old job seems to be running")

// PartitionErrors is the error of a lookup in which some partitions failed.
// Errs has one error per failed partition, each naming its topic and
// partition; Shards holds the [*kadm.ShardErrors] of requests that failed as a
// whole for a broker (errors.As reaches them).
type PartitionErrors struct {
	Total  int // partitions looked up
	Errs   []error
	Shards []*kadm.ShardErrors
}

func (e *PartitionErrors) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kafkaoffset: %d of %d partitions failed", len(e.Errs), e.Total)
	for i, err := range e.Errs {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(e.Errs)-i)
			break
		}
		b.WriteString("; ")
		b.WriteString(strings.TrimPrefix(err.Error(), "kafkaoffset: "))
	}
	return b.String()
}

// Unwrap returns the partitions' errors and the shard errors.
func (e *PartitionErrors) Unwrap() []error {
	out := make([]error, 0, len(e.Errs)+len(e.Shards))
	out = append(out, e.Errs...)
	for _, s := range e.Shards {
		out = append(out, s)
	}
	return out
}

// pkgPrefix starts every error message of the package.
const pkgPrefix = "kafkaoffset: "

// unprefixed joins the texts of errs without the package's own prefix, so
// that a message names the package once; errors.Is and errors.As still
// reach each of errs.
func unprefixed(errs ...error) error { return unprefixedError(errs) }

type unprefixedError []error

func (e unprefixedError) Error() string {
	texts := make([]string, len(e))
	for i, err := range e {
		texts[i] = strings.TrimPrefix(err.Error(), pkgPrefix)
	}
	return strings.Join(texts, "; ")
}

func (e unprefixedError) Unwrap() []error { return e }
