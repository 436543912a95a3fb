package record

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/internal/keyprefix"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

// JobResult is one entry of Flink's JobResultStore
// (job-result-store.storage-path; FileSystemJobResultStore): a job that
// reached a globally terminal state. A dirty entry's cleanup (HA data,
// checkpoints it owned) had not finished; a clean one's had. Either way a
// recovering Dispatcher does not run the job again.
type JobResult struct {
	JobID string
	// Clean reports a clean entry (<job>.json), false a dirty one
	// (<job>_DIRTY.json).
	Clean bool
	// ApplicationStatus is the final status: SUCCEEDED (FINISHED, what a
	// stop-with-savepoint ends in), FAILED, CANCELED or UNKNOWN.
	ApplicationStatus string
	// Key is the entry's key in the bucket.
	Key string
}

// FinishedCleanly reports that the job finished (SUCCEEDED): it cannot run
// on, and a stop-with-savepoint that stopped it completed.
func (r JobResult) FinishedCleanly() bool { return r.ApplicationStatus == "SUCCEEDED" }

// MaxJobResultBytes bounds one entry: Flink's are a few hundred bytes (a
// failure cause can add a stack trace).
const MaxJobResultBytes = 1 << 20

// maxJobResults bounds the entries listed.
const maxJobResults = 100_000

// The entry names of FileSystemJobResultStore.
const (
	dirtySuffix = "_DIRTY.json"
	cleanSuffix = ".json"
)

// ReadJobResults reads the JobResultStore under prefix. With a job id it
// reads that job's two possible entries (dirty first) and no listing: two
// reads at most; without, it lists prefix once and reads every entry. A
// job without an entry is no error: the result is empty. A malformed entry
// is a *MalformedError naming its key.
func ReadJobResults(ctx context.Context, b *blob.Bucket, prefix, jobID string) ([]JobResult, error) {
	prefix = keyprefix.Normalize(prefix)
	var keys []string
	if jobID != "" {
		if !jobIDPattern.MatchString(jobID) {
			return nil, fmt.Errorf("record: job id %s is not 32 hex digits", redact.Quote(jobID))
		}
		keys = []string{prefix + jobID + dirtySuffix, prefix + jobID + cleanSuffix}
	} else {
		it := b.List(&blob.ListOptions{Prefix: prefix, Delimiter: "/"})
		for {
			o, err := it.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("record: job result store %s: list: %w", redact.QuoteKey(prefix), err)
			}
			if o.IsDir || !strings.HasSuffix(o.Key, cleanSuffix) {
				continue
			}
			if len(keys) >= maxJobResults {
				return nil, malformed(prefix, "more than %d entries", maxJobResults)
			}
			keys = append(keys, o.Key)
		}
		slices.Sort(keys)
	}
	var out []JobResult
	for _, k := range keys {
		r, err := readJobResult(ctx, b, k)
		if jobID != "" && gcerrors.Code(err) == gcerrors.NotFound {
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
		if jobID != "" {
			break // a dirty entry: the clean one cannot be there too
		}
	}
	return out, nil
}

func readJobResult(ctx context.Context, b *blob.Bucket, key string) (JobResult, error) {
	name := key[strings.LastIndexByte(key, '/')+1:]
	r := JobResult{Key: key}
	id, dirty := strings.CutSuffix(name, dirtySuffix)
	if !dirty {
		id = strings.TrimSuffix(name, cleanSuffix)
		r.Clean = true
	}
	if !jobIDPattern.MatchString(id) {
		return r, malformed(key, "not <job-id>.json or <job-id>_DIRTY.json")
	}
	rd, err := b.NewReader(ctx, key, nil)
	if err != nil {
		return r, err
	}
	defer rd.Close()
	if rd.Size() > MaxJobResultBytes {
		return r, malformed(key, "%d bytes, over %d", rd.Size(), MaxJobResultBytes)
	}
	data, err := io.ReadAll(io.LimitReader(rd, MaxJobResultBytes+1))
	if err != nil {
		return r, fmt.Errorf("record: job result %s: %w", redact.QuoteKey(key), err)
	}
	if err := parseJobResult(key, id, data, &r); err != nil {
		return r, err
	}
	return r, nil
}

// ParseJobResult reads one JobResultStore entry (FileSystemJobResultStore's
// JsonJobResultEntry: {"result": {"id", "application-status", …},
// "version": 1}); name is the entry's file name (<job-id>.json or
// <job-id>_DIRTY.json), whose job id the entry must carry.
func ParseJobResult(name string, data []byte) (JobResult, error) {
	r := JobResult{Key: name}
	base := name[strings.LastIndexByte(name, '/')+1:]
	id, dirty := strings.CutSuffix(base, dirtySuffix)
	if !dirty {
		id = strings.TrimSuffix(base, cleanSuffix)
		r.Clean = true
	}
	if len(data) > MaxJobResultBytes {
		return r, malformed(name, "%d bytes, over %d", len(data), MaxJobResultBytes)
	}
	err := parseJobResult(name, id, data, &r)
	return r, err
}

func parseJobResult(key, id string, data []byte, r *JobResult) error {
	var doc struct {
		Result *struct {
			ID     string `json:"id"`
			Status string `json:"application-status"`
		} `json:"result"`
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return malformed(key, "not a job result entry: %v", err)
	}
	if doc.Result == nil {
		return malformed(key, "no result")
	}
	if doc.Version > 1 {
		return malformed(key, "entry version %d, this reader knows 1", doc.Version)
	}
	if doc.Result.ID != id {
		return malformed(key, "holds job %s, its name says %s", redact.Quote(doc.Result.ID), redact.Quote(id))
	}
	switch doc.Result.Status {
	case "SUCCEEDED", "FAILED", "CANCELED", "UNKNOWN":
	default:
		return malformed(key, "application status %s", redact.Quote(doc.Result.Status))
	}
	r.JobID, r.ApplicationStatus = id, doc.Result.Status
	return nil
}

// JobResultsRecord returns the JobResultStore entries rs, read from source
// (the store's location, secrets redacted), as a [resume.Record]: one
// source per entry, with its job id, status, FinishedCleanly and a Says
// that names the entry's key. It is what a caller hands to what reads the
// record before the decision exists (salvage.RecordStopProof: a clean
// finish proves a savepoint's stop completed); Compare builds the
// decision's own record section.
func JobResultsRecord(source string, rs []JobResult) *resume.Record {
	rec := &resume.Record{}
	for _, r := range rs {
		entry := "dirty (cleanup not finished)"
		if r.Clean {
			entry = "clean"
		}
		rec.Sources = append(rec.Sources, resume.RecordSource{Kind: resume.RecordJobResultStore, Source: source, JobID: r.JobID, Status: r.ApplicationStatus,
			FinishedCleanly: r.FinishedCleanly(), Says: fmt.Sprintf("job %s ended %s (%s entry %s)", r.JobID, r.ApplicationStatus, entry, redact.QuoteKey(r.Key))})
	}
	return rec
}
