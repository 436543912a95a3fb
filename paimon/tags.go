package paimon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"gocloud.dev/blob"
)

// maxOriginTags bounds how many tag files tagsBelow reads.
const maxOriginTags = 32

// tagEvidence is what a table's (or branch's) tag folder says about the ids
// below first, its lowest readable id, for a start at a time at which first
// was committed at or after. Tags hold snapshot JSON, so they keep the commit
// time of snapshots long expired.
type tagEvidence struct {
	// lossTag names a tag at lossID below first committed at lossTime, at or
	// after the start time: ids lossID..first.ID-1 were committed at or
	// after it and are gone, so their records are certainly skipped.
	lossTag  string
	lossID   int64
	lossTime time.Time
	// beforeTag names a tag at first.ID-1 committed at beforeTime, before
	// the start time: Paimon would start at first on the full history too,
	// so nothing is lost.
	beforeTag  string
	beforeTime time.Time
	// fromTag (branches only) names the tag the branch was created from at
	// first.ID: the branch has a tag file at that id with first's commit
	// time, and the main table has a tag of the same name naming the same
	// snapshot (create_branch copies tag-<name> and its snapshot into the
	// branch). The branch then never had lower ids.
	fromTag string
	// expiredTag names the branch tag with the lowest id below first,
	// expiredID: that id was in the branch, so ids expiredID..first.ID-1
	// expired.
	expiredTag string
	expiredID  int64
	// read is how many tag files were read; more is true when the folder
	// held more than maxOriginTags tags (not all were read).
	read int
	more bool
}

// tagsBelow reads the evidence of the tag folder: one listing, at most
// maxOriginTags tag reads, and on a branch one read of the main table's tag
// of the same name as a tag at first.ID. Unreadable or malformed tags are no
// evidence; only the context's end is an error.
func (t *Table) tagsBelow(ctx context.Context, first *Snapshot, at time.Time) (tagEvidence, error) {
	var ev tagEvidence
	ms := at.UnixMilli()
	dir := t.base + "tag/"
	it := t.bucket.List(&blob.ListOptions{Prefix: dir + "tag-", Delimiter: "/"})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			return ev, nil
		}
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return ev, fmt.Errorf("paimon: list %s: %w", dir, cerr)
			}
			return ev, nil // no listing, no evidence
		}
		if obj.IsDir {
			continue
		}
		name := obj.Key[len(dir+"tag-"):]
		if name == "" {
			continue
		}
		if ev.read >= maxOriginTags {
			ev.more = true
			return ev, nil
		}
		ev.read++
		tag, err := t.readTag(ctx, obj.Key)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return ev, fmt.Errorf("paimon: read %s: %w", obj.Key, cerr)
			}
			continue
		}
		if tag.ID < first.ID {
			if ev.expiredTag == "" || tag.ID < ev.expiredID {
				ev.expiredTag, ev.expiredID = name, tag.ID
			}
			if tag.TimeMillis >= ms && (ev.lossTag == "" || tag.ID < ev.lossID) {
				ev.lossTag, ev.lossID, ev.lossTime = name, tag.ID, tag.Time
			}
			if tag.ID == first.ID-1 && tag.TimeMillis < ms {
				ev.beforeTag, ev.beforeTime = name, tag.Time
			}
			continue
		}
		if t.branch == "main" || tag.ID != first.ID || tag.TimeMillis != first.TimeMillis || ev.fromTag != "" {
			continue
		}
		mainKey := t.path + "tag/tag-" + name
		main, err := t.readTag(ctx, mainKey)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return ev, fmt.Errorf("paimon: read %s: %w", mainKey, cerr)
			}
			continue
		}
		if main.ID == tag.ID && main.TimeMillis == tag.TimeMillis {
			ev.fromTag = name
		}
	}
}

// readTag reads a tag file (snapshot JSON plus tag fields).
func (t *Table) readTag(ctx context.Context, key string) (*Snapshot, error) {
	data, _, err := t.read(ctx, key)
	if err != nil {
		if errors.Is(err, errNotFound) {
			return nil, fmt.Errorf("paimon: %s does not exist: %w", key, ErrSnapshotNotFound)
		}
		return nil, err
	}
	return ParseSnapshot(key, data)
}
