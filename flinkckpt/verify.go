package flinkckpt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume/redact"
)

// FileCheck is the verification of one referenced file (references to the
// same file are merged).
type FileCheck struct {
	// Path as recorded: relative to the snapshot dir, or a Flink URI.
	Path     string
	Relative bool
	// Key is the bucket key the path maps to ("" when it cannot be mapped).
	Key string
	// Root is the Options.ExtraRoots FlinkRoot through which the file was
	// mapped into another bucket; "" for the resolver's own bucket.
	Root string
	// Want is the size the references need: exactly, or at least (AtLeast)
	// for byte ranges of merged files.
	Want    int64
	AtLeast bool
	// Changelog: a state changelog (DSTL) file, whose size Flink records
	// one byte short (metadata.FileRef.Changelog): Want or Want+1 is right.
	Changelog bool
	// Checked is false for references that could not be mapped to a key or
	// were refused (Problem says why). Unmapped is true for an absolute
	// reference on the snapshot's own file system (its scheme) that maps to
	// no key: a wrong Flink root, or a file in a place nobody mapped.
	Unmapped bool
	Checked  bool
	Exists   bool
	// Size is the size found (-1 when missing or not checked).
	Size    int64
	Problem string
}

// Verification is the result of checking every file a _metadata references.
type Verification struct {
	Files []FileCheck
	// Missing, WrongSize, Refused (relative paths that escape the snapshot
	// dir), Unmapped (absolute references on the snapshot's own file
	// system that map to no key: a mapping error) and Unchecked (absolute
	// references elsewhere, not mappable to a bucket key) count files.
	Missing, WrongSize, Refused, Unmapped, Unchecked int
	// Lists and Attributes count the storage calls made.
	Lists, Attributes int
}

// OK reports whether every checked file exists with the right size, no
// reference was refused and every reference on the snapshot's own file
// system mapped to a key. Unchecked references do not count against it
// (see Verified).
func (v *Verification) OK() bool {
	return v.Missing == 0 && v.WrongSize == 0 && v.Refused == 0 && v.Unmapped == 0
}

// Verified reports whether every referenced file was checked and found
// with its recorded size.
func (v *Verification) Verified() bool { return v.OK() && v.Unchecked == 0 }

// Checked returns the number of referenced files that were checked.
func (v *Verification) Checked() int {
	n := 0
	for _, f := range v.Files {
		if f.Checked {
			n++
		}
	}
	return n
}

// Problem summarises what is wrong, e.g. "3 of 122 referenced files
// missing, first: shared/…".
func (v *Verification) Problem() string {
	var parts []string
	first := func(pred func(FileCheck) bool) string {
		for _, f := range v.Files {
			if pred(f) {
				if f.Key != "" {
					return f.Key
				}
				return f.Path
			}
		}
		return ""
	}
	n := len(v.Files)
	if v.Missing > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d referenced files missing, first: %s", v.Missing, n,
			first(func(f FileCheck) bool { return f.Checked && !f.Exists })))
	}
	if v.WrongSize > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d referenced files of the wrong size, first: %s", v.WrongSize, n,
			first(func(f FileCheck) bool { return f.Exists && f.Problem != "" })))
	}
	if v.Unmapped > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d referenced files are on the snapshot's own file system but not under its Flink root (a wrong Flink root, or files elsewhere: map them with Options.ExtraRoots, --flink-extra-root), first: %s",
			v.Unmapped, n, first(func(f FileCheck) bool { return f.Unmapped })))
	}
	if v.Refused > 0 {
		parts = append(parts, fmt.Sprintf("%d relative paths refused, first: %s", v.Refused,
			first(func(f FileCheck) bool { return f.Relative && !f.Checked })))
	}
	if v.Unchecked > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d referenced files not checked (absolute paths not mappable to a key of this bucket), first: %s",
			v.Unchecked, n, first(func(f FileCheck) bool { return !f.Relative && !f.Checked && !f.Unmapped })))
	}
	return strings.Join(parts, "; ")
}

// relativeKey resolves a relative path against the snapshot dir; paths that
// are absolute-looking or escape the dir are refused.
func relativeKey(dir, rel string) (string, string) {
	switch {
	case rel == "":
		return "", "empty relative path"
	case strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, "\\") || strings.Contains(rel, "://") || strings.Contains(rel, ":\\"):
		return "", "absolute-looking relative path refused"
	case strings.ContainsAny(rel, "\\\x00"):
		return "", "relative path with a backslash or NUL refused"
	}
	clean := path.Clean(rel)
	if clean == ".." || strings.HasPrefix(clean, "../") || clean == "." || strings.Contains(rel, "/../") || strings.HasSuffix(rel, "/..") {
		return "", "relative path escapes the snapshot dir"
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == ".." {
			return "", "relative path escapes the snapshot dir"
		}
	}
	return dir + clean, ""
}

// verify checks every file md references. dir is the snapshot dir key
// (ending in "/"), path its Flink URI ("" when unknown). Files directly in
// dir — its exclusive state — are checked with one delimiter listing of dir
// (paged); files elsewhere (a job's shared/ dir, which may hold hundreds of
// thousands of files; other buckets through rs's extra roots) with
// concurrent attribute calls, at most conc at once. Storage errors other
// than NotFound abort with an error naming the key.
func verify(ctx context.Context, b *blob.Bucket, dir, path string, md *metadata.Checkpoint, m *mapping, rs *roots, conc int) (*Verification, error) {
	v := &Verification{}
	byKey := map[string]int{}
	byPath := map[string]int{}
	extraOf := map[int]int{} // file index → extra root index
	scheme := schemeOf(path)
	for _, ref := range md.Files {
		idx, seen := byPath[ref.Path]
		if !seen {
			fc := FileCheck{Path: ref.Path, Relative: ref.Relative, Size: -1}
			extra := -1
			dedup := ""
			if ref.Relative {
				fc.Key, fc.Problem = relativeKey(dir, ref.Path)
				if fc.Problem != "" {
					v.Refused++
				}
			} else {
				uri := canonicalURI(ref.Path, rs.dfs)
				if x, k, ok := rs.locate(m, uri); ok {
					fc.Key, extra = k, x
					if x >= 0 {
						fc.Root = rs.extras[x].root
						dedup = fmt.Sprint(x)
					}
				} else if scheme != "" && schemeOf(uri) == scheme {
					fc.Problem = "on the snapshot's own file system but not under its Flink root"
					fc.Unmapped = true
					v.Unmapped++
				} else {
					fc.Problem = "cannot map to a key of this bucket"
					v.Unchecked++
				}
			}
			if fc.Key != "" {
				if j, dup := byKey[dedup+"\x00"+fc.Key]; dup {
					byPath[ref.Path] = j
					idx = j
					seen = true
				}
			}
			if !seen {
				idx = len(v.Files)
				v.Files = append(v.Files, fc)
				byPath[ref.Path] = idx
				if fc.Key != "" {
					byKey[dedup+"\x00"+fc.Key] = idx
				}
				if extra >= 0 {
					extraOf[idx] = extra
				}
			}
			if !seen || v.Files[idx].Want == 0 {
				v.Files[idx].AtLeast = ref.Segment
			}
		}
		fc := &v.Files[idx]
		fc.Changelog = fc.Changelog || ref.Changelog
		need := ref.Size
		if ref.Segment {
			need = ref.Offset + ref.Size
			fc.Want = max(fc.Want, need)
		} else {
			fc.AtLeast = false
			fc.Want = need
		}
	}
	var own, others []int
	for i, f := range v.Files {
		if f.Key == "" {
			continue
		}
		if _, other := extraOf[i]; !other && parentKey(f.Key) == dir {
			own = append(own, i)
		} else {
			others = append(others, i)
		}
	}
	// The own dir's listing and the attribute calls for the other files
	// are independent: they go out together, one round trip for both
	// (each writes only its own files' entries).
	var listErr error
	var listPanic any
	listed := make(chan struct{})
	go func() {
		defer close(listed)
		// A driver's panic is raised again in this goroutine, as
		// parallel does, where the chain recovers it.
		defer func() { listPanic = recover() }()
		if len(own) > 0 {
			listErr = listOwn(ctx, b, dir, v, own)
		}
	}()
	var statErr error
	if len(others) > 0 {
		v.Attributes = len(others)
		c := conc
		if len(own) > 0 && c > 1 {
			c-- // the listing is one of the calls in flight
		}
		statErr = statFiles(ctx, b, rs, v.Files, others, extraOf, c)
	}
	<-listed
	if listPanic != nil {
		panic(listPanic)
	}
	if listErr != nil {
		return nil, listErr
	}
	if statErr != nil {
		return nil, statErr
	}
	for i := range v.Files {
		f := &v.Files[i]
		switch {
		case !f.Checked:
		case !f.Exists:
			f.Problem = "missing"
			v.Missing++
		case f.AtLeast && f.Size < f.Want:
			f.Problem = fmt.Sprintf("size %d, want at least %d", f.Size, f.Want)
			v.WrongSize++
		case f.Changelog && !f.AtLeast && (f.Size == f.Want || f.Size == f.Want+1):
			// Flink's DSTL uploader writes a flag byte it does not count.
		case !f.AtLeast && f.Size != f.Want:
			f.Problem = fmt.Sprintf("size %d, want %d", f.Size, f.Want)
			v.WrongSize++
		}
	}
	return v, nil
}

// parentKey returns the dir key holding key ("" at the bucket root).
// listOwn lists the snapshot's own dir once and records the sizes of the
// files of own found there (all of them checked).
func listOwn(ctx context.Context, b *blob.Bucket, dir string, v *Verification, own []int) error {
	sizes := map[string]int64{}
	entries := 0
	it := b.List(&blob.ListOptions{Prefix: dir, Delimiter: "/"})
	for {
		obj, err := it.Next(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return fmt.Errorf("flinkckpt: list %s: %w", redact.QuoteKey(dir), err)
		}
		entries++
		if !obj.IsDir {
			sizes[obj.Key] = obj.Size
		}
	}
	v.Lists = max(1, (entries+listPageSize-1)/listPageSize)
	for _, i := range own {
		if s, ok := sizes[v.Files[i].Key]; ok {
			v.Files[i].Exists, v.Files[i].Size = true, s
		}
		v.Files[i].Checked = true
	}
	return nil
}

func parentKey(key string) string {
	return key[:strings.LastIndexByte(key, '/')+1]
}
