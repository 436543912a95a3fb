package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/record"
	"github.com/resumekit/resumekit/flinkckpt/record/zkrecord"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/localblob"
	"github.com/resumekit/resumekit/resume/redact"
)

// recordFlags are resolve's record group: Flink's and the operator's own
// records (the HA store, the JobResultStore, a JobManager's REST API,
// the operator's resources). Its build reads them; after the chain has
// decided, compare adds the decision's record section (flinkckpt/record):
// a second opinion beside storage that never changes the choice, each
// disagreement a record.* warning (--fail-on-warning can gate on them).
type recordFlags struct {
	haConfigMaps, zookeeper, clusterID, zkRoot, haStorage string
	haStorageDir                                          string
	jobResultStore, rest                                  string
	k8sResources                                          repeatedFlag
	historyMaxCount                                       int
	historyMaxAge                                         durationFlag

	// What build read, and where compare looks the records' snapshots up
	// (the Flink group's locations).
	inputs  []record.Input
	storage *record.BucketStorage
	jobID   string
}

// repeatedFlag is a repeatable string flag.
type repeatedFlag []string

func (r *repeatedFlag) String() string     { return strings.Join(*r, ",") }
func (r *repeatedFlag) Set(s string) error { *r = append(*r, s); return nil }

func (r *recordFlags) register(fs *flag.FlagSet, _ *env) {
	fs.StringVar(&r.haConfigMaps, "flink-ha-configmaps", "", "Flink's Kubernetes HA ConfigMaps (`FILE`, kubectl get configmap -l configmap-type=high-availability -o json; - for stdin): the checkpoint HA recovery restores, compared with storage")
	fs.StringVar(&r.zookeeper, "flink-zookeeper", "", "Flink's ZooKeeper HA quorum (`ADDR`, host:port[,host:port]; with --flink-cluster-id): the checkpoint HA recovery restores, compared with storage")
	fs.StringVar(&r.clusterID, "flink-cluster-id", "", "high-availability.cluster-id (`ID`) of --flink-zookeeper")
	fs.StringVar(&r.zkRoot, "flink-zookeeper-root", "", "high-availability.zookeeper.path.root (`PATH`, default /flink)")
	fs.StringVar(&r.haStorage, "flink-ha-storage", "", "high-availability.storageDir (`URL`): the HA store's CompletedCheckpoint files, which name the checkpoint's path (without it only the id is known)")
	fs.StringVar(&r.haStorageDir, "flink-ha-storage-dir", "", "high-availability.storageDir as Flink's configuration names it (`URI`, e.g. s3://b/flink/ha), when it differs from --flink-ha-storage (a copy, a local mount); pointer files outside it are never read")
	fs.StringVar(&r.jobResultStore, "flink-job-result-store", "", "job-result-store.storage-path (`URL`): whether the job ended, and how (a stop-with-savepoint ends SUCCEEDED); a salvaged savepoint of a job that finished counts as a completed stop's: its sink transactions were committed (salvage.sink-committed-by-stop)")
	fs.StringVar(&r.rest, "flink-rest", "", "a running JobManager's REST API (`URL`, http://host:8081): whether the old job still runs, its latest checkpoint (two GET requests)")
	fs.Var(&r.k8sResources, "k8s-resource", "flink-kubernetes-operator resources (`FILE`, kubectl get flinkdeployment,flinksessionjob,flinkstatesnapshot -o json; repeatable): what the operator restores, the snapshots its history cleanup deletes")
	fs.IntVar(&r.historyMaxCount, "k8s-savepoint-history-max-count", 0, "the operator's kubernetes.operator.savepoint.history.max.count (`N`, default 10)")
	fs.Var(&r.historyMaxAge, "k8s-savepoint-history-max-age", "the operator's kubernetes.operator.savepoint.history.max.age (`DUR`, default 24h)")
}

// set reports whether any record is named.
func (r *recordFlags) set() bool {
	return r.haConfigMaps != "" || r.zookeeper != "" || r.jobResultStore != "" || r.rest != "" || len(r.k8sResources) > 0
}

func (r *recordFlags) check(s sources) error {
	switch {
	case (r.zookeeper == "") != (r.clusterID == ""):
		return usagef("resolve: --flink-zookeeper and --flink-cluster-id go together")
	case r.zkRoot != "" && r.zookeeper == "":
		return usagef("resolve: --flink-zookeeper-root needs --flink-zookeeper")
	case r.haStorageDir != "" && r.haStorage == "":
		return usagef("resolve: --flink-ha-storage-dir needs --flink-ha-storage")
	case r.haStorage != "" && r.haConfigMaps == "" && r.zookeeper == "":
		return usagef("resolve: --flink-ha-storage needs --flink-ha-configmaps or --flink-zookeeper")
	case (r.historyMaxCount != 0 || r.historyMaxAge.d != 0) && len(r.k8sResources) == 0:
		return usagef("resolve: --k8s-savepoint-history-max-count and -max-age need --k8s-resource")
	case r.historyMaxCount < 0:
		return usagef("resolve: --k8s-savepoint-history-max-count must not be negative")
	case r.set() && !s.flink:
		return usagef("resolve: --flink-ha-configmaps, --flink-zookeeper, --flink-job-result-store, --flink-rest and --k8s-resource need --flink-checkpoints or --flink-savepoints: a record is compared with storage")
	}
	return nil
}

// maxRecordFile bounds a record file read from disk or stdin.
const maxRecordFile = 32 << 20

func readRecordFile(e *env, name string) ([]byte, error) {
	var rd io.Reader
	if name == "-" {
		rd = e.stdin()
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		rd = f
	}
	data, err := io.ReadAll(io.LimitReader(rd, maxRecordFile+1))
	if err == nil && len(data) > maxRecordFile {
		err = fmt.Errorf("over %d bytes", maxRecordFile)
	}
	return data, err
}

// build reads every record named. A record that cannot be read is kept as
// an input with its error (the decision says so, and stands on storage),
// not a failed command: the record is a second opinion.
func (r *recordFlags) build(ctx context.Context, e *env, b *built) error {
	r.storage = b.flinkStorage
	if !r.set() {
		return nil
	}
	var store *record.Store
	if r.haStorage != "" {
		loc, err := openLocation(ctx, e, r.haStorage)
		if err != nil {
			return err
		}
		b.closers = append(b.closers, func() { loc.Close(ctx) })
		dir := strings.TrimSuffix(loc.Display, "/")
		if loc.Root != "" {
			abs, _, _ := localblob.LocalPath(r.haStorage)
			dir = "file:" + filepath.ToSlash(abs)
		} else if i := strings.IndexByte(dir, '?'); i >= 0 {
			dir = dir[:i]
		}
		if r.haStorageDir != "" {
			dir = r.haStorageDir
		}
		store = &record.Store{Bucket: loc.Bucket, Dir: strings.TrimSuffix(dir, "/")}
	}
	readHA := func(in record.Input) record.Input {
		if in.Err == nil && store != nil {
			if err := record.ReadPointers(ctx, store, in.HA); err != nil {
				in.Err = err
			}
		}
		return in
	}
	if r.haConfigMaps != "" {
		in := record.Input{Kind: resume.RecordFlinkHA, Source: r.haConfigMaps}
		data, err := readRecordFile(e, r.haConfigMaps)
		if err == nil {
			in.HA, err = record.ParseConfigMaps(r.haConfigMaps, data)
		}
		in.Err = err
		r.inputs = append(r.inputs, readHA(in))
	}
	if r.zookeeper != "" {
		in := record.Input{Kind: resume.RecordFlinkHA, Source: r.zookeeper}
		h, err := zkrecord.Read(ctx, r.zookeeper, &zkrecord.Options{Root: r.zkRoot, ClusterID: r.clusterID, JobID: r.jobID, Timeout: 10 * time.Second})
		if h != nil {
			in.Source = h.Source
		}
		in.HA, in.Err = h, err
		r.inputs = append(r.inputs, readHA(in))
	}
	if r.jobResultStore != "" {
		in := record.Input{Kind: resume.RecordJobResultStore, Source: redact.URL(r.jobResultStore), JobResultsRead: true}
		loc, err := openLocation(ctx, e, r.jobResultStore)
		if err == nil {
			b.closers = append(b.closers, func() { loc.Close(ctx) })
			in.Source = loc.Display
			in.JobResults, err = record.ReadJobResults(ctx, loc.Bucket, loc.Prefix, r.jobID)
		}
		in.Err = err
		r.inputs = append(r.inputs, in)
	}
	if r.rest != "" {
		in := record.Input{Kind: resume.RecordFlinkREST, Source: redact.URL(r.rest)}
		in.REST, in.Err = record.FetchREST(ctx, &http.Client{Timeout: 30 * time.Second}, r.rest, r.jobID)
		if in.Err != nil {
			in.REST = nil
		}
		r.inputs = append(r.inputs, in)
	}
	for _, name := range r.k8sResources {
		in := record.Input{Kind: resume.RecordK8sOperator, Source: name}
		data, err := readRecordFile(e, name)
		if err == nil {
			in.Operator, err = record.ParseOperator(name, data)
		}
		in.Err = err
		r.inputs = append(r.inputs, in)
	}
	return nil
}

// jobResults returns the JobResultStore entries build read
// (--flink-job-result-store) as a record, nil when none was read: with
// it a salvaged savepoint of a job that finished counts as a completed
// stop's (salvage.RecordStopProof). An unreadable store proves nothing.
func (r *recordFlags) jobResults() *resume.Record {
	var rec *resume.Record
	for _, in := range r.inputs {
		if in.Kind != resume.RecordJobResultStore || in.Err != nil || !in.JobResultsRead {
			continue
		}
		if rec == nil {
			rec = &resume.Record{}
		}
		rec.Sources = append(rec.Sources, record.JobResultsRecord(in.Source, in.JobResults).Sources...)
	}
	return rec
}

// compare adds the record section to the decision.
func (r *recordFlags) compare(ctx context.Context, d *resume.Decision) error {
	if len(r.inputs) == 0 {
		return nil
	}
	opts := &record.CompareOptions{JobID: r.jobID, Cleanup: record.CleanupPolicy{SavepointMaxCount: r.historyMaxCount, SavepointMaxAge: r.historyMaxAge.d}}
	if r.storage != nil {
		opts.Storage = r.storage
	}
	return record.Compare(ctx, d, r.inputs, opts)
}
