package paimon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"gocloud.dev/blob"
)

// The hint files Paimon keeps next to snapshot (and changelog) files.
const (
	hintEarliest = "EARLIEST"
	hintLatest   = "LATEST"
)

// ParseHint parses the content of an EARLIEST or LATEST hint file: a bare
// decimal id, as Paimon writes it (no newline; Paimon's Long.parseLong
// accepts nothing else either). key names the file in errors.
func ParseHint(key string, data []byte) (int64, error) {
	if len(data) == 0 {
		return 0, corruptf(key, "empty hint")
	}
	id, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil {
		return 0, corruptf(key, "hint %q is not a decimal id", truncate(string(data), 40))
	}
	if id > MaxID {
		return 0, corruptf(key, "hint %d is above 2^62: malformed", id)
	}
	return id, nil
}

// readHint reads a hint in dir the way HintFileUtils.readHint does: a
// missing file is no hint; a read or parse failure is retried, then counts as
// no hint. Only the context's end is an error. why says what happened, for
// reasons.
func (t *Table) readHint(ctx context.Context, dir, name string) (id int64, ok bool, why string, err error) {
	key := dir + name
	for try := 1; ; try++ {
		data, _, err := t.read(ctx, key)
		if err == nil {
			id, err = ParseHint(key, data)
			if err == nil {
				return id, true, "", nil
			}
		}
		if cerr := ctx.Err(); cerr != nil {
			return 0, false, "", fmt.Errorf("paimon: read hint %s: %w", key, cerr)
		}
		if errors.Is(err, errNotFound) {
			return 0, false, key + " missing", nil
		}
		if try >= t.o.HintRetries {
			return 0, false, fmt.Sprintf("%s unusable after %d reads (%v)", key, try, err), nil
		}
		if err := t.pause(ctx, t.o.HintRetryInterval); err != nil {
			return 0, false, "", fmt.Errorf("paimon: read hint %s: %w", key, err)
		}
	}
}

// listIDs lists dir for files named <prefix><id> and returns the smallest and
// largest id (ok false when there is none). Names whose suffix is not a
// positive decimal are ignored, as Paimon's listVersionedFiles does. Pages are
// read one at a time; nothing but the extremes is kept.
func (t *Table) listIDs(ctx context.Context, dir, prefix string) (lo, hi int64, ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, false, fmt.Errorf("paimon: list %s: %w", dir+prefix, err)
	}
	it := t.bucket.List(&blob.ListOptions{Prefix: dir + prefix, Delimiter: "/"})
	for {
		obj, err := it.Next(ctx)
		if err != nil {
			if err == io.EOF {
				return lo, hi, ok, nil
			}
			return 0, 0, false, fmt.Errorf("paimon: list %s: %w", dir+prefix, ctxErr(ctx, err))
		}
		if obj.IsDir {
			continue
		}
		id, good, err := parseVersioned(obj.Key[len(dir):], prefix)
		if err != nil {
			return 0, 0, false, corruptf(obj.Key, "%v", err)
		}
		if !good {
			continue
		}
		if !ok || id < lo {
			lo = id
		}
		if !ok || id > hi {
			hi = id
		}
		ok = true
	}
}

// parseVersioned returns the id of a name <prefix><id>; ok is false for
// names that are not <prefix><digits>. Digits above 2^62 are an error: such
// an id is malformed, not another file to ignore (a listing that skipped it
// would answer with a wrong latest id).
func parseVersioned(name, prefix string) (id int64, ok bool, err error) {
	s, found := strings.CutPrefix(name, prefix)
	if !found || s == "" {
		return 0, false, nil
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false, nil
		}
	}
	id, perr := strconv.ParseInt(s, 10, 64)
	if perr != nil || id > MaxID {
		return 0, false, fmt.Errorf("id %s is above 2^62: malformed", truncate(s, 40))
	}
	return id, true, nil
}

// idRange finds the earliest or latest id of a versioned folder (snapshot/
// or changelog/) exactly as HintFileUtils does.
//
// LATEST is trusted when it is positive and <prefix><hint+1> does not exist;
// EARLIEST when <prefix><hint> exists. Otherwise the folder is listed and the
// smallest or largest numeric suffix wins.
func (t *Table) findLatest(ctx context.Context, dir, prefix string) (int64, bool, []string, error) {
	hint, ok, why, err := t.readHint(ctx, dir, hintLatest)
	if err != nil {
		return 0, false, nil, err
	}
	var notes []string
	if ok {
		if hint > 0 {
			next, err := t.exists(ctx, fmt.Sprintf("%s%s%d", dir, prefix, hint+1))
			if err != nil {
				return 0, false, nil, err
			}
			if !next {
				return hint, true, nil, nil
			}
			notes = append(notes, fmt.Sprintf("%s%s says %d but %s%d exists (stale hint): listed %s", dir, hintLatest, hint, prefix, hint+1, dir))
		} else {
			notes = append(notes, fmt.Sprintf("%s%s says %d: listed %s", dir, hintLatest, hint, dir))
		}
	} else {
		notes = append(notes, why+": listed "+dir)
	}
	_, hi, found, err := t.listIDs(ctx, dir, prefix)
	return hi, found, notes, err
}

func (t *Table) findEarliest(ctx context.Context, dir, prefix string) (int64, bool, []string, error) {
	hint, ok, why, err := t.readHint(ctx, dir, hintEarliest)
	if err != nil {
		return 0, false, nil, err
	}
	var notes []string
	if ok {
		there, err := t.exists(ctx, fmt.Sprintf("%s%s%d", dir, prefix, hint))
		if err != nil {
			return 0, false, nil, err
		}
		if there {
			return hint, true, nil, nil
		}
		notes = append(notes, fmt.Sprintf("%s%s says %d but %s%d does not exist (stale hint): listed %s", dir, hintEarliest, hint, prefix, hint, dir))
	} else {
		notes = append(notes, why+": listed "+dir)
	}
	lo, _, found, err := t.listIDs(ctx, dir, prefix)
	return lo, found, notes, err
}

// listAll returns every id of <dir><prefix><id>, ascending.
func (t *Table) listAll(ctx context.Context, dir, prefix string) ([]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("paimon: list %s: %w", dir+prefix, err)
	}
	var ids []int64
	it := t.bucket.List(&blob.ListOptions{Prefix: dir + prefix, Delimiter: "/"})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			slices.Sort(ids)
			return ids, nil
		}
		if err != nil {
			return nil, fmt.Errorf("paimon: list %s: %w", dir+prefix, ctxErr(ctx, err))
		}
		if obj.IsDir {
			continue
		}
		id, ok, err := parseVersioned(obj.Key[len(dir):], prefix)
		if err != nil {
			return nil, corruptf(obj.Key, "%v", err)
		}
		if ok {
			ids = append(ids, id)
		}
	}
}
