package resume

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/resumekit/resumekit/resume/redact"
)

// Record is the decision's second opinion: what the platform's own records
// say will be restored — Flink's HA store, its JobResultStore, a running
// JobManager's REST API, the flink-kubernetes-operator's resources — each
// beside what storage says about the same snapshot. A record is never
// trusted over storage: it only adds what storage cannot show (the old job
// still runs, it finished cleanly, HA recovery will restore a checkpoint
// storage calls broken). Package flinkckpt/record reads the records and
// fills this in; the decision document carries it as "record" (a
// resumekit.decision/v1 reader that predates it ignores it).
type Record struct {
	// Sources has one entry per record read, in the order given.
	Sources []RecordSource
}

// RecordKind names the kind of record a [RecordSource] was read from.
type RecordKind string

// The kinds of record.
const (
	// RecordFlinkHA is Flink's HA store (Kubernetes ConfigMaps or ZooKeeper):
	// the checkpoints HA recovery restores the newest of.
	RecordFlinkHA RecordKind = "flink-ha"
	// RecordJobResultStore is Flink's JobResultStore: a job's final status.
	RecordJobResultStore RecordKind = "flink-job-result-store"
	// RecordFlinkREST is a running JobManager's REST API.
	RecordFlinkREST RecordKind = "flink-rest"
	// RecordK8sOperator is a flink-kubernetes-operator FlinkDeployment or
	// FlinkSessionJob status, or its FlinkStateSnapshot resources.
	RecordK8sOperator RecordKind = "k8s-operator"
)

// RecordSource is what one record says, and what storage says about it.
type RecordSource struct {
	// Kind is the kind of record.
	Kind RecordKind
	// Source is where it was read (a file, a ZooKeeper address and path, a
	// URL), secrets redacted.
	Source string
	// JobID is the Flink job the record is about; "" when it names none.
	JobID string
	// Status is the job's status as the record says (RUNNING, FINISHED,
	// SUCCEEDED, …); "" when the record does not say.
	Status string
	// CheckpointID is the checkpoint or savepoint id the record will restore
	// from; 0 when it names none or does not know.
	CheckpointID int64
	// Path is the snapshot path the record will restore from (Flink's
	// external pointer); "" when it names none.
	Path string
	// At is when that snapshot was taken (or the record written), zero when
	// unknown.
	At time.Time
	// FinishedCleanly reports that the job reached a globally terminal
	// state that its record marks clean (JobResultStore: SUCCEEDED): the
	// old job cannot run on, and a stop-with-savepoint that ended it
	// completed.
	FinishedCleanly bool
	// Says is what the record says will happen, in one line.
	Says string
	// Storage is what storage says about the record's snapshot, in one
	// line: "restorable (the chosen snapshot)", "broken: …", "not found in
	// storage", …; "" when the record names no snapshot.
	Storage string
	// Err is why the record could not be read; the rest is then empty.
	Err error
	// Warnings grade every disagreement of this record with storage (the
	// "record." codes). The chosen candidate carries them too, so a gate
	// fails on them with --fail-on-warning.
	Warnings []Warning
}

// String is one line for people: kind, source and what the record says.
func (s RecordSource) String() string {
	if s.Err != nil {
		return fmt.Sprintf("%s %s: unreadable: %v", s.Kind, s.Source, s.Err)
	}
	return fmt.Sprintf("%s %s: %s", s.Kind, s.Source, s.Says)
}

type (
	recordJSON struct {
		Sources []recordSourceJSON `json:"sources"`
	}
	recordSourceJSON struct {
		Kind            RecordKind `json:"kind"`
		Source          string     `json:"source"`
		JobID           string     `json:"job_id,omitempty"`
		Status          string     `json:"status,omitempty"`
		CheckpointID    int64      `json:"checkpoint_id,omitempty"`
		Path            string     `json:"path,omitempty"`
		At              string     `json:"at,omitempty"`
		FinishedCleanly bool       `json:"finished_cleanly,omitempty"`
		Says            string     `json:"says,omitempty"`
		Storage         string     `json:"storage,omitempty"`
		Error           string     `json:"error,omitempty"`
		Warnings        []Warning  `json:"warnings"`
	}
)

// toRecordJSON returns the document's "record" section, nil when there is
// no record.
func toRecordJSON(r *Record) *recordJSON {
	if r == nil {
		return nil
	}
	out := &recordJSON{Sources: make([]recordSourceJSON, 0, len(r.Sources))}
	for _, s := range r.Sources {
		sj := recordSourceJSON{
			Kind: s.Kind, Source: oneLine(s.Source), JobID: s.JobID, Status: oneLine(s.Status),
			CheckpointID: s.CheckpointID, Path: oneLine(s.Path), FinishedCleanly: s.FinishedCleanly,
			Says: oneLine(s.Says), Storage: oneLine(s.Storage), Warnings: nonNilWarnings(s.Warnings),
		}
		if !s.At.IsZero() {
			sj.At = formatAt(s.At)
		}
		if s.Err != nil {
			sj.Error = oneLine(s.Err.Error())
		}
		out.Sources = append(out.Sources, sj)
	}
	return out
}

func (rj *recordJSON) record() (*Record, error) {
	if rj == nil {
		return nil, nil
	}
	out := &Record{}
	for i, sj := range rj.Sources {
		if sj.Kind == "" {
			return nil, fmt.Errorf("resume: decode decision: record source %d: no kind", i+1)
		}
		s := RecordSource{
			Kind: sj.Kind, Source: sj.Source, JobID: sj.JobID, Status: sj.Status,
			CheckpointID: sj.CheckpointID, Path: sj.Path, FinishedCleanly: sj.FinishedCleanly,
			Says: sj.Says, Storage: sj.Storage, Warnings: sj.Warnings,
		}
		if sj.At != "" {
			t, err := time.Parse(time.RFC3339Nano, sj.At)
			if err != nil {
				return nil, fmt.Errorf("resume: decode decision: record source %d: at %s: not an RFC 3339 time", i+1, redact.Quote(sj.At))
			}
			s.At = t.UTC()
		}
		if sj.Error != "" {
			s.Err = errors.New(sj.Error)
		}
		out.Sources = append(out.Sources, s)
	}
	return out, nil
}

// writeRecord writes the RECORD block of the report: each record, what it
// says, what storage says about its snapshot, and its disagreements.
func writeRecord(b *report, r *Record) {
	if r == nil || len(r.Sources) == 0 {
		return
	}
	b.WriteString("RECORD  (what Flink and the operator will restore by themselves, beside storage)\n")
	for _, s := range r.Sources {
		wrap(b, fmt.Sprintf("  %s %s: ", s.Kind, s.Source), "      ", recordSays(s))
		if s.Storage != "" {
			writeLine(b, "    ", "storage", s.Storage)
		}
		for _, w := range s.Warnings {
			writeLine(b, "    ", "warning", w.Text+" ["+string(w.Code)+"]")
		}
	}
}

func recordSays(s RecordSource) string {
	if s.Err != nil {
		return "unreadable: " + s.Err.Error()
	}
	return s.Says
}

// Explain returns the record section of the report (what Decision.Explain
// prints under RECORD), "" when there is no record.
func (r *Record) Explain() string {
	b := &report{width: ReportWidth}
	writeRecord(b, r)
	return b.b.String()
}

// MarshalJSON encodes the record section as the decision document carries
// it under "record".
func (r Record) MarshalJSON() ([]byte, error) {
	return json.Marshal(toRecordJSON(&r))
}

// FinishedCleanly reports whether a record says the old job finished
// cleanly (the JobResultStore's SUCCEEDED: a stop-with-savepoint that ended
// it completed, and it cannot run on): the fact sink rules use to treat the
// old job's last savepoint as final. False for a nil record.
func (r *Record) FinishedCleanly() bool {
	if r == nil {
		return false
	}
	for _, s := range r.Sources {
		if s.FinishedCleanly && s.Err == nil {
			return true
		}
	}
	return false
}
