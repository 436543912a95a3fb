package flinkckpt

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/resume/localblob"
	"github.com/resumekit/resumekit/resume/redact"
)

// statFiles checks the files at idx (each with a key) of files: in the
// resolver's bucket b, or in an extra root's bucket (extraOf: file index →
// rs.extras index). Files of a local bucket (package localblob) are asked in
// batches, each opening its directory once and spending one system call
// per file (localblob.StatKeys); files elsewhere cost one attribute call
// each. Either way at most conc calls run at once. A storage failure other
// than NotFound is returned, naming the key.
func statFiles(ctx context.Context, b *blob.Bucket, rs *roots, files []FileCheck, idx []int, extraOf map[int]int, conc int) error {
	byBucket := map[int][]int{} // extra root index (-1: b) → file indexes
	var order []int
	for _, i := range idx {
		x, ok := extraOf[i]
		if !ok {
			x = -1
		}
		if _, seen := byBucket[x]; !seen {
			order = append(order, x)
		}
		byBucket[x] = append(byBucket[x], i)
	}
	for _, x := range order {
		bucket, where := b, ""
		if x >= 0 {
			bucket, where = rs.extras[x].bucket, " (extra root "+rs.extras[x].root+")"
		}
		var err error
		if _, local, _ := localblob.StatKeys(ctx, bucket, nil); local {
			err = statLocal(ctx, bucket, files, byBucket[x], conc)
		} else {
			err = statEach(ctx, bucket, files, byBucket[x], conc)
		}
		if err != nil {
			return fmt.Errorf("%w%s", err, where)
		}
	}
	return nil
}

// statLocal checks files of a localblob bucket in key order, split into at
// most conc batches asked concurrently (an NFS mount answers each stat over
// the network).
func statLocal(ctx context.Context, b *blob.Bucket, files []FileCheck, idx []int, conc int) error {
	idx = slices.Clone(idx)
	slices.SortFunc(idx, func(i, j int) int { return strings.Compare(files[i].Key, files[j].Key) })
	size := (len(idx) + conc - 1) / max(1, conc)
	batches := (len(idx) + size - 1) / size
	return parallel(ctx, batches, conc, func(n int) error {
		batch := idx[n*size : min(len(idx), (n+1)*size)]
		keys := make([]string, len(batch))
		for k, i := range batch {
			keys[k] = files[i].Key
		}
		stats, _, err := localblob.StatKeys(ctx, b, keys)
		if err != nil {
			return fmt.Errorf("flinkckpt: stat referenced files: %w", err)
		}
		for k, i := range batch {
			f := &files[i]
			f.Checked = true
			if st := stats[k]; st.Exists {
				f.Exists, f.Size = true, st.Size
			}
		}
		return nil
	})
}

// statEach checks files with one attribute call each.
func statEach(ctx context.Context, b *blob.Bucket, files []FileCheck, idx []int, conc int) error {
	return parallel(ctx, len(idx), conc, func(j int) error {
		f := &files[idx[j]]
		a, err := b.Attributes(ctx, f.Key)
		switch {
		case gcerrors.Code(err) == gcerrors.NotFound:
			f.Checked = true
		case err != nil:
			return fmt.Errorf("flinkckpt: attributes of %s: %w", redact.QuoteKey(f.Key), err)
		default:
			f.Checked, f.Exists, f.Size = true, true, a.Size
		}
		return nil
	})
}
