package kafkaoffset_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
)

// TestHostileInputGivesShortErrors: a megabyte-long group, topic, mode or
// offsets string given to an entry point gives an error of less than 1 KiB
// that quotes it cut short (and escaped). Group ids go to a kfake cluster
// on loopback.
func TestHostileInputGivesShortErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{{Name: "t", Partitions: 1}}})
	huge := strings.Repeat("\x1b", 1<<20)
	word := strings.Repeat("g", 1<<20)
	resolve := func(o kafkaoffset.Options) func() error {
		return func() error {
			r, err := kafkaoffset.NewResolver(k.Client, []string{"t"}, &o)
			if err != nil {
				return err
			}
			_, err = r.Resolve(ctx)
			return err
		}
	}
	for name, call := range map[string]func() error{
		"Group":                resolve(kafkaoffset.Options{Group: word}),
		"Group escaped":        resolve(kafkaoffset.Options{Group: huge}),
		"IsolationLevel":       resolve(kafkaoffset.Options{Group: "g", IsolationLevel: kafkaoffset.IsolationLevel(huge)}),
		"CommitSource":         resolve(kafkaoffset.Options{Group: "g", CommitSource: kafkaoffset.CommitSource(huge)}),
		"LogOffsets":           func() error { _, _, err := kafkaoffset.LogOffsets(ctx, k.Client, huge, []int32{0}); return err },
		"ParseSpecificOffsets": func() error { _, err := kafkaoffset.ParseSpecificOffsets(huge); return err },
		"ParseSpecificOffsets partition": func() error {
			_, err := kafkaoffset.ParseSpecificOffsets("partition:" + word + ",offset:1")
			return err
		},
	} {
		err := call()
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if msg := err.Error(); len(msg) > 1024 || strings.Contains(msg, "\x1b") {
			t.Errorf("%s: error of %d bytes: %.200q", name, len(msg), msg)
		}
	}
}
