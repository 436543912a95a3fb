package flinkckpttest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// Layout writes checkpoint trees into Bucket under Prefix.
type Layout struct {
	// Bucket receives the trees; the caller opens and closes it.
	Bucket *blob.Bucket
	// Prefix is the key prefix of the checkpoint root ("" or "dir/").
	Prefix string
	// Root is the Flink file-system URI of the bucket's key "" (e.g.
	// "s3a://bucket/", "hdfs://ns/flink/", "file:///data/"): the Flink path
	// of a key K is Root+K, and absolute references are written that way.
	Root string
	// PathString writes absolute references as Flink does: its
	// Path.toString() leaves out "//" when the URI has no authority, so a
	// local checkpoint dir file:///data/ck gives references
	// file:/data/ck/<job>/shared/… and hdfs:///flink/ck (the default name
	// service) gives hdfs:/flink/ck/…. Written.FlinkPath keeps Root's
	// spelling.
	PathString bool
}

// PathString returns uri as Flink's Path.toString() spells it: without "//"
// when the authority is empty (file:///data/ck → file:/data/ck); other URIs
// are returned as they are.
func PathString(uri string) string {
	i := strings.Index(uri, ":///")
	if i <= 0 || strings.ContainsAny(uri[:i], "/?#") {
		return uri
	}
	return uri[:i+1] + uri[i+3:]
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
	// Savepoint, Format, Drained and Action (the post-checkpoint action;
	// NONE when empty) go into the properties (v4+).
	Savepoint bool
	Format    metadata.Format
	Drained   bool
	Action    metadata.PostCheckpointAction
	// UIDs, when set, are the operators' uids (and their number): each
	// operator's id is jobgraph.OperatorID of its uid, and from _metadata
	// version 5 on the uid and a name ("operator <uid>") are recorded, so
	// labels and ids always come from the same uid. By default the uids
	// are "uid-0", "uid-1", ….
	UIDs []string
	// OperatorIDs, when set (and UIDs is not), are the operators' ids
	// (and their number): snapshots of different applications have
	// different ids. No uid is known for such an id, so from version 5 on
	// none is recorded (a uid-less operator, named "operator-<i>"). Set
	// UIDs instead to record them.
	OperatorIDs []string
	// MetadataID, when not 0, is the checkpoint id written in _metadata
	// instead of the dir's (a chk dir copied by hand).
	MetadataID int64
	// StateBackend is the keyed state's handle family: "" or
	// "rocksdb-incremental" (type 11; 5 before v4), "full" (key groups,
	// type 12; 3 before v4, one subtask per file), "canonical" (savepoint
	// key groups, type 7) or "changelog" (type 14 around the incremental
	// handle; 8 before v4).
	StateBackend string
	// UnionState is the size of inline union list operator state, written
	// as one more operator whose subtasks each hold at most 1 MiB inline —
	// Flink's largest execution.checkpointing.data-inline-threshold — as a
	// large union list state's _metadata does. The file is streamed to the
	// bucket, so hundreds of MB cost little memory.
	UnionState int64
	// Unaligned gives the first subtask in-flight data (channel state) of
	// an unaligned checkpoint, inline.
	Unaligned bool
	// FinishedOperators adds that many fully finished operators (v3+).
	FinishedOperators int
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
	// DSTL, when set, makes the keyed state a changelog backend's
	// (StateBackend "changelog") whose non-materialized part lives in the
	// files of Flink's filesystem changelog storage, as FORMATS.md
	// describes: changelog file handles (type 13; 10 before version 4)
	// referencing <DSTL.Base>/<job>/dstl/<uuid> (StateChangeFsUploader),
	// the base being state.changelog.dstl.dfs.base-path.
	DSTL *DSTL
}

// DSTL describes the changelog storage files of a checkpoint (see
// Checkpoint.DSTL).
type DSTL struct {
	// Base is the Flink URI of state.changelog.dstl.dfs.base-path, e.g.
	// "s3a://bucket/dstl" or "s3a://other-bucket/changelog".
	Base string
	// Files is the number of DSTL files referenced; 0 means 1.
	Files int
	// Bucket receives the files when Base is not under Layout.Root (nil:
	// Layout.Bucket, and Base must be under Layout.Root); Key is the key
	// of Base in it ("" or ending in "/").
	Bucket *blob.Bucket
	Key    string
}

// DSTLFile returns the Flink URI of the i-th DSTL file a checkpoint of job
// with id references under base: <base>/<job>/dstl/<uuid>, the uuid
// derived from job, id and i.
func DSTLFile(base, job string, id int64, i int) string {
	sum := sha256.Sum256([]byte(fmt.Sprint("dstl", job, id, i)))
	h := hex.EncodeToString(sum[:16])
	return fmt.Sprintf("%s/%s/dstl/%s-%s-%s-%s-%s", strings.TrimSuffix(base, "/"), job, h[:8], h[8:12], h[12:16], h[16:20], h[20:32])
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

// OperatorID returns the operator id of index i: the id Flink derives from
// the uid "uid-<i>" (jobgraph.OperatorID), which is the uid the writer
// records for it from _metadata version 5 on — so a test that describes
// the new job by those uids matches the snapshot as Flink would.
func OperatorID(i int) string {
	return jobgraph.OperatorID(fmt.Sprintf("uid-%d", i))
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
	if len(cc.UIDs) > 0 && len(cc.OperatorIDs) > 0 {
		return nil, fmt.Errorf("flinkckpttest: Checkpoint has both UIDs and OperatorIDs: give the operators one way")
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
	var dstl []string
	if d := cc.DSTL; d != nil {
		cc.StateBackend = "changelog"
		bucket, key := d.Bucket, d.Key
		base := strings.TrimSuffix(d.Base, "/") + "/"
		if bucket == nil {
			if !strings.HasPrefix(base, l.Root) {
				return nil, fmt.Errorf("flinkckpttest: DSTL base %q is not under the layout's root %q and no bucket is given", d.Base, l.Root)
			}
			key = strings.TrimPrefix(base, l.Root)
		}
		for i := range max(1, d.Files) {
			u := DSTLFile(d.Base, job, id, i)
			dstl = append(dstl, u)
			k := key + strings.TrimPrefix(u, base)
			if bucket == nil {
				files = append(files, file{k, cc.FileSize})
			} else if !cc.SkipFiles {
				if err := bucket.WriteAll(ctx, k, bytes.Repeat([]byte{'c'}, int(cc.FileSize)), nil); err != nil {
					return nil, fmt.Errorf("flinkckpttest: write %q: %w", k, err)
				}
			}
		}
	}
	if l.PathString {
		for i, a := range absolute {
			absolute[i] = PathString(a)
		}
		for i, a := range dstl {
			dstl[i] = PathString(a)
		}
	}
	mdID := id
	if cc.MetadataID != 0 {
		mdID = cc.MetadataID
	}
	md := (&Spec{
		Version: cc.Version, CheckpointID: mdID, Operators: cc.Operators, Relative: relative,
		Absolute: absolute, FileSize: cc.FileSize, Savepoint: cc.Savepoint, Format: cc.Format, Drained: cc.Drained,
		Action: cc.Action, UIDs: cc.UIDs, OperatorIDs: cc.OperatorIDs, StateBackend: cc.StateBackend, UnionState: cc.UnionState,
		Unaligned: cc.Unaligned, FinishedOperators: cc.FinishedOperators, DSTL: dstl,
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
	if cc.UnionState > 0 && !cc.Corrupt {
		if err := l.stream(ctx, dir+"_metadata", md); err != nil {
			return nil, err
		}
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

// stream writes a large _metadata through a bucket writer as it is encoded.
func (l *Layout) stream(ctx context.Context, key string, md *metadata.Checkpoint) error {
	bw, err := l.Bucket.NewWriter(ctx, key, nil)
	if err != nil {
		return fmt.Errorf("flinkckpttest: write %q: %w", key, err)
	}
	_, err = EncodeTo(bw, md)
	if cerr := bw.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("flinkckpttest: write %q: %w", key, err)
	}
	return nil
}

// Spec builds the Metadata of a typical incremental RocksDB checkpoint:
// Operators operators of one subtask each; the first operator's keyed state
// references every Absolute URI as shared state and every Relative path as
// private state (incremental handle type 11, or 5 before version 4). The
// fields after Drained are those of [Checkpoint] of the same names.
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

	Action            metadata.PostCheckpointAction
	UIDs              []string
	OperatorIDs       []string
	StateBackend      string
	UnionState        int64
	Unaligned         bool
	FinishedOperators int
	// DSTL are the Flink URIs of changelog storage files (see
	// Checkpoint.DSTL): with StateBackend "changelog" the non-materialized
	// state is one changelog file handle per file instead of inline
	// changes.
	DSTL []string
}

// inlineMax is Flink's largest execution.checkpointing.data-inline-threshold
// (1 MiB): state handles up to it are written into _metadata.
const inlineMax = 1 << 20

// Metadata returns the Metadata Spec describes, ready for Encode.
func (s *Spec) Metadata() *metadata.Checkpoint {
	md := &metadata.Checkpoint{Version: s.Version, CheckpointID: s.CheckpointID, Savepoint: s.Savepoint, Format: s.Format, Drained: s.Drained}
	if s.Savepoint && s.Version >= 4 {
		md.Action = s.Action
		switch {
		case s.Drained:
			md.Action = metadata.ActionTerminate
		case md.Action == "":
			md.Action = metadata.ActionNone
		}
	}
	n := s.Operators
	switch {
	case len(s.UIDs) > 0:
		n = len(s.UIDs)
	case len(s.OperatorIDs) > 0:
		n = len(s.OperatorIDs)
	}
	for i := 0; i < n; i++ {
		// The id and the recorded uid and name come from one uid; an id
		// given without one records none.
		uid := fmt.Sprintf("uid-%d", i)
		name := fmt.Sprintf("operator-%d", i)
		id := OperatorID(i)
		switch {
		case len(s.UIDs) > 0:
			uid, name = s.UIDs[i], "operator "+s.UIDs[i]
			id = jobgraph.OperatorID(uid)
		case len(s.OperatorIDs) > 0:
			uid, id = "", s.OperatorIDs[i]
		}
		op := metadata.Operator{ID: id, Parallelism: 1, MaxParallelism: 128}
		if s.Version >= 5 {
			op.Name, op.UID = name, uid
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
			st.ManagedKeyed = s.keyed(k)
			if s.Unaligned && s.Version >= 3 {
				ch := metadata.ChannelHandle{Subtask: 0, Info: [2]int32{0, 0}, Offsets: []int64{0}, Size: 4,
					Stream: &metadata.StreamHandle{Type: metadata.TypeByteStream, Name: "in-flight", Data: []byte{1, 2, 3, 4}}}
				if s.Version >= 6 {
					ch.Type = metadata.ChannelInput
				}
				st.InputChannels = []metadata.ChannelHandle{ch}
			}
		} else {
			st.ManagedOperator = &metadata.OperatorHandle{Type: metadata.TypeOperatorStream,
				States: []metadata.OperatorStateInfo{{Name: "source-state", Mode: 1, Offsets: []int64{0}}},
				Stream: &metadata.StreamHandle{Type: metadata.TypeByteStream, Name: "op", Data: []byte{0, 0, 0, 1}}}
		}
		op.SubtaskStates = []metadata.SubtaskState{st}
		if i == 0 && (s.StateBackend == "full" || s.StateBackend == "canonical") {
			op.SubtaskStates = s.fullSubtasks(st.ManagedKeyed)
			if len(st.InputChannels) > 0 {
				// The in-flight data of an unaligned checkpoint stays with
				// the first subtask, as for the other backends.
				if len(op.SubtaskStates) == 0 {
					op.SubtaskStates = []metadata.SubtaskState{{Index: 0}}
				}
				op.SubtaskStates[0].InputChannels = st.InputChannels
			}
			op.Parallelism = max(1, len(op.SubtaskStates))
		}
		op.Subtasks = len(op.SubtaskStates)
		md.Operators = append(md.Operators, op)
	}
	for i := 0; i < s.FinishedOperators && s.Version >= 3; i++ {
		md.Operators = append(md.Operators, metadata.Operator{ID: OperatorID(1000 + i), Parallelism: 1, MaxParallelism: 128, Finished: true})
	}
	if s.UnionState > 0 {
		md.Operators = append(md.Operators, unionOperator(s.UnionState))
	}
	return md
}

// keyed wraps the incremental handle k as StateBackend says.
func (s *Spec) keyed(k *metadata.KeyedHandle) *metadata.KeyedHandle {
	if s.StateBackend != "changelog" {
		return k
	}
	t := metadata.TypeChangelogV2
	if s.Version < 4 {
		t = metadata.TypeChangelog
	}
	nonMaterialized := []*metadata.KeyedHandle{{Type: metadata.TypeChangelogBytes, KeyGroupStart: 0, KeyGroupCount: 128, From: 1, To: 2,
		Changes: []metadata.StateChange{{KeyGroup: 0, Data: []byte{1}}}, HandleID: "changes"}}
	if len(s.DSTL) > 0 {
		// ChangelogStateHandleStreamImpl: the increments uploaded since the
		// materialization, each a file of the changelog storage read from
		// an offset.
		ft := metadata.TypeChangelogFileV2
		if s.Version < 4 {
			ft = metadata.TypeChangelogFile
		}
		nonMaterialized = nil
		for j, u := range s.DSTL {
			h := &metadata.KeyedHandle{Type: ft, KeyGroupStart: 0, KeyGroupCount: 128,
				Increments: []metadata.OffsetHandle{{Offset: 0, Handle: &metadata.StreamHandle{Type: metadata.TypeFile, Path: u, Size: s.FileSize}}},
				StateSize:  s.FileSize, CheckpointedSize: s.FileSize, HandleID: fmt.Sprintf("dstl-%d-%d", s.CheckpointID, j)}
			if ft == metadata.TypeChangelogFileV2 {
				h.StorageID = "filesystem"
			}
			nonMaterialized = append(nonMaterialized, h)
		}
	}
	return &metadata.KeyedHandle{Type: t, KeyGroupStart: 0, KeyGroupCount: 128, CheckpointedSize: k.CheckpointedSize,
		Materialized: []*metadata.KeyedHandle{k}, NonMaterialized: nonMaterialized,
		MaterializationID: 1, CheckpointID: s.CheckpointID, HandleID: fmt.Sprintf("changelog-%d", s.CheckpointID)}
}

// fullSubtasks turns the files of an incremental handle into one subtask
// per file, each a key-groups handle (full snapshot or canonical
// savepoint).
func (s *Spec) fullSubtasks(k *metadata.KeyedHandle) []metadata.SubtaskState {
	t := metadata.TypeKeyGroupsV2
	switch {
	case s.StateBackend == "canonical":
		t = metadata.TypeSavepointKeyGroups
	case s.Version < 4:
		t = metadata.TypeKeyGroups
	}
	var out []metadata.SubtaskState
	for j, f := range append(append([]metadata.NamedHandle(nil), k.Shared...), k.Private...) {
		h := &metadata.KeyedHandle{Type: t, KeyGroupStart: int32(j), KeyGroupCount: 1, Offsets: []int64{0}, Stream: f.Handle}
		if t == metadata.TypeKeyGroupsV2 {
			h.HandleID = fmt.Sprintf("kg-%d", j)
		}
		out = append(out, metadata.SubtaskState{Index: int32(j), ManagedKeyed: h})
	}
	return out
}

// unionOperator is an operator whose union list state is size bytes
// inline, at most inlineMax per subtask; every subtask's bytes are views of
// one shared buffer.
func unionOperator(size int64) metadata.Operator {
	chunk := bytes.Repeat([]byte{'u'}, int(min(size, inlineMax)))
	op := metadata.Operator{ID: OperatorID(2000), MaxParallelism: 32768}
	for i := 0; size > 0; i++ {
		n := min(size, inlineMax)
		size -= n
		op.SubtaskStates = append(op.SubtaskStates, metadata.SubtaskState{Index: int32(i),
			ManagedOperator: &metadata.OperatorHandle{Type: metadata.TypeOperatorStream,
				States: []metadata.OperatorStateInfo{{Name: "union-state", Mode: metadata.ModeUnion, Offsets: []int64{0}}},
				Stream: &metadata.StreamHandle{Type: metadata.TypeByteStream, Name: fmt.Sprintf("union-%d", i), Data: chunk[:n]}}})
	}
	op.Parallelism = len(op.SubtaskStates)
	op.Subtasks = len(op.SubtaskStates)
	return op
}
