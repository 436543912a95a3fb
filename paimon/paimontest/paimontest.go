// Package paimontest builds Apache Paimon tables in a gocloud bucket for
// tests: snapshots with chosen commit times (full version-3 snapshot JSON as
// Paimon writes it), expiry (files deleted, EARLIEST moved), stale or missing
// hints, consumers in the Java and the Python JSON style, schema files with
// options and option changes across schemas (schema-1, schema-2, … as ALTER
// TABLE writes them), tags, branches (empty or created from a tag),
// decoupled changelogs, a rollback that lets ids be committed again, and a
// live consumer (the file of a job that is still running, rewritten between
// reads). Only metadata is written: no manifests or data files, which
// resumekit never reads.
//
// Use it for your own restart tests:
//
//	bucket := memblob.OpenBucket(nil)
//	tb := paimontest.New(t, bucket, "wh/default.db/orders").
//		Schema(map[string]string{"consumer.expiration-time": "1 d"}).
//		CommitEvery(10, start, time.Minute). // snapshots 1..10, one a minute
//		ExpireBefore(4).                     // snapshots 1..3 deleted, EARLIEST=4
//		Consumer("job-1", 7)                 // {\n  "nextSnapshot" : 7\n}
//	table, _ := paimon.NewTable(bucket, tb.Path(), nil)
//
// It takes the small [resumetest.TB] every resumekit helper takes ([TB]), so
// a program or an Example can pass its own (resumetest.Run makes one).
//
// # Errors
//
// There are none to handle: every method of [Table] fails the test
// (tb.Fatalf, with a message prefixed "paimontest:" naming the key or the
// call) when storage fails or the call asks for what the table cannot be
// (expiring the latest snapshot, rolling back outside the snapshots), and
// returns the builder, so calls chain. A [LiveConsumer] runs beside the code
// under test: [LiveConsumer.Checkpoint] returns its error, and a rewrite its
// Before hook could not make is kept for [LiveConsumer.Err].
package paimontest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// Table builds one table (or one branch of it) in a bucket.
type Table struct {
	tb       TB
	bucket   *blob.Bucket
	path     string // the table's prefix, "" or "dir/"
	base     string // path, or the branch's prefix
	schemaID int64  // newest schema id, -1 when none
	options  map[string]string
	earliest int64 // 0 when there is no snapshot
	latest   int64
	clEarly  int64 // decoupled changelog range, 0 when none
	clLate   int64
	// CommitUser is written into snapshots; a fixed UUID by default.
	CommitUser string
}

// TB is resumetest.TB, the one interface every resumekit test helper takes:
// a *testing.T satisfies it, and resumetest.Run gives programs — resumectl's
// demo, the examples — one too. Fatalf must not return.
type TB = resumetest.TB

// New returns a builder for the table at path in bucket and writes its
// first schema file (schema-0, no options).
func New(tb TB, bucket *blob.Bucket, path string) *Table {
	tb.Helper()
	p := strings.Trim(path, "/")
	if p != "" {
		p += "/"
	}
	t := &Table{tb: tb, bucket: bucket, path: p, base: p, schemaID: -1, CommitUser: "6e5c2b4e-1f7a-4d0e-9c3b-8a2f4d1e7b90"}
	return t.Schema(nil)
}

// Path returns the table's key prefix ("" or "dir/"), for paimon.NewTable.
func (t *Table) Path() string { return t.path }

// Key returns the bucket key of a file relative to the table (or branch)
// folder, e.g. Key("snapshot/LATEST").
func (t *Table) Key(rel string) string { return t.base + rel }

// Earliest and Latest return the snapshot ids the builder holds (0 when none).
func (t *Table) Earliest() int64 { return t.earliest }

// Latest returns the latest snapshot id (0 when none).
func (t *Table) Latest() int64 { return t.latest }

func (t *Table) write(rel string, data []byte) {
	t.tb.Helper()
	if err := t.bucket.WriteAll(context.Background(), t.base+rel, data, nil); err != nil {
		t.tb.Fatalf("paimontest: write %s: %v", t.base+rel, err)
	}
}

func (t *Table) delete(rel string) {
	t.tb.Helper()
	if err := t.bucket.Delete(context.Background(), t.base+rel); err != nil {
		t.tb.Fatalf("paimontest: delete %s: %v", t.base+rel, err)
	}
}

// WriteFile writes raw content to a file relative to the table folder: a
// truncated snapshot, a garbage hint, an oversized consumer file.
func (t *Table) WriteFile(rel string, data []byte) *Table {
	t.tb.Helper()
	t.write(rel, data)
	return t
}

// DeleteFile deletes a file relative to the table folder.
func (t *Table) DeleteFile(rel string) *Table {
	t.tb.Helper()
	t.delete(rel)
	return t
}

// Schema writes the next schema file, schema-<id+1>, holding exactly
// options (the earlier schema's options are dropped). Later snapshots carry
// its id. AlterOptions changes some options and keeps the others.
func (t *Table) Schema(options map[string]string) *Table {
	t.tb.Helper()
	t.schemaID++
	t.options = maps.Clone(options)
	t.write(fmt.Sprintf("schema/schema-%d", t.schemaID), SchemaJSON(t.schemaID, options, time.UnixMilli(1784213607048)))
	return t
}

// AlterOptions writes the next schema file, schema-<id+1>, with the newest
// options changed as ALTER TABLE ... SET (set) and RESET (reset) change
// them: the others are kept. Snapshots committed before keep the older
// schema id; Paimon reads the options of the newest schema.
func (t *Table) AlterOptions(set map[string]string, reset ...string) *Table {
	t.tb.Helper()
	opts := maps.Clone(t.options)
	if opts == nil {
		opts = map[string]string{}
	}
	maps.Copy(opts, set)
	for _, k := range reset {
		delete(opts, k)
	}
	return t.Schema(opts)
}

// Options returns a copy of the newest schema's options.
func (t *Table) Options() map[string]string { return maps.Clone(t.options) }

// SchemaID returns the newest schema id.
func (t *Table) SchemaID() int64 { return t.schemaID }

// Commit writes one snapshot per time, with consecutive ids, and moves the
// LATEST hint (and EARLIEST on the first commit), as a Paimon commit does.
func (t *Table) Commit(times ...time.Time) *Table {
	t.tb.Helper()
	for _, at := range times {
		t.latest++
		t.write(fmt.Sprintf("snapshot/snapshot-%d", t.latest), SnapshotJSON(t.latest, t.schemaID, at, t.CommitUser))
		if t.earliest == 0 {
			t.earliest = t.latest
			t.write("snapshot/EARLIEST", []byte(fmt.Sprint(t.earliest)))
		}
		t.write("snapshot/LATEST", []byte(fmt.Sprint(t.latest)))
	}
	return t
}

// SinkCommit writes one snapshot as a Flink sink's committer commits
// checkpoint identifier's files: commitUser and commitIdentifier are the
// committer's (Commit writes t.CommitUser and the snapshot id). It moves the
// hints as Commit does.
func (t *Table) SinkCommit(commitUser string, identifier int64, at time.Time) *Table {
	t.tb.Helper()
	t.latest++
	snap := SnapshotJSON(t.latest, t.schemaID, at, commitUser)
	snap = bytes.Replace(snap, fmt.Appendf(nil, `"commitIdentifier" : %d,`, t.latest), fmt.Appendf(nil, `"commitIdentifier" : %d,`, identifier), 1)
	t.write(fmt.Sprintf("snapshot/snapshot-%d", t.latest), snap)
	if t.earliest == 0 {
		t.earliest = t.latest
		t.write("snapshot/EARLIEST", []byte(fmt.Sprint(t.earliest)))
	}
	t.write("snapshot/LATEST", []byte(fmt.Sprint(t.latest)))
	return t
}

// CommitEvery commits n snapshots, the first at start and then every step.
// The LATEST hint is written once at the end (the final state is what a
// Paimon writer leaves), which keeps large tables quick to build.
func (t *Table) CommitEvery(n int, start time.Time, step time.Duration) *Table {
	t.tb.Helper()
	for i := 0; i < n; i++ {
		t.latest++
		at := start.Add(time.Duration(i) * step)
		t.write(fmt.Sprintf("snapshot/snapshot-%d", t.latest), SnapshotJSON(t.latest, t.schemaID, at, t.CommitUser))
		if t.earliest == 0 {
			t.earliest = t.latest
			t.write("snapshot/EARLIEST", []byte(fmt.Sprint(t.earliest)))
		}
	}
	if n > 0 {
		t.write("snapshot/LATEST", []byte(fmt.Sprint(t.latest)))
	}
	return t
}

// ExpireBefore deletes snapshots below k and sets EARLIEST to k, as
// Paimon's snapshot expiry does.
func (t *Table) ExpireBefore(k int64) *Table {
	t.tb.Helper()
	return t.expire(k, false)
}

// ExpireKeepChangelog expires snapshots below k like ExpireBefore but keeps
// their changelogs longer, as Paimon's expiry does when the changelog
// retention options exceed the snapshot ones (changelog.time-retained above
// snapshot.time-retained, say): changelog-<id> files are written for the
// expired ids and changelog/EARLIEST and LATEST moved. It writes the files
// whatever the options say; a reader follows the options (set them with
// Schema or AlterOptions), so a table whose options were changed after the
// changelogs were written can be built too.
func (t *Table) ExpireKeepChangelog(k int64) *Table {
	t.tb.Helper()
	return t.expire(k, true)
}

func (t *Table) expire(k int64, keep bool) *Table {
	t.tb.Helper()
	ctx := context.Background()
	if t.earliest == 0 || k <= t.earliest {
		return t
	}
	if k > t.latest {
		t.tb.Fatalf("paimontest: expire before %d: the latest snapshot is %d and is never expired", k, t.latest)
	}
	for id := t.earliest; id < k; id++ {
		rel := fmt.Sprintf("snapshot/snapshot-%d", id)
		if keep {
			data, err := t.bucket.ReadAll(ctx, t.base+rel)
			if err != nil {
				t.tb.Fatalf("paimontest: read %s: %v", t.base+rel, err)
			}
			t.write(fmt.Sprintf("changelog/changelog-%d", id), data)
			if t.clEarly == 0 {
				t.clEarly = id
				t.write("changelog/EARLIEST", []byte(fmt.Sprint(id)))
			}
			t.clLate = id
		}
		t.delete(rel)
	}
	if keep {
		t.write("changelog/LATEST", []byte(fmt.Sprint(t.clLate)))
	}
	t.earliest = k
	t.write("snapshot/EARLIEST", []byte(fmt.Sprint(k)))
	return t
}

// ExpireChangelogBefore deletes decoupled changelogs below k.
func (t *Table) ExpireChangelogBefore(k int64) *Table {
	t.tb.Helper()
	if t.clEarly == 0 {
		return t
	}
	for id := t.clEarly; id < k && id <= t.clLate; id++ {
		t.delete(fmt.Sprintf("changelog/changelog-%d", id))
	}
	if k > t.clLate {
		t.delete("changelog/EARLIEST")
		t.delete("changelog/LATEST")
		t.clEarly, t.clLate = 0, 0
		return t
	}
	t.clEarly = k
	t.write("changelog/EARLIEST", []byte(fmt.Sprint(k)))
	return t
}

// RollbackTo does what Paimon's rollback_to does (RollbackHelper): it
// deletes the snapshots after id, the long-lived changelogs after id and the
// tags of snapshots after id, and sets LATEST to id (the changelog LATEST
// hint to the last kept changelog). Consumer files are left alone. The next
// Commit reuses id+1.
func (t *Table) RollbackTo(id int64) *Table {
	t.tb.Helper()
	if id < t.earliest || id > t.latest {
		t.tb.Fatalf("paimontest: rollback to %d: snapshots are %d..%d", id, t.earliest, t.latest)
	}
	for n := id + 1; n <= t.latest; n++ {
		t.delete(fmt.Sprintf("snapshot/snapshot-%d", n))
	}
	t.latest = id
	t.write("snapshot/LATEST", []byte(fmt.Sprint(id)))
	if t.clEarly != 0 && t.clLate > id {
		for n := max(id+1, t.clEarly); n <= t.clLate; n++ {
			t.delete(fmt.Sprintf("changelog/changelog-%d", n))
		}
		if id < t.clEarly {
			// As RollbackHelper: LATEST -1 (nothing known), EARLIEST left
			// naming a file that is gone.
			t.write("changelog/LATEST", []byte("-1"))
			t.clEarly, t.clLate = 0, 0
		} else {
			t.clLate = id
			t.write("changelog/LATEST", []byte(fmt.Sprint(id)))
		}
	}
	t.dropTagsAfter(id)
	return t
}

// Recommit rolls back to id and commits one snapshot per time with the
// reused ids id+1, id+2, …: what a writer does after rollback_to. A
// consumer that had passed those ids now points past data it never read.
func (t *Table) Recommit(id int64, times ...time.Time) *Table {
	t.tb.Helper()
	return t.RollbackTo(id).Commit(times...)
}

// dropTagsAfter deletes the tags of snapshots after id.
func (t *Table) dropTagsAfter(id int64) {
	t.tb.Helper()
	ctx := context.Background()
	dir := t.base + "tag/"
	it := t.bucket.List(&blob.ListOptions{Prefix: dir + "tag-", Delimiter: "/"})
	for {
		obj, err := it.Next(ctx)
		if err != nil {
			if err != io.EOF {
				t.tb.Fatalf("paimontest: list %s: %v", dir, err)
			}
			return
		}
		data, err := t.bucket.ReadAll(ctx, obj.Key)
		if err != nil {
			t.tb.Fatalf("paimontest: read %s: %v", obj.Key, err)
		}
		if s, err := paimon.ParseSnapshot(obj.Key, data); err == nil && s.ID > id {
			if err := t.bucket.Delete(ctx, obj.Key); err != nil {
				t.tb.Fatalf("paimontest: delete %s: %v", obj.Key, err)
			}
		}
	}
}

// SetHint writes raw content to snapshot/<name> (EARLIEST or LATEST): a
// stale id, garbage, an empty file.
func (t *Table) SetHint(name, content string) *Table {
	t.tb.Helper()
	t.write("snapshot/"+name, []byte(content))
	return t
}

// DeleteHint deletes snapshot/<name> (EARLIEST or LATEST).
func (t *Table) DeleteHint(name string) *Table {
	t.tb.Helper()
	t.delete("snapshot/" + name)
	return t
}

// Consumer writes consumer/consumer-<id> as Paimon's Java writer does:
// {\n  "nextSnapshot" : 42\n}.
func (t *Table) Consumer(id string, nextSnapshot int64) *Table {
	t.tb.Helper()
	t.write("consumer/consumer-"+id, paimon.ConsumerJSON(nextSnapshot))
	return t
}

// ConsumerPython writes consumer/consumer-<id> as pypaimon does:
// {"nextSnapshot": 42}.
func (t *Table) ConsumerPython(id string, nextSnapshot int64) *Table {
	t.tb.Helper()
	t.write("consumer/consumer-"+id, fmt.Appendf(nil, `{"nextSnapshot": %d}`, nextSnapshot))
	return t
}

// Branch returns a builder for branch name of the table: files under
// <table>/branch/branch-<name>/, starting with a copy of the newest schema
// (as create_branch does). It has no snapshots until Commit is called.
func (t *Table) Branch(name string) *Table {
	t.tb.Helper()
	b := &Table{tb: t.tb, bucket: t.bucket, path: t.path, base: t.path + "branch/branch-" + name + "/", schemaID: t.schemaID, options: maps.Clone(t.options), CommitUser: t.CommitUser}
	b.write(fmt.Sprintf("schema/schema-%d", b.schemaID), SchemaJSON(b.schemaID, b.options, time.UnixMilli(1784213607048)))
	return b
}

// Tag writes tag/tag-<name> holding snapshot-<id> as create_tag does (the
// snapshot JSON plus tagCreateTime). The snapshot must exist.
func (t *Table) Tag(name string, id int64) *Table {
	t.tb.Helper()
	data, err := t.bucket.ReadAll(context.Background(), t.base+fmt.Sprintf("snapshot/snapshot-%d", id))
	if err != nil {
		t.tb.Fatalf("paimontest: tag %s: read snapshot-%d: %v", name, id, err)
	}
	t.write("tag/tag-"+name, withTagFields(data))
	return t
}

func withTagFields(snapshot []byte) []byte {
	s := strings.TrimRight(string(snapshot), " \n")
	s = strings.TrimSuffix(s, "}")
	s = strings.TrimRight(s, " \n") + ",\n  \"tagCreateTime\" : [ 2026, 11, 29, 12, 0, 0, 0 ],\n  \"tagTimeRetained\" : null\n}"
	return []byte(s)
}

// BranchFromTag returns a builder for branch name created from tag as
// create_branch does: tag/tag-<tag> and its snapshot are copied into
// <table>/branch/branch-<name>/ with the newest schema, and no hint is
// written. The branch's ids start at the tag's snapshot id; Commit goes on
// from there.
func (t *Table) BranchFromTag(name, tag string) *Table {
	t.tb.Helper()
	ctx := context.Background()
	data, err := t.bucket.ReadAll(ctx, t.base+"tag/tag-"+tag)
	if err != nil {
		t.tb.Fatalf("paimontest: branch %s from tag %s: %v", name, tag, err)
	}
	s, err := paimon.ParseSnapshot(t.base+"tag/tag-"+tag, data)
	if err != nil {
		t.tb.Fatalf("paimontest: branch %s from tag %s: %v", name, tag, err)
	}
	snap, err := t.bucket.ReadAll(ctx, t.base+fmt.Sprintf("snapshot/snapshot-%d", s.ID))
	if err != nil {
		snap = SnapshotJSON(s.ID, s.SchemaID, s.Time, s.CommitUser) // the tagged snapshot expired in the main table
	}
	b := t.Branch(name)
	b.write("tag/tag-"+tag, data)
	b.write(fmt.Sprintf("snapshot/snapshot-%d", s.ID), snap)
	b.earliest, b.latest = s.ID, s.ID
	return b
}

// SnapshotJSON returns a version-3 snapshot file as Paimon's Java writer
// (Jackson's pretty printer) writes it.
func SnapshotJSON(id, schemaID int64, at time.Time, commitUser string) []byte {
	return fmt.Appendf(nil, `{
  "version" : 3,
  "id" : %d,
  "schemaId" : %d,
  "baseManifestList" : "manifest-list-4f1c8e2a-7b3d-4a5e-9c6f-%012d-0",
  "baseManifestListSize" : 1222,
  "deltaManifestList" : "manifest-list-4f1c8e2a-7b3d-4a5e-9c6f-%012d-1",
  "deltaManifestListSize" : 1108,
  "changelogManifestList" : null,
  "indexManifest" : null,
  "commitUser" : "%s",
  "commitIdentifier" : %d,
  "commitKind" : "APPEND",
  "timeMillis" : %d,
  "logOffsets" : { },
  "totalRecordCount" : %d,
  "deltaRecordCount" : 1,
  "changelogRecordCount" : 0,
  "watermark" : -9223372036854775808,
  "nextRowId" : 0
}`, id, schemaID, id, id, commitUser, id, at.UnixMilli(), id)
}

// jsonString quotes s as a JSON string, as Jackson does (no HTML escaping;
// invalid UTF-8 becomes U+FFFD).
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// SchemaJSON returns a schema file with one primary-key column and options,
// as Paimon writes it.
func SchemaJSON(id int64, options map[string]string, at time.Time) []byte {
	var opts strings.Builder
	keys := slices.Sorted(maps.Keys(options))
	if len(keys) == 0 {
		opts.WriteString("{ }")
	} else {
		opts.WriteString("{\n")
		for i, k := range keys {
			fmt.Fprintf(&opts, "    %s : %s", jsonString(k), jsonString(options[k]))
			if i < len(keys)-1 {
				opts.WriteString(",")
			}
			opts.WriteString("\n")
		}
		opts.WriteString("  }")
	}
	return fmt.Appendf(nil, `{
  "version" : 3,
  "id" : %d,
  "fields" : [ {
    "id" : 0,
    "name" : "id",
    "type" : "INT NOT NULL"
  }, {
    "id" : 1,
    "name" : "content",
    "type" : "STRING"
  } ],
  "highestFieldId" : 1,
  "partitionKeys" : [ ],
  "primaryKeys" : [ "id" ],
  "options" : %s,
  "comment" : "",
  "timeMillis" : %d
}`, id, opts.String(), at.UnixMilli())
}
