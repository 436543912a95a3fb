package flinkckpt

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume/redact"
)

// listPageSize is the page size of delimiter listings (S3's maximum).
const listPageSize = 1000

var (
	savepointDirRE = regexp.MustCompile(`^savepoint-[0-9a-f]{6}-[0-9a-f]{12}/$`)
	jobDirRE       = regexp.MustCompile(`^[0-9a-f]{32}/$`)
)

// maxCheckpointID is the largest checkpoint id accepted, as in _metadata: a
// chk-<n> dir above it is not a checkpoint (malformed), so that no id
// arithmetic can come near int64 overflow.
const maxCheckpointID = metadata.MaxCheckpointID

// chkID parses a "chk-<n>/" dir name (without regular expressions: a job
// dir can hold tens of thousands of them). Ids above 2^62 are refused.
func chkID(name string) (int64, bool) {
	if len(name) < 6 || name[:4] != "chk-" || name[len(name)-1] != '/' {
		return 0, false
	}
	digits := name[4 : len(name)-1]
	if len(digits) > 19 || (len(digits) > 1 && digits[0] == '0') {
		// Flink never pads ids: chk-007 is not a checkpoint dir (it would
		// otherwise be read as chk-7/).
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	id, err := strconv.ParseInt(digits, 10, 64)
	return id, err == nil && id <= maxCheckpointID
}

// fixedJobIDRE matches the job ids application mode fixes when HA is on:
// 000…0 before Flink 1.16, and since 1.16 (FLINK-19358) a JobID whose lower
// part is the hash code of high-availability.cluster-id and whose upper
// part is 0 (ApplicationDispatcherBootstrap), printed as 16 hex digits of
// the (sign-extended) hash and 16 zeros: 0000000011f0e4ed0000000000000000,
// ffffffffa24a3fb20000000000000000. Every run of the application
// checkpoints into that one job dir.
var fixedJobIDRE = regexp.MustCompile(`^[0-9a-f]{16}0{16}$`)

// isFixedJobID reports whether a job id has the shape of application
// mode's fixed ids.
func isFixedJobID(job string) bool { return fixedJobIDRE.MatchString(job) }

// savepointPrefix returns the job id prefix of a savepoint dir name
// (savepoint-<first 6 of the job id>-<12 hex>), "" for other names.
func savepointPrefix(key string) string {
	name := lastSegment(key) + "/"
	if !savepointDirRE.MatchString(name) {
		return ""
	}
	return name[len("savepoint-") : len("savepoint-")+6]
}

// jobDir is one job dir (or the root itself when it holds chk-<n> dirs).
type jobDir struct {
	key string  // bucket key, ending in "/"
	job string  // job id ("" when the layout has no job dirs)
	ids []int64 // checkpoint ids, newest first (by run, see orderRuns)
	// runs is set when orderRuns put a run with lower ids first.
	runs *runOrder
}

// layout is what discovery found under a prefix.
type layout struct {
	jobs       []*jobDir
	savepoints []string // savepoint dir keys
	direct     bool     // the prefix itself holds _metadata
	lists      int      // list pages requested
	entries    int      // entries of the prefix's own listing
}

// lastSegment returns the last element of a dir key.
func lastSegment(key string) string {
	k := strings.TrimSuffix(key, "/")
	return k[strings.LastIndexByte(k, '/')+1:]
}

// discover lists prefix with a delimiter and every job dir below it
// (concurrently, at most conc at once) — never shared/ or taskowned/. With
// a job id, only that job's dir and its savepoints (savepoint-<first 6 of
// the id>-…) are kept.
func discover(ctx context.Context, b *blob.Bucket, prefix, jobID string, conc int) (*layout, error) {
	l := &layout{}
	root := &jobDir{key: prefix, job: ""}
	if jobDirRE.MatchString(lastSegment(prefix) + "/") {
		root.job = lastSegment(prefix)
	}
	var jobKeys []string
	pages, err := listDir(ctx, b, prefix, func(o *blob.ListObject) {
		l.entries++
		name := o.Key[len(prefix):]
		if !o.IsDir {
			if name == "_metadata" {
				l.direct = true
			}
			return
		}
		if id, ok := chkID(name); ok {
			root.ids = append(root.ids, id)
			return
		}
		switch {
		case savepointDirRE.MatchString(name):
			if jobID == "" || strings.HasPrefix(name, "savepoint-"+jobID[:min(6, len(jobID))]+"-") {
				l.savepoints = append(l.savepoints, o.Key)
			}
		case jobDirRE.MatchString(name):
			if jobID == "" || name == jobID+"/" {
				jobKeys = append(jobKeys, o.Key)
			}
		}
	})
	l.lists += pages
	if err != nil {
		return nil, err
	}
	if len(root.ids) > 0 && (jobID == "" || root.job == "" || root.job == jobID) {
		l.jobs = append(l.jobs, root)
	}
	jobs := make([]*jobDir, len(jobKeys))
	pageCounts := make([]int, len(jobKeys))
	err = parallel(ctx, len(jobKeys), conc, func(i int) error {
		j := &jobDir{key: jobKeys[i], job: lastSegment(jobKeys[i])}
		n, err := listDir(ctx, b, j.key, func(o *blob.ListObject) {
			if !o.IsDir {
				return
			}
			if id, ok := chkID(o.Key[len(j.key):]); ok {
				j.ids = append(j.ids, id)
			}
		})
		pageCounts[i] = n
		jobs[i] = j
		return err
	})
	for _, n := range pageCounts {
		l.lists += n
	}
	if err != nil {
		return nil, err
	}
	for _, j := range jobs {
		if len(j.ids) > 0 {
			l.jobs = append(l.jobs, j)
		}
	}
	for _, j := range l.jobs {
		sort.Slice(j.ids, func(a, b int) bool { return j.ids[a] > j.ids[b] })
	}
	sort.Strings(l.savepoints)
	return l, nil
}

// listDir lists dir with a "/" delimiter page by page, handing each entry
// to f without keeping the pages, and returns the number of pages.
func listDir(ctx context.Context, b *blob.Bucket, dir string, f func(*blob.ListObject)) (int, error) {
	pages := 0
	token := blob.FirstPageToken
	for len(token) > 0 {
		objs, next, err := b.ListPage(ctx, token, listPageSize, &blob.ListOptions{Prefix: dir, Delimiter: "/"})
		pages++
		if err != nil {
			return pages, fmt.Errorf("flinkckpt: list %s: %w", redact.QuoteKey(dir), err)
		}
		for _, o := range objs {
			f(o)
		}
		token = next
	}
	return pages, nil
}

// readMetadata reads and parses dir's _metadata. It returns ErrNoMetadata
// (wrapped) when the object does not exist, a metadata.ErrMalformed or metadata.ErrTooLarge
// error when it does not parse, and other errors when storage fails. A file
// larger than limit is refused before any of it is read.
func readMetadata(ctx context.Context, b *blob.Bucket, dir string, limit int64) (*metadata.Checkpoint, time.Time, error) {
	key := dir + "_metadata"
	r, err := b.NewReader(ctx, key, nil)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return nil, time.Time{}, fmt.Errorf("flinkckpt: %s: %w", redact.QuoteKey(key), ErrNoMetadata)
		}
		return nil, time.Time{}, fmt.Errorf("flinkckpt: read %s: %w", redact.QuoteKey(key), err)
	}
	defer r.Close()
	// Content errors return the modification time too (it ranks a broken
	// snapshot for the warning about newer broken ones).
	mod := r.ModTime()
	if r.Size() > limit {
		return nil, mod, &TooLargeError{Key: key, Size: r.Size(), Limit: limit}
	}
	// The object's size sizes the buffer once: a _metadata of hundreds of
	// MB is held once, and the model shares its bytes; the bytes read at
	// once are bounded (MetadataReadBudget).
	release, err := acquireRead(ctx, r.Size())
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("flinkckpt: read %s: %w", redact.QuoteKey(key), err)
	}
	defer release()
	md, err := metadata.Read(r, &metadata.ReadOptions{MaxSize: limit, Size: r.Size()})
	if err != nil {
		if errors.Is(err, metadata.ErrTooLarge) {
			return nil, mod, &TooLargeError{Key: key, Size: -1, Limit: limit}
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, time.Time{}, fmt.Errorf("flinkckpt: read %s: %w", redact.QuoteKey(key), ctxErr)
		}
		if gcerrors.Code(err) == gcerrors.NotFound {
			return nil, time.Time{}, fmt.Errorf("flinkckpt: %s: %w", redact.QuoteKey(key), ErrNoMetadata)
		}
		return nil, mod, fmt.Errorf("flinkckpt: %s: %w", redact.QuoteKey(key), err)
	}
	if md.Version <= 3 && isSavepointDir(dir) {
		// Versions 2 and 3 record no properties: Flink named the dir.
		md.Savepoint = true
	}
	return md, mod, nil
}

// isSavepointDir reports whether the last element of dir is named like a
// savepoint directory (savepoint-<6 hex of the job id>-<random>).
func isSavepointDir(dir string) bool {
	dir = strings.TrimRight(dir, "/")
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		dir = dir[i+1:]
	}
	return strings.HasPrefix(dir, "savepoint-")
}

// isContentError reports whether err is about a snapshot's content (so the
// snapshot is broken or incomplete) rather than about storage. A _metadata
// over the size limit is neither: it was not looked at (TooLargeError).
func isContentError(err error) bool {
	return errors.Is(err, ErrNoMetadata) || errors.Is(err, metadata.ErrMalformed)
}

// maxBelowProbes bounds the dirs looked into one level below a location
// that holds no snapshot dir.
const maxBelowProbes = 16

// layoutBelow returns the dirs one level below prefix that hold Flink's
// layout (<job-id>/chk-<n>/, savepoint-…/, chk-<n>/, a _metadata): the
// location was given one level too high (F1 for the root F1/ck). It looks
// into at most maxBelowProbes dirs, at most conc listings at once.
func layoutBelow(ctx context.Context, b *blob.Bucket, prefix string, conc int) ([]string, error) {
	var dirs []string
	if _, err := listDir(ctx, b, prefix, func(o *blob.ListObject) {
		if o.IsDir && len(dirs) < maxBelowProbes {
			dirs = append(dirs, o.Key)
		}
	}); err != nil {
		return nil, err
	}
	has := make([]bool, len(dirs))
	if err := parallel(ctx, len(dirs), conc, func(i int) error {
		l, err := discover(ctx, b, dirs[i], "", conc)
		if err != nil {
			return err
		}
		has[i] = len(l.jobs) > 0 || len(l.savepoints) > 0 || l.direct
		return nil
	}); err != nil {
		return nil, err
	}
	var out []string
	for i, d := range dirs {
		if has[i] {
			out = append(out, d)
		}
	}
	return out, nil
}

// belowError is the error for a location one level above Flink's layout,
// wrapping ErrLayoutBelow; nil when below is empty.
func belowError(where string, below []string) error {
	if len(below) == 0 {
		return nil
	}
	quoted := make([]string, len(below))
	for i, d := range below {
		quoted[i] = redact.QuoteKey(d)
	}
	return fmt.Errorf("flinkckpt: no chk-<n> or savepoint dir under %s, but Flink's layout (<job-id>/chk-<n>/_metadata, savepoint-…) is one level below it, in %s: give that location (the checkpoint root or the savepoint dir itself): %w",
		where, strings.Join(quoted, ", "), ErrLayoutBelow)
}
