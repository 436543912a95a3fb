package flinkckpttest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// Layout writes checkpoint trees into Bucket under Prefix.
type Layout struct {
	Bucket *blob.Bucket
	// Prefix is the key prefix of the checkpoint root ("" or "dir/").
	Prefix string
	// Root is the Flink file-system URI of the bucket's key "" (e.g.
	// "s3a://bucket/" or "hdfs://ns/flink/"): the Flink path of a key K is
	// Root+K, and absolute references are written that way.
	Root string
}

// FlinkRoot returns the Flink URI of the checkpoint root (Root+Prefix), what
// flinkckpt.Options.FlinkRoot expects.
func (l *Layout) FlinkRoot() string { return l.Root + l.Prefix }

// Checkpoint describes one chk-<n> (or savepoint) directory to write. The
// zero value (or nil) is a complete version 4 checkpoint with two
// operators and one relative exclusive file.
type Checkpoint struct {
	// Version of the _metadata format; 0 means 4.
	Version int
	// Operators is the number of operators; 0 means 2.
	Operators int
	// Exclusive is the number of relative files in the checkpoint dir; 0
	// means 1, negative means none.
	Exclusive int
	// Shared names files in the shared/ dir of SharedJob (default: the
	// checkpoint's own job), referenced by absolute Flink URIs.
	Shared    []string
	SharedJob string
	// Absolute lists further absolute Flink URIs to reference; files are
	// created at their keys when they lie under Root.
	Absolute []string
	// Entropy, when set, is inserted as a path segment after Root in the
	// Flink URIs and keys of absolute files (s3.entropy.key injection:
	// _metadata itself stays at the path without it).
	Entropy string
	// FileSize is the size of every state file; 0 means 16.
	FileSize int64
	// Savepoint, Format and Drained go into the properties (v4+).
	Savepoint bool
	Format    metadata.Format
	Drained   bool
	// Incomplete writes the state files but no _metadata (in progress,
	// failed, or half deleted).
	Incomplete bool
	// Corrupt writes a truncated _metadata that does not parse.
	Corrupt bool
	// SkipFiles writes _metadata only: every referenced file is missing.
	SkipFiles bool
	// Sources are source operators added after the Operators (see
	// Source): their reader and enumerator state, inline or in files of
	// the snapshot dir.
	Sources []Source
}

// Written says what Checkpoint or Savepoint wrote.
type Written struct {
	// Dir is the key of the chk-<n> or savepoint dir, with a trailing slash.
	Dir string
	// FlinkPath is its Flink URI (no trailing slash), what flink run -s takes.
	FlinkPath string
	Metadata  *metadata.Checkpoint
	// Files are the keys of the state files written.
	Files []string
}

// JobDir returns the key of a job dir ("" job means the layout has no job
// dirs: checkpoints sit directly under Prefix).
func (l *Layout) JobDir(job string) string {
	if job == "" {
		return l.Prefix
	}
	return l.Prefix + job + "/"
}

// Checkpoint writes <Prefix><job>/chk-<id>/ as c describes.
func (l *Layout) Checkpoint(ctx context.Context, job string, id int64, c *Checkpoint) (*Written, error) {
	return l.write(ctx, l.JobDir(job), fmt.Sprintf("chk-%d/", id), job, id, c)
}

// Savepoint writes <Prefix><name>/ (name like savepoint-<6 hex>-<12 hex>)
// as a savepoint with checkpoint id id.
func (l *Layout) Savepoint(ctx context.Context, name string, id int64, c *Checkpoint) (*Written, error) {
	cc := Checkpoint{}
	if c != nil {
		cc = *c
	}
	cc.Savepoint = true
	return l.write(ctx, l.Prefix, strings.TrimSuffix(name, "/")+"/", "", id, &cc)
}

// SavepointName returns a savepoint dir name for job as Flink forms it:
// savepoint-<first 6 of the job id>-<12 hex>, the suffix derived from seed.
func SavepointName(job string, seed int) string {
	sum := sha256.Sum256([]byte(fmt.Sprint(job, seed)))
	return fmt.Sprintf("savepoint-%s-%s", job[:min(6, len(job))], hex.EncodeToString(sum[:6]))
}

// OperatorID returns a deterministic 32-hex operator id for index i.
func OperatorID(i int) string {
	sum := sha256.Sum256([]byte(fmt.Sprint("operator", i)))
	return hex.EncodeToString(sum[:16])
}

func (l *Layout) write(ctx context.Context, parent, name, job string, id int64, c *Checkpoint) (*Written, error) {
	cc := Checkpoint{}
	if c != nil {
		cc = *c
	}
	if cc.Version == 0 {
		cc.Version = 4
	}
	if cc.Operators == 0 {
		cc.Operators = 2
	}
	if cc.Exclusive == 0 {
		cc.Exclusive = 1
	}
	if cc.FileSize == 0 {
		cc.FileSize = 16
	}
	dir := parent + name
	w := &Written{Dir: dir, FlinkPath: l.Root + strings.TrimSuffix(dir, "/")}
	type file struct {
		key  string
		size int64
	}
	var files []file
	contents := map[string][]byte{}
	var relative []string
	for i := 0; i < cc.Exclusive; i++ {
		rel := fmt.Sprintf("%08x-exclusive-%d", id, i)
		relative = append(relative, rel)
		files = append(files, file{dir + rel, cc.FileSize})
	}
	entropy := ""
	if cc.Entropy != "" {
		entropy = strings.Trim(cc.Entropy, "/") + "/"
	}
	sharedJob := cc.SharedJob
	if sharedJob == "" {
		sharedJob = job
	}
	var absolute []string
	for _, s := range cc.Shared {
		key := entropy + l.JobDir(sharedJob) + "shared/" + s
		absolute = append(absolute, l.Root+key)
		files = append(files, file{key, cc.FileSize})
	}
	for _, a := range cc.Absolute {
		absolute = append(absolute, a)
		if strings.HasPrefix(a, l.Root) {
			files = append(files, file{strings.TrimPrefix(a, l.Root), cc.FileSize})
		}
	}
	md := (&Spec{
		Version: cc.Version, CheckpointID: id, Operators: cc.Operators, Relative: relative,
		Absolute: absolute, FileSize: cc.FileSize, Savepoint: cc.Savepoint, Format: cc.Format, Drained: cc.Drained,
	}).Metadata()
	for _, sf := range l.addSources(md, dir, cc.Sources) {
		files = append(files, file{sf.key, int64(len(sf.data))})
		contents[sf.key] = sf.data
	}
	w.Metadata = md
	if !cc.SkipFiles {
		for _, f := range files {
			data, ok := contents[f.key]
			if !ok {
				data = bytes.Repeat([]byte{'s'}, int(f.size))
			}
			if err := l.Bucket.WriteAll(ctx, f.key, data, nil); err != nil {
				return nil, fmt.Errorf("flinkckpttest: write %q: %w", f.key, err)
			}
			w.Files = append(w.Files, f.key)
		}
	}
	if cc.Incomplete {
		return w, nil
	}
	data, err := Encode(md)
	if err != nil {
		return nil, err
	}
	if cc.Corrupt {
		data = data[:len(data)/2]
	}
	if err := l.Bucket.WriteAll(ctx, dir+"_metadata", data, nil); err != nil {
		return nil, fmt.Errorf("flinkckpttest: write %q: %w", dir+"_metadata", err)
	}
	return w, nil
}

// Spec builds the Metadata of a typical incremental RocksDB checkpoint:
// Operators operators of one subtask each; the first operator's keyed state
// references every Absolute URI as shared state and every Relative path as
// private state (incremental handle type 11, or 5 before version 4).
type Spec struct {
	Version      int
	CheckpointID int64
	Operators    int
	Relative     []string
	Absolute     []string
	FileSize     int64
	Savepoint    bool
	Format       metadata.Format
	Drained      bool
}

// Metadata returns the Metadata Spec describes, ready for Encode.
func (s *Spec) Metadata() *metadata.Checkpoint {
	md := &metadata.Checkpoint{Version: s.Version, CheckpointID: s.CheckpointID, Savepoint: s.Savepoint, Format: s.Format, Drained: s.Drained}
	for i := 0; i < s.Operators; i++ {
		op := metadata.Operator{ID: OperatorID(i), Parallelism: 1, MaxParallelism: 128}
		if s.Version >= 5 {
			op.Name, op.UID = fmt.Sprintf("operator-%d", i), fmt.Sprintf("uid-%d", i)
		}
		st := metadata.SubtaskState{Index: 0}
		if s.Version == 2 {
			st.Duration = 0
		}
		if i == 0 {
			kt := metadata.TypeIncrementalV2
			if s.Version < 4 {
				kt = metadata.TypeIncremental
			}
			k := &metadata.KeyedHandle{Type: kt, CheckpointID: s.CheckpointID, BackendID: "0b8c5e0a-6d0b-4f8e-9f65-2f2c9b1a7e11",
				KeyGroupStart: 0, KeyGroupCount: 128,
				Stream: &metadata.StreamHandle{Type: metadata.TypeByteStream, Name: "meta", Data: []byte("meta")}}
			if kt == metadata.TypeIncrementalV2 {
				k.CheckpointedSize = s.FileSize * int64(len(s.Absolute)+len(s.Relative))
				k.HandleID = fmt.Sprintf("handle-%d", s.CheckpointID)
			}
			for j, a := range s.Absolute {
				k.Shared = append(k.Shared, metadata.NamedHandle{LocalPath: fmt.Sprintf("%06d.sst", j),
					Handle: &metadata.StreamHandle{Type: metadata.TypeFile, Path: a, Size: s.FileSize}})
			}
			for j, r := range s.Relative {
				k.Private = append(k.Private, metadata.NamedHandle{LocalPath: fmt.Sprintf("MANIFEST-%06d", j),
					Handle: &metadata.StreamHandle{Type: metadata.TypeRelativeFile, Path: r, Size: s.FileSize}})
			}
			st.ManagedKeyed = k
		} else {
			st.ManagedOperator = &metadata.OperatorHandle{Type: metadata.TypeOperatorStream,
				States: []metadata.OperatorStateInfo{{Name: "source-state", Mode: 1, Offsets: []int64{0}}},
				Stream: &metadata.StreamHandle{Type: metadata.TypeByteStream, Name: "op", Data: []byte{0, 0, 0, 1}}}
		}
		op.SubtaskStates = []metadata.SubtaskState{st}
		op.Subtasks = 1
		md.Operators = append(md.Operators, op)
	}
	return md
}
