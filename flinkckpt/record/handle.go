package record

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/resumekit/resumekit/resume/redact"
)

// ErrMalformed marks a record whose bytes are not what Flink or the
// operator writes (check with errors.Is). A malformed record is said in
// the decision's record section, never trusted over storage.
var ErrMalformed = errors.New("record: malformed")

// MalformedError says which record, where and what is wrong with it.
type MalformedError struct {
	// Record names the object: a ConfigMap key, a znode, a file, a URL.
	Record string
	// Msg says what is wrong.
	Msg string
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("record: %s: %s", redact.Quote(e.Record), e.Msg)
}

// Is makes errors.Is(err, ErrMalformed) true.
func (e *MalformedError) Is(target error) bool { return target == ErrMalformed }

func malformed(rec, format string, args ...any) error {
	return &MalformedError{Record: rec, Msg: fmt.Sprintf(format, args...)}
}

// MaxHandleBytes bounds a serialized state handle (a ConfigMap value, a
// znode): Flink's are a few hundred bytes; ZooKeeper's own limit is 1 MiB.
const MaxHandleBytes = 1 << 20

// ParseHandle reads the state handle Flink's HA store keeps for one
// checkpoint: the Java-serialized RetrievableStreamStateHandle of a
// ZooKeeper node, or the StateHandleWithDeleteMarker around it of a
// Kubernetes ConfigMap value (after base64). It returns the path of the
// file under high-availability.storageDir that holds the
// CompletedCheckpoint, and whether the entry is marked for deletion (Flink
// skips such entries on recovery). name names the record in errors.
func ParseHandle(name string, data []byte) (file string, markedForDeletion bool, err error) {
	if len(data) > MaxHandleBytes {
		return "", false, malformed(name, "state handle of %d bytes, over %d", len(data), MaxHandleBytes)
	}
	v, err := readJavaObject(name, data)
	if err != nil {
		return "", false, malformed(name, "state handle: %v", err)
	}
	o, _ := v.(*jobject)
	if o == nil {
		return "", false, malformed(name, "state handle: not an object")
	}
	if strings.HasSuffix(o.class, "StateHandleWithDeleteMarker") {
		markedForDeletion, _ = o.field("markedForDeletion").(bool)
		o = o.object("inner")
	}
	if o != nil && strings.HasSuffix(o.class, "RetrievableStreamStateHandle") {
		o = o.object("wrappedStreamStateHandle")
	}
	file = filePath(o)
	if file == "" {
		cls := "nothing"
		if o != nil {
			cls = o.class
		}
		return "", markedForDeletion, malformed(name, "state handle: no file path (wraps %s)", redact.Quote(cls))
	}
	return file, markedForDeletion, nil
}

// filePath returns the path of a FileStateHandle (or RelativeFileStateHandle):
// filePath, a Flink Path, whose uri is a java.net.URI, whose string is the path.
func filePath(o *jobject) string {
	p := o.object("filePath")
	if p == nil {
		return ""
	}
	if s, ok := p.str("uri"); ok { // a Path that serialized its URI as a string
		return s
	}
	s, _ := p.object("uri").str("string")
	return s
}

// Completed is what the CompletedCheckpoint file Flink's HA store points to
// says: the checkpoint HA recovery restores.
type Completed struct {
	// JobID is the job the checkpoint belongs to (32 hex digits).
	JobID string
	// CheckpointID is the checkpoint's id.
	CheckpointID int64
	// TriggeredAt is when the checkpoint was triggered.
	TriggeredAt time.Time
	// ExternalPointer is the checkpoint's dir (what flink run -s takes);
	// "" when the checkpoint was not externalized.
	ExternalPointer string
	// Savepoint reports that the snapshot is a savepoint (its properties'
	// type).
	Savepoint bool
}

// MaxCompletedBytes bounds a CompletedCheckpoint file read from HA storage:
// it holds every operator's state handles (and their inline state), tens
// of kilobytes to a few megabytes for real jobs.
const MaxCompletedBytes = 64 << 20

// ParseCompleted reads a CompletedCheckpoint file of HA storage (written by
// Flink's FileSystemStateStorageHelper: one Java-serialized
// CompletedCheckpoint). name names the file in errors.
func ParseCompleted(name string, data []byte) (*Completed, error) {
	if len(data) > MaxCompletedBytes {
		return nil, malformed(name, "completed checkpoint of %d bytes, over %d", len(data), MaxCompletedBytes)
	}
	v, err := readJavaObject(name, data)
	if err != nil {
		return nil, malformed(name, "completed checkpoint: %v", err)
	}
	o, _ := v.(*jobject)
	if o == nil || !strings.HasSuffix(o.class, ".CompletedCheckpoint") {
		cls := "not an object"
		if o != nil {
			cls = redact.Quote(o.class)
		}
		return nil, malformed(name, "not a CompletedCheckpoint (%s)", cls)
	}
	c := &Completed{}
	id, ok := o.long("checkpointID")
	if !ok || id < 0 || id > 1<<62 {
		return nil, malformed(name, "completed checkpoint: checkpoint id missing or out of range")
	}
	c.CheckpointID = id
	if ts, ok := o.long("timestamp"); ok && ts > 0 && ts < 1<<53 {
		c.TriggeredAt = time.UnixMilli(ts).UTC()
	}
	c.ExternalPointer, _ = o.str("externalPointer")
	job := o.object("job")
	up, ok1 := job.long("upperPart")
	lo, ok2 := job.long("lowerPart")
	if !ok1 || !ok2 {
		return nil, malformed(name, "completed checkpoint %d: no job id", id)
	}
	// AbstractID.toString: the lower part's bytes, then the upper part's.
	c.JobID = fmt.Sprintf("%016x%016x", uint64(lo), uint64(up))
	if props := o.object("props"); props != nil {
		switch t := props.field("checkpointType").(type) {
		case *jenum: // Flink < 1.16: an enum CheckpointType
			c.Savepoint = strings.Contains(t.name, "SAVEPOINT")
		case *jobject: // 1.16+: CheckpointType or SavepointType objects
			c.Savepoint = strings.HasSuffix(t.class, "SavepointType")
		}
	}
	return c, nil
}
