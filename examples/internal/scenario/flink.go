package scenario

import (
	"fmt"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
)

// Flink is a Flink CDC job (MySQL CDC resumes only from Flink state) whose
// JobManager crashed: its HA pointer is gone and it must come back from the
// newest retained checkpoint that is really complete.
type Flink struct {
	// Checkpoints is the checkpoint root's key prefix; Savepoints the
	// savepoint directory's.
	Checkpoints, Savepoints string
	// JobID is the crashed job's id.
	JobID string
	// Good is the Flink path of the checkpoint to restore (chk-41).
	Good string
}

// BuildFlink writes <prefix>checkpoints/<job>/ with chk-41 (complete, 11:41),
// chk-42 (complete but one of its shared RocksDB files was deleted, 11:42) and
// chk-43 (no _metadata: in progress when the JobManager died), plus a
// savepoint from the day before in <prefix>savepoints/.
func BuildFlink(e *Env, prefix string) (*Flink, error) {
	ctx := ctxBackground()
	f := &Flink{Checkpoints: prefix + "checkpoints/", Savepoints: prefix + "savepoints/", JobID: "9f2c6d0b41e8a7355c1d2e3f4a5b6c7d"}
	// Absolute references as Flink writes them: Path.toString() spells a
	// local file:///dir as file:/dir.
	ck := &flinkckpttest.Layout{Bucket: e.Bucket, Prefix: f.Checkpoints, Root: e.Root, PathString: true}
	sp := &flinkckpttest.Layout{Bucket: e.Bucket, Prefix: f.Savepoints, Root: e.Root}
	base := Now.Add(-time.Hour)

	w41, err := ck.Checkpoint(ctx, f.JobID, 41, &flinkckpttest.Checkpoint{Operators: 3, Shared: []string{"sst-0001", "sst-0002"}})
	if err != nil {
		return nil, err
	}
	f.Good = w41.FlinkPath
	w42, err := ck.Checkpoint(ctx, f.JobID, 42, &flinkckpttest.Checkpoint{Operators: 3, Shared: []string{"sst-0001", "sst-0002", "sst-0003"}})
	if err != nil {
		return nil, err
	}
	deleted := ""
	for _, k := range w42.Files {
		if len(k) > 8 && k[len(k)-8:] == "sst-0003" {
			deleted = k
		}
	}
	if deleted == "" {
		return nil, fmt.Errorf("scenario: chk-42 wrote no sst-0003")
	}
	if err := e.Bucket.Delete(ctx, deleted); err != nil {
		return nil, err
	}
	if _, err := ck.Checkpoint(ctx, f.JobID, 43, &flinkckpttest.Checkpoint{Operators: 3, Incomplete: true}); err != nil {
		return nil, err
	}
	wsp, err := sp.Savepoint(ctx, flinkckpttest.SavepointName(f.JobID, 7), 12, &flinkckpttest.Checkpoint{Operators: 3, Savepoint: true, Format: "CANONICAL"})
	if err != nil {
		return nil, err
	}
	for key, t := range map[string]time.Time{
		w41.Dir + "_metadata": base.Add(41 * time.Minute),
		w42.Dir + "_metadata": base.Add(42 * time.Minute),
		wsp.Dir + "_metadata": Now.Add(-18 * time.Hour),
	} {
		if err := e.touch(key, t); err != nil {
			return nil, err
		}
	}
	return f, nil
}
