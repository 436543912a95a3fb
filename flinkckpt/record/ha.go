package record

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/resumekit/resumekit/resume/redact"
)

// HA is what Flink's HA store (Kubernetes ConfigMaps or ZooKeeper) holds:
// per job, the checkpoints HA recovery restores the newest of.
type HA struct {
	// Source is where it was read (a file, host:port and a path).
	Source string
	// Jobs has one entry per job the store knows, by job id.
	Jobs []HAJob
}

// HAJob is one job's entries in the HA store.
type HAJob struct {
	JobID string
	// Checkpoints are the store's completed checkpoint entries, lowest id
	// first, those marked for deletion included (Flink skips them).
	Checkpoints []HACheckpoint
	// Counter is the checkpoint-id counter: the id the next checkpoint
	// gets; 0 when the store has none.
	Counter int64
	// Leader is the job's leader entry (address or holder); "" when none.
	Leader string
	// JobGraph reports that the store holds the job's JobGraph (or, Flink
	// 2.x, its ExecutionPlan): a recovering Dispatcher resubmits the job.
	JobGraph bool
}

// HACheckpoint is one completed checkpoint entry of the HA store.
type HACheckpoint struct {
	// ID is the checkpoint id the entry's name says.
	ID int64
	// Name is the ConfigMap key or znode path.
	Name string
	// File is the CompletedCheckpoint file under
	// high-availability.storageDir the entry points to.
	File string
	// MarkedForDeletion: Flink is deleting the entry and skips it.
	MarkedForDeletion bool
	// Completed is the file's content, when read ([ReadPointers]).
	Completed *Completed
	// Err is why the entry or its file could not be read: Flink's
	// recovery fails on such an entry too.
	Err error
}

// Latest returns the entry HA recovery restores: the highest id not marked
// for deletion; nil when there is none (the job starts without state, or
// from its configured savepoint).
func (j *HAJob) Latest() *HACheckpoint {
	for i := len(j.Checkpoints) - 1; i >= 0; i-- {
		if !j.Checkpoints[i].MarkedForDeletion {
			return &j.Checkpoints[i]
		}
	}
	return nil
}

// Job returns the entries of the job, nil when the store has none.
func (h *HA) Job(id string) *HAJob {
	for i := range h.Jobs {
		if h.Jobs[i].JobID == id {
			return &h.Jobs[i]
		}
	}
	return nil
}

func (h *HA) job(id string) *HAJob {
	if j := h.Job(id); j != nil {
		return j
	}
	h.Jobs = append(h.Jobs, HAJob{JobID: id})
	return &h.Jobs[len(h.Jobs)-1]
}

func (h *HA) sort() {
	slices.SortFunc(h.Jobs, func(a, b HAJob) int { return strings.Compare(a.JobID, b.JobID) })
	for i := range h.Jobs {
		slices.SortFunc(h.Jobs[i].Checkpoints, func(a, b HACheckpoint) int { return cmp.Compare(a.ID, b.ID) })
	}
}

// MaxConfigMapsBytes bounds the kubectl output ParseConfigMaps reads: a
// ConfigMap holds at most 1 MiB, and a cluster's HA ConfigMaps are a few.
const MaxConfigMapsBytes = 32 << 20

// maxEntries bounds the entries of one store: Flink keeps
// state.checkpoints.num-retained of them.
const maxEntries = 10_000

var (
	jobIDPattern     = regexp.MustCompile(`^[0-9a-f]{32}$`)
	jobConfigMapName = regexp.MustCompile(`-([0-9a-f]{32})-config-map$`)
)

type configMap struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Data  map[string]string `json:"data"`
	Items []configMap       `json:"items"`
}

// The keys and names of Flink's Kubernetes HA services (flink-kubernetes
// Constants, KubernetesCheckpointStoreUtil): a job's ConfigMap is
// <cluster-id>-<job-id>-config-map, with "checkpointID-%019d" keys, the
// "counter" key, and a leader annotation; the cluster's ConfigMap holds
// "jobGraph-<job-id>" (Flink 2.x: "executionPlan-<job-id>") keys.
const (
	checkpointKeyPrefix = "checkpointID-"
	counterKey          = "counter"
	leaderAnnotation    = "control-plane.alpha.kubernetes.io/leader"
)

// ParseConfigMaps reads `kubectl get configmap -o json` output (one
// ConfigMap or a List) of Flink's Kubernetes HA services: every job's
// checkpoint entries (their pointer files not read yet: [ReadPointers]),
// counter, leader and job graph. ConfigMaps that are not Flink's HA ones
// are ignored. An entry whose value does not decode is kept with its Err
// (Flink's recovery fails on it, or, before 1.15, skips it); a file that is
// not such output is a *MalformedError.
func ParseConfigMaps(name string, data []byte) (*HA, error) {
	if len(data) > MaxConfigMapsBytes {
		return nil, malformed(name, "%d bytes, over %d", len(data), MaxConfigMapsBytes)
	}
	var top configMap
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, malformed(name, "not kubectl JSON output: %v", err)
	}
	maps := []configMap{top}
	switch top.Kind {
	case "List", "ConfigMapList":
		maps = top.Items
	case "ConfigMap":
	default:
		return nil, malformed(name, "kind %s, want ConfigMap or List", redact.Quote(top.Kind))
	}
	h := &HA{Source: name}
	entries := 0
	for _, cm := range maps {
		if cm.Kind != "" && cm.Kind != "ConfigMap" {
			continue
		}
		for k := range cm.Data {
			for _, prefix := range []string{"jobGraph-", "executionPlan-"} {
				if id, ok := strings.CutPrefix(k, prefix); ok && jobIDPattern.MatchString(id) {
					h.job(id).JobGraph = true
				}
			}
		}
		m := jobConfigMapName.FindStringSubmatch(cm.Metadata.Name)
		if m == nil {
			continue
		}
		j := h.job(m[1])
		if l := cm.Metadata.Annotations[leaderAnnotation]; l != "" {
			var lease struct {
				Holder string `json:"holderIdentity"`
			}
			if json.Unmarshal([]byte(l), &lease) == nil && lease.Holder != "" {
				j.Leader = lease.Holder
			}
		}
		for k, v := range cm.Data {
			where := cm.Metadata.Name + "/" + k
			if k == counterKey {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil || n < 0 || n > 1<<62 {
					return nil, malformed(where, "checkpoint counter %s is not an id", redact.Quote(v))
				}
				j.Counter = n
				continue
			}
			idText, ok := strings.CutPrefix(k, checkpointKeyPrefix)
			if !ok {
				continue
			}
			entries++
			if entries > maxEntries {
				return nil, malformed(name, "more than %d checkpoint entries", maxEntries)
			}
			id, err := strconv.ParseInt(idText, 10, 64)
			if err != nil || id < 0 || id > 1<<62 {
				return nil, malformed(where, "key is not checkpointID-<id>")
			}
			c := HACheckpoint{ID: id, Name: where}
			if len(v) > MaxHandleBytes*4/3+4 {
				c.Err = malformed(where, "value of %d bytes, over %d", len(v), MaxHandleBytes)
			} else if raw, err := base64.StdEncoding.DecodeString(v); err != nil {
				c.Err = malformed(where, "value is not base64")
			} else {
				c.File, c.MarkedForDeletion, c.Err = ParseHandle(where, raw)
			}
			j.Checkpoints = append(j.Checkpoints, c)
		}
	}
	h.sort()
	return h, nil
}

// ZooKeeper HA (ZooKeeperCheckpointStoreUtil): a job's checkpoints are the
// children of <root>/<cluster-id>/jobs/<job-id>/checkpoints named "/%019d",
// each node's data the serialized state handle; the counter is
// .../jobs/<job-id>/checkpoint_id_counter (a 4-byte int), the job graph
// <root>/<cluster-id>/jobgraphs/<job-id> (Flink 2.x: execution-plans).

// ZooKeeperCheckpointID returns the checkpoint id of a checkpoints child
// node's name, false when the name is not one Flink writes.
func ZooKeeperCheckpointID(name string) (int64, bool) {
	name = strings.TrimPrefix(name, "/")
	if len(name) != 19 {
		return 0, false
	}
	id, err := strconv.ParseInt(name, 10, 64)
	if err != nil || id < 0 || id > 1<<62 {
		return 0, false
	}
	return id, true
}

// AddZooKeeperCheckpoint adds one checkpoint node read from ZooKeeper to
// the job's entries: its path and data. It is the core of package
// zkrecord, which does the reading; tests and other clients call it too.
func (h *HA) AddZooKeeperCheckpoint(jobID, path string, data []byte) error {
	if !jobIDPattern.MatchString(jobID) {
		return malformed(path, "job id %s is not 32 hex digits", redact.Quote(jobID))
	}
	base := path[strings.LastIndexByte(path, '/')+1:]
	id, ok := ZooKeeperCheckpointID(base)
	if !ok {
		return malformed(path, "not a checkpoint node (want 19 digits)")
	}
	j := h.job(jobID)
	if len(j.Checkpoints) >= maxEntries {
		return malformed(path, "more than %d checkpoint entries", maxEntries)
	}
	c := HACheckpoint{ID: id, Name: path}
	c.File, c.MarkedForDeletion, c.Err = ParseHandle(path, data)
	j.Checkpoints = append(j.Checkpoints, c)
	h.sort()
	return nil
}

// String names the entry for people.
func (c HACheckpoint) String() string {
	s := fmt.Sprintf("checkpoint %d", c.ID)
	if c.Completed != nil && c.Completed.ExternalPointer != "" {
		s += " at " + c.Completed.ExternalPointer
	}
	return s
}
