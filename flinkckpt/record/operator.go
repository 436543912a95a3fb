package record

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/resumekit/resumekit/resume/redact"
)

// Operator is what the flink-kubernetes-operator's resources say, read
// from `kubectl get flinkdeployment,flinksessionjob,flinkstatesnapshot -o
// json` output. Field names follow the operator's CRDs (release 1.10 and
// later: FlinkStateSnapshot resources, status.jobStatus.upgradeSavepointPath).
type Operator struct {
	// Source is where it was read.
	Source string
	// Deployments are the FlinkDeployment and FlinkSessionJob resources.
	Deployments []Deployment
	// Snapshots are the FlinkStateSnapshot resources.
	Snapshots []StateSnapshot
}

// Deployment is a FlinkDeployment or FlinkSessionJob: its job and the
// snapshot an upgrade or a restart restores.
type Deployment struct {
	Kind, Namespace, Name string
	// UpgradeMode is spec.job.upgradeMode: savepoint, last-state, stateless.
	UpgradeMode string
	// JobID and JobState are status.jobStatus.jobId and .state.
	JobID, JobState string
	// UpgradeSavepointPath is status.jobStatus.upgradeSavepointPath: the
	// snapshot the operator restores on its next upgrade.
	UpgradeSavepointPath string
	// LastSavepoint is status.jobStatus.savepointInfo.lastSavepoint
	// (deprecated by FlinkStateSnapshot resources, still written).
	LastSavepoint string
	// LastSavepointAt is its timeStamp.
	LastSavepointAt time.Time
	// InitialSavepointPath is spec.job.initialSavepointPath.
	InitialSavepointPath string
}

// Restores returns the path the operator restores the job from on its next
// upgrade ("" for none): upgradeSavepointPath, else the last savepoint,
// else the initial savepoint path. With last-state and HA metadata present
// Flink's HA store decides instead.
func (d Deployment) Restores() string {
	for _, p := range []string{d.UpgradeSavepointPath, d.LastSavepoint, d.InitialSavepointPath} {
		if p != "" {
			return p
		}
	}
	return ""
}

// StateSnapshot is a FlinkStateSnapshot resource.
type StateSnapshot struct {
	Namespace, Name string
	// Savepoint is true for spec.savepoint, false for spec.checkpoint.
	Savepoint bool
	// TriggerType is the snapshot.trigger-type label: PERIODIC, UPGRADE,
	// MANUAL, UNKNOWN. History cleanup disposes PERIODIC and UPGRADE ones.
	TriggerType string
	// Job is spec.jobReference.name.
	Job string
	// State is status.state: COMPLETED, IN_PROGRESS, FAILED, …
	State string
	// Path is status.path (else spec.savepoint.path).
	Path string
	// Created is metadata.creationTimestamp, the time cleanup orders by.
	Created time.Time
	// Deleting is true when metadata.deletionTimestamp is set.
	Deleting bool
	// DisposeOnDelete is spec.savepoint.disposeOnDelete: deleting the
	// resource deletes the savepoint's files.
	DisposeOnDelete bool
}

// MaxOperatorBytes bounds the kubectl output ParseOperator reads.
const MaxOperatorBytes = 32 << 20

type k8sObject struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		CreationTimestamp string            `json:"creationTimestamp"`
		DeletionTimestamp string            `json:"deletionTimestamp"`
		Labels            map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Job *struct {
			UpgradeMode          string `json:"upgradeMode"`
			InitialSavepointPath string `json:"initialSavepointPath"`
		} `json:"job"`
		Savepoint *struct {
			Path            string `json:"path"`
			DisposeOnDelete *bool  `json:"disposeOnDelete"`
		} `json:"savepoint"`
		Checkpoint   *struct{} `json:"checkpoint"`
		JobReference *struct {
			Name string `json:"name"`
		} `json:"jobReference"`
	} `json:"spec"`
	Status struct {
		JobStatus *struct {
			JobID                string `json:"jobId"`
			State                string `json:"state"`
			UpgradeSavepointPath string `json:"upgradeSavepointPath"`
			SavepointInfo        *struct {
				LastSavepoint *struct {
					Location  string `json:"location"`
					TimeStamp int64  `json:"timeStamp"`
				} `json:"lastSavepoint"`
			} `json:"savepointInfo"`
		} `json:"jobStatus"`
		State string `json:"state"`
		Path  string `json:"path"`
	} `json:"status"`
	Items []k8sObject `json:"items"`
}

// ParseOperator reads kubectl JSON output (one resource or a List) of
// FlinkDeployment, FlinkSessionJob and FlinkStateSnapshot resources; other
// kinds are ignored. Output that is not kubectl JSON is a *MalformedError.
func ParseOperator(name string, data []byte) (*Operator, error) {
	if len(data) > MaxOperatorBytes {
		return nil, malformed(name, "%d bytes, over %d", len(data), MaxOperatorBytes)
	}
	var top k8sObject
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, malformed(name, "not kubectl JSON output: %v", err)
	}
	objs := []k8sObject{top}
	if strings.HasSuffix(top.Kind, "List") {
		objs = top.Items
	}
	out := &Operator{Source: name}
	for _, o := range objs {
		switch o.Kind {
		case "FlinkDeployment", "FlinkSessionJob":
			d := Deployment{Kind: o.Kind, Namespace: o.Metadata.Namespace, Name: o.Metadata.Name}
			if j := o.Spec.Job; j != nil {
				d.UpgradeMode, d.InitialSavepointPath = j.UpgradeMode, j.InitialSavepointPath
			}
			if js := o.Status.JobStatus; js != nil {
				d.JobID, d.JobState, d.UpgradeSavepointPath = js.JobID, js.State, js.UpgradeSavepointPath
				if si := js.SavepointInfo; si != nil && si.LastSavepoint != nil {
					d.LastSavepoint = si.LastSavepoint.Location
					if ts := si.LastSavepoint.TimeStamp; ts > 0 && ts < 1<<53 {
						d.LastSavepointAt = time.UnixMilli(ts).UTC()
					}
				}
			}
			out.Deployments = append(out.Deployments, d)
		case "FlinkStateSnapshot":
			s := StateSnapshot{
				Namespace: o.Metadata.Namespace, Name: o.Metadata.Name, State: o.Status.State, Path: o.Status.Path,
				TriggerType: o.Metadata.Labels["snapshot.trigger-type"], Deleting: o.Metadata.DeletionTimestamp != "",
				Savepoint: o.Spec.Savepoint != nil,
			}
			if sp := o.Spec.Savepoint; sp != nil {
				if s.Path == "" {
					s.Path = sp.Path
				}
				s.DisposeOnDelete = sp.DisposeOnDelete == nil || *sp.DisposeOnDelete // the CRD's default is true
			} else if o.Spec.Checkpoint == nil {
				return nil, malformed(name, "FlinkStateSnapshot %s has neither spec.savepoint nor spec.checkpoint", redact.Quote(o.Metadata.Name))
			}
			if r := o.Spec.JobReference; r != nil {
				s.Job = r.Name
			}
			t, err := time.Parse(time.RFC3339, o.Metadata.CreationTimestamp)
			if err != nil {
				return nil, malformed(name, "FlinkStateSnapshot %s: creationTimestamp %s", redact.Quote(o.Metadata.Name), redact.Quote(o.Metadata.CreationTimestamp))
			}
			s.Created = t.UTC()
			out.Snapshots = append(out.Snapshots, s)
		}
	}
	return out, nil
}

// CleanupPolicy is the operator's snapshot history cleanup configuration.
type CleanupPolicy struct {
	// SavepointMaxCount is kubernetes.operator.savepoint.history.max.count
	// (0 means the operator's default, 10).
	SavepointMaxCount int
	// SavepointMaxAge is kubernetes.operator.savepoint.history.max.age (0
	// means the operator's default, 24h).
	SavepointMaxAge time.Duration
	// CheckpointMaxCount is state.checkpoints.num-retained (0 means Flink's
	// default, 1).
	CheckpointMaxCount int
}

// DueForCleanup returns the snapshots the operator's history cleanup
// deletes at now, following its SnapshotObserver: per type (savepoint,
// checkpoint), of the PERIODIC and UPGRADE snapshots not being deleted,
// ordered by creation, the newest COMPLETED one is kept and so is the
// last one; the others go while more than the max count remain or (for
// savepoints) they are older than the max age.
func (o *Operator) DueForCleanup(p CleanupPolicy, now time.Time) []StateSnapshot {
	var out []StateSnapshot
	for _, savepoints := range []bool{true, false} {
		var list []StateSnapshot
		for _, s := range o.Snapshots {
			if s.Savepoint == savepoints && !s.Deleting && (s.TriggerType == "PERIODIC" || s.TriggerType == "UPGRADE") {
				list = append(list, s)
			}
		}
		slices.SortStableFunc(list, func(a, b StateSnapshot) int { return a.Created.Compare(b.Created) })
		if len(list) < 2 {
			continue
		}
		lastComplete := -1
		for i, s := range list {
			if s.State == "COMPLETED" {
				lastComplete = i
			}
		}
		maxCount, minTime := max(1, p.CheckpointMaxCount), time.Time{}
		if savepoints {
			maxCount = p.SavepointMaxCount
			if maxCount <= 0 {
				maxCount = 10
			}
			age := p.SavepointMaxAge
			if age <= 0 {
				age = 24 * time.Hour
			}
			minTime = now.Add(-age)
		}
		removed := 0
		for i, s := range list {
			if i == lastComplete {
				continue
			}
			if removed == len(list)-1 {
				break
			}
			if len(list)-removed > maxCount || s.Created.Before(minTime) {
				out = append(out, s)
				removed++
			}
		}
	}
	return out
}
