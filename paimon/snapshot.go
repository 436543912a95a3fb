package paimon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Snapshot is the part of a Paimon snapshot (or changelog) file resumekit
// uses. Unknown fields are ignored; id, schemaId and timeMillis are required.
type Snapshot struct {
	Version          int       `json:"version"`
	ID               int64     `json:"id"`
	SchemaID         int64     `json:"schema_id"`
	CommitUser       string    `json:"commit_user,omitempty"`
	CommitIdentifier int64     `json:"commit_identifier"`
	CommitKind       string    `json:"commit_kind,omitempty"`
	TimeMillis       int64     `json:"time_millis"`
	Time             time.Time `json:"time"`
	TotalRecordCount *int64    `json:"total_record_count,omitempty"`
	DeltaRecordCount *int64    `json:"delta_record_count,omitempty"`
	// Watermark is nil when the file holds null, nothing, or Long.MIN_VALUE.
	Watermark *int64 `json:"watermark,omitempty"`
	// Key is the object key the snapshot was read from.
	Key string `json:"key"`
}

type snapshotFile struct {
	Version          *int   `json:"version"`
	ID               *int64 `json:"id"`
	SchemaID         *int64 `json:"schemaId"`
	CommitUser       string `json:"commitUser"`
	CommitIdentifier *int64 `json:"commitIdentifier"`
	CommitKind       string `json:"commitKind"`
	TimeMillis       *int64 `json:"timeMillis"`
	TotalRecordCount *int64 `json:"totalRecordCount"`
	DeltaRecordCount *int64 `json:"deltaRecordCount"`
	Watermark        *int64 `json:"watermark"`
}

const minWatermark = -1 << 63 // Long.MIN_VALUE: no watermark

// ParseSnapshot parses the JSON of a snapshot or changelog file (any
// version; fields Paimon added later are ignored). key names the file in
// errors.
func ParseSnapshot(key string, data []byte) (*Snapshot, error) {
	if len(data) == 0 {
		return nil, corruptf(key, "empty snapshot file")
	}
	var f snapshotFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, corruptf(key, "snapshot JSON: %v", err)
	}
	switch {
	case f.ID == nil:
		return nil, corruptf(key, `snapshot JSON has no "id"`)
	case *f.ID <= 0:
		return nil, corruptf(key, `snapshot "id" %d is not positive`, *f.ID)
	case *f.ID > MaxID:
		return nil, corruptf(key, `snapshot "id" %d is above 2^62: malformed`, *f.ID)
	case f.TimeMillis == nil:
		return nil, corruptf(key, `snapshot JSON has no "timeMillis"`)
	case f.SchemaID == nil:
		return nil, corruptf(key, `snapshot JSON has no "schemaId"`)
	case *f.SchemaID < 0:
		return nil, corruptf(key, `snapshot "schemaId" %d is negative`, *f.SchemaID)
	case *f.SchemaID > MaxID:
		return nil, corruptf(key, `snapshot "schemaId" %d is above 2^62: malformed`, *f.SchemaID)
	}
	s := &Snapshot{
		ID: *f.ID, SchemaID: *f.SchemaID, CommitUser: f.CommitUser, CommitKind: f.CommitKind,
		TimeMillis: *f.TimeMillis, Time: time.UnixMilli(*f.TimeMillis).UTC(),
		TotalRecordCount: f.TotalRecordCount, DeltaRecordCount: f.DeltaRecordCount, Key: key,
	}
	if f.Version != nil {
		s.Version = *f.Version
	}
	if f.CommitIdentifier != nil {
		s.CommitIdentifier = *f.CommitIdentifier
	}
	if f.Watermark != nil && *f.Watermark != minWatermark {
		s.Watermark = f.Watermark
	}
	return s, nil
}

// Snapshot reads snapshot-<id>. A missing file gives an error wrapping
// ErrSnapshotNotFound.
func (t *Table) Snapshot(ctx context.Context, id int64) (*Snapshot, error) {
	return t.readSnapshotFile(ctx, t.snapshotKey(id), id)
}

// Changelog reads the decoupled changelog-<id> file. A missing file gives an
// error wrapping ErrSnapshotNotFound.
func (t *Table) Changelog(ctx context.Context, id int64) (*Snapshot, error) {
	return t.readSnapshotFile(ctx, t.changelogKey(id), id)
}

func (t *Table) readSnapshotFile(ctx context.Context, key string, id int64) (*Snapshot, error) {
	data, _, err := t.read(ctx, key)
	if err != nil {
		if errors.Is(err, errNotFound) {
			return nil, fmt.Errorf("paimon: %s does not exist: %w", key, ErrSnapshotNotFound)
		}
		return nil, err
	}
	s, err := ParseSnapshot(key, data)
	if err != nil {
		return nil, err
	}
	if s.ID != id {
		return nil, corruptf(key, `snapshot file holds "id" %d`, s.ID)
	}
	return s, nil
}

// EarliestSnapshotID returns the id of the earliest snapshot, from the
// EARLIEST hint when snapshot-<hint> exists, else from a listing (as
// Paimon's HintFileUtils.findEarliest). A table without snapshots gives an
// error wrapping ErrSnapshotNotFound.
func (t *Table) EarliestSnapshotID(ctx context.Context) (int64, error) {
	id, _, err := t.earliestID(ctx)
	return id, err
}

func (t *Table) earliestID(ctx context.Context) (int64, []string, error) {
	id, ok, notes, err := t.findEarliest(ctx, t.snapshotDir(), "snapshot-")
	if err != nil {
		return 0, nil, err
	}
	if !ok {
		return 0, notes, fmt.Errorf("paimon: no snapshot under %s: %w", t.snapshotDir(), ErrSnapshotNotFound)
	}
	return id, notes, nil
}

// LatestSnapshotID returns the id of the latest snapshot, from the LATEST
// hint when it is positive and snapshot-<hint+1> does not exist, else from a
// listing (as Paimon's HintFileUtils.findLatest). A table without snapshots
// gives an error wrapping ErrSnapshotNotFound.
func (t *Table) LatestSnapshotID(ctx context.Context) (int64, error) {
	id, _, err := t.latestID(ctx)
	return id, err
}

func (t *Table) latestID(ctx context.Context) (int64, []string, error) {
	id, ok, notes, err := t.findLatest(ctx, t.snapshotDir(), "snapshot-")
	if err != nil {
		return 0, nil, err
	}
	if !ok {
		return 0, notes, fmt.Errorf("paimon: no snapshot under %s: %w", t.snapshotDir(), ErrSnapshotNotFound)
	}
	return id, notes, nil
}

// earliestSnapshotRetries is how far EarliestSnapshot steps forward when the
// earliest snapshot vanishes while it is read (Paimon:
// EARLIEST_SNAPSHOT_DEFAULT_RETRY_NUM).
const earliestSnapshotRetries = 3

// EarliestSnapshot reads the earliest snapshot. When it disappears between
// finding and reading it (expiry running), the next ids are tried, as
// Paimon's SnapshotManager.earliestSnapshot does.
func (t *Table) EarliestSnapshot(ctx context.Context) (*Snapshot, error) {
	id, _, err := t.earliestID(ctx)
	if err != nil {
		return nil, err
	}
	return t.snapshotFrom(ctx, id, id+earliestSnapshotRetries)
}

// snapshotFrom reads the first existing snapshot in [id, stop].
func (t *Table) snapshotFrom(ctx context.Context, id, stop int64) (*Snapshot, error) {
	for {
		s, err := t.Snapshot(ctx, id)
		if err == nil || !errors.Is(err, ErrSnapshotNotFound) || id >= stop {
			return s, err
		}
		id++
	}
}

// LatestSnapshot reads the latest snapshot. When the snapshot the LATEST hint
// names is missing, the folder is listed once more.
func (t *Table) LatestSnapshot(ctx context.Context) (*Snapshot, error) {
	id, _, err := t.latestID(ctx)
	if err != nil {
		return nil, err
	}
	s, err := t.Snapshot(ctx, id)
	if err == nil || !errors.Is(err, ErrSnapshotNotFound) {
		return s, err
	}
	_, hi, ok, lerr := t.listIDs(ctx, t.snapshotDir(), "snapshot-")
	if lerr != nil {
		return nil, lerr
	}
	if !ok {
		return nil, err
	}
	return t.Snapshot(ctx, hi)
}

// SnapshotIDs lists every snapshot id in ascending order. It lists the whole
// snapshot folder: prefer the hint-based methods on large tables.
func (t *Table) SnapshotIDs(ctx context.Context) ([]int64, error) {
	return t.listAll(ctx, t.snapshotDir(), "snapshot-")
}
