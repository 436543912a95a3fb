package record

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/resumekit/resumekit/resume/redact"
)

// REST is what a running JobManager's REST API says about one job: its
// state and its checkpoints (GET /jobs/overview, GET /jobs/:id/checkpoints).
type REST struct {
	// URL is the REST endpoint, redacted.
	URL string
	// JobID and JobName identify the job; State is its status (RUNNING,
	// FINISHED, …): a job in a non-terminal state is still running.
	JobID, JobName, State string
	// Latest completed checkpoint, savepoint, the restored one and the
	// latest failed: nil when the JobManager has none.
	Completed, Savepoint, Restored *RESTCheckpoint
	Failed                         *RESTCheckpoint
}

// RESTCheckpoint is one checkpoint of /jobs/:id/checkpoints.
type RESTCheckpoint struct {
	ID           int64
	ExternalPath string
	Savepoint    bool
	// At is the trigger time (restored: the restore time; failed: the
	// failure time).
	At time.Time
	// Failure is the failure message of a failed checkpoint.
	Failure string
}

// Terminal reports whether the job's state is globally terminal (it will
// not run again): FINISHED, CANCELED, FAILED.
func (r *REST) Terminal() bool {
	switch r.State {
	case "FINISHED", "CANCELED", "FAILED":
		return true
	}
	return false
}

// MaxRESTBytes bounds one REST response body: a job's checkpoint history
// is a few hundred kilobytes at most.
const MaxRESTBytes = 8 << 20

// FetchREST asks the JobManager at base (http://host:8081) about the job:
// two GET requests, /jobs/overview then /jobs/:id/checkpoints. With jobID
// "" the job is the only one not in a terminal state, else the most
// recently started. The client's timeouts and the context bound the
// calls; no redirect is followed. Errors name the endpoint with secrets
// redacted.
func FetchREST(ctx context.Context, client *http.Client, base, jobID string) (*REST, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("record: --flink-rest %s: want http(s)://host:port", redact.Quote(redact.URL(base)))
	}
	if jobID != "" && !jobIDPattern.MatchString(jobID) {
		return nil, fmt.Errorf("record: job id %s is not 32 hex digits", redact.Quote(jobID))
	}
	if client == nil {
		client = http.DefaultClient
	}
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	out := &REST{URL: redact.URL(base)}
	var overview struct {
		Jobs []struct {
			ID    string `json:"jid"`
			Name  string `json:"name"`
			State string `json:"state"`
			Start int64  `json:"start-time"`
		} `json:"jobs"`
	}
	if err := getJSON(ctx, &c, u, "jobs/overview", &overview); err != nil {
		return nil, err
	}
	pick := -1
	for i, j := range overview.Jobs {
		if !jobIDPattern.MatchString(j.ID) {
			return nil, malformed(out.URL+"/jobs/overview", "job id %s is not 32 hex digits", redact.Quote(j.ID))
		}
		switch {
		case jobID != "":
			if j.ID == jobID {
				pick = i
			}
		case pick < 0:
			pick = i
		default:
			p := overview.Jobs[pick]
			if running(j.State) && !running(p.State) || running(j.State) == running(p.State) && j.Start > p.Start {
				pick = i
			}
		}
	}
	if pick < 0 {
		out.JobID = jobID
		return out, nil // the JobManager does not know the job
	}
	j := overview.Jobs[pick]
	out.JobID, out.JobName, out.State = j.ID, j.Name, j.State
	var ck struct {
		Latest struct {
			Completed *restCheckpointJSON `json:"completed"`
			Savepoint *restCheckpointJSON `json:"savepoint"`
			Restored  *restCheckpointJSON `json:"restored"`
			Failed    *restCheckpointJSON `json:"failed"`
		} `json:"latest"`
	}
	if err := getJSON(ctx, &c, u, "jobs/"+j.ID+"/checkpoints", &ck); err != nil {
		return out, err
	}
	out.Completed = ck.Latest.Completed.checkpoint(false)
	out.Savepoint = ck.Latest.Savepoint.checkpoint(false)
	out.Restored = ck.Latest.Restored.checkpoint(true)
	out.Failed = ck.Latest.Failed.checkpoint(false)
	return out, nil
}

func running(state string) bool {
	switch state {
	case "FINISHED", "CANCELED", "FAILED", "SUSPENDED":
		return false
	}
	return true
}

type restCheckpointJSON struct {
	ID           int64  `json:"id"`
	ExternalPath string `json:"external_path"`
	IsSavepoint  bool   `json:"is_savepoint"`
	Trigger      int64  `json:"trigger_timestamp"`
	Restore      int64  `json:"restore_timestamp"`
	FailureAt    int64  `json:"failure_timestamp"`
	Failure      string `json:"failure_message"`
}

func (j *restCheckpointJSON) checkpoint(restored bool) *RESTCheckpoint {
	if j == nil || j.ID < 0 || j.ID > 1<<62 {
		return nil
	}
	c := &RESTCheckpoint{ID: j.ID, ExternalPath: j.ExternalPath, Savepoint: j.IsSavepoint, Failure: j.Failure}
	ts := j.Trigger
	if restored {
		ts = j.Restore
	} else if ts == 0 {
		ts = j.FailureAt
	}
	if ts > 0 && ts < 1<<53 {
		c.At = time.UnixMilli(ts).UTC()
	}
	return c
}

func getJSON(ctx context.Context, c *http.Client, base *url.URL, path string, into any) error {
	u := *base
	u.Path = strings.TrimSuffix(u.Path, "/") + "/" + path
	u.RawQuery = ""
	shown := redact.URL(u.String())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("record: GET %s: %w", shown, redact.ParseError(err))
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("record: GET %s: %s", shown, redact.Text(err.Error()))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("record: GET %s: HTTP %d", shown, resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxRESTBytes+1))
	if err != nil {
		return fmt.Errorf("record: GET %s: %s", shown, redact.Text(err.Error()))
	}
	if len(data) > MaxRESTBytes {
		return malformed(shown, "response over %d bytes", MaxRESTBytes)
	}
	if err := json.Unmarshal(data, into); err != nil {
		return malformed(shown, "not the JSON Flink answers: %v", err)
	}
	return nil
}
