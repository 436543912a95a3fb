package flinkckpt_test

import (
	"context"
	"strings"
	"testing"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
)

// TestHostileInputGivesShortErrors: a megabyte-long option, URI, mode or
// key given to an entry point gives an error of less than 1 KiB that quotes
// it cut short (and escaped).
func TestHostileInputGivesShortErrors(t *testing.T) {
	ctx := context.Background()
	huge := strings.Repeat("\x1b", 1<<20)
	word := strings.Repeat("w", 1<<20)
	b := memblob.OpenBucket(nil)
	defer b.Close()
	resolver := func(prefix string, o flinkckpt.Options) func() error {
		return func() error { _, err := flinkckpt.NewResolver(b, prefix, &o); return err }
	}
	// resolve fails at Resolve: nothing is stored under a hostile prefix.
	resolve := func(prefix string, o flinkckpt.Options) func() error {
		return func() error {
			r, err := flinkckpt.NewResolver(b, prefix, &o)
			if err != nil {
				return err
			}
			_, err = r.Resolve(ctx)
			return err
		}
	}
	for name, call := range map[string]func() error{
		"JobID":              resolver("ck/", flinkckpt.Options{JobID: huge}),
		"FlinkRoot":          resolver("ck/", flinkckpt.Options{FlinkRoot: huge}),
		"FallbackFlinkRoot":  resolver("ck/", flinkckpt.Options{FallbackFlinkRoot: huge}),
		"EntropyKey":         resolver("ck/", flinkckpt.Options{EntropyKey: huge + "/"}),
		"ExtraRoot":          resolver("ck/", flinkckpt.Options{ExtraRoots: []flinkckpt.ExtraRoot{{FlinkRoot: huge, Bucket: b}}}),
		"ExtraRoot nil":      resolver("ck/", flinkckpt.Options{ExtraRoots: []flinkckpt.ExtraRoot{{FlinkRoot: huge}}}),
		"DefaultFS":          resolver("ck/", flinkckpt.Options{DefaultFS: huge}),
		"ClaimMode":          resolver("ck/", flinkckpt.Options{ClaimMode: flinkckpt.ClaimMode(huge)}),
		"Intent":             resolver("ck/", flinkckpt.Options{Intent: flinkckpt.Intent(huge)}),
		"FlinkVersion":       resolver("ck/", flinkckpt.Options{FlinkVersion: huge}),
		"root beside":        resolver("ck/job/", flinkckpt.Options{FlinkRoot: "s3a://bucket/ck/" + word}),
		"root beside prefix": resolver("ck/"+word+"/", flinkckpt.Options{FlinkRoot: "s3a://bucket/ck/other"}),
		"ParseClaimMode":     func() error { _, err := flinkckpt.ParseClaimMode(huge); return err },
		"ParseIntent":        func() error { _, err := flinkckpt.ParseIntent(huge); return err },
		"ParseOperatorID":    func() error { _, err := jobgraph.ParseOperatorID(huge); return err },
		"Inspect":            func() error { _, err := flinkckpt.Inspect(ctx, b, word, nil); return err },
		"Inspect escaped":    func() error { _, err := flinkckpt.Inspect(ctx, b, huge, nil); return err },
		"Sources":            func() error { _, _, err := flinkckpt.Sources(ctx, b, word, nil); return err },
		"Resolve prefix":     resolve(word, flinkckpt.Options{}),
		"Resolve locations":  resolve(word, flinkckpt.Options{Locations: []flinkckpt.Location{{Bucket: b, Prefix: "x" + word}}}),
		"Location overlaps":  resolver(word, flinkckpt.Options{Locations: []flinkckpt.Location{{Bucket: b, Prefix: word + "/sub"}}}),
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
