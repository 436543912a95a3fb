package cli

import (
	"encoding/json"
	"fmt"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

const flinkRecordUsage = `record [--flink-ha-configmaps FILE | --flink-zookeeper ADDR --flink-cluster-id ID [--flink-zookeeper-root PATH]]
           [--flink-ha-storage URL [--flink-ha-storage-dir URI]] [--flink-job-result-store URL] [--flink-rest URL]
           [--k8s-resource FILE]... [--k8s-savepoint-history-max-count N] [--k8s-savepoint-history-max-age DUR]
           [--flink-checkpoints URL] [--flink-savepoints URL] [--flink-root URI] [--flink-job-id ID] [--json] [--timeout DUR]`

// runFlinkRecord implements "resumectl flink record": the records alone —
// what Flink's HA store, JobResultStore, REST API and the operator will
// restore — each beside what storage (--flink-checkpoints,
// --flink-savepoints, when given) says of that snapshot, with no choice
// made. Exit 0 when every record was read; 1 when one could not be.
func runFlinkRecord(e *env, args []string) error {
	fs := newFlags(e, "flink record", subUsage("flink", flinkUsage, "record"))
	var r recordFlags
	var fl flinkFlags
	r.register(fs.FlagSet, e)
	fs.StringVar(&fl.checkpoints, "flink-checkpoints", "", "checkpoint root (`URL`) to look the records' snapshots up in")
	fs.StringVar(&fl.savepoints, "flink-savepoints", "", "savepoint directory (`URL`) to look the records' snapshots up in")
	fs.StringVar(&fl.root, "flink-root", "", "the Flink file-system `URI` of the location (inferred when absent)")
	fs.StringVar(&fl.jobID, "flink-job-id", "", "the job the records are read for (32 hex)")
	asJSON := fs.Bool("json", false, "print the record section as JSON")
	timeout := addTimeout(fs, DefaultTimeout)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("flink record takes no arguments, got %s", redact.Quote(pos[0]))
	}
	if !r.set() {
		return usagef("flink record: name a record: --flink-ha-configmaps, --flink-zookeeper, --flink-job-result-store, --flink-rest or --k8s-resource")
	}
	r.jobID = fl.jobID
	if err := r.check(sources{flink: true}); err != nil {
		return err
	}
	ctx, cancel := e.context(timeout.d)
	defer cancel()
	b := &built{}
	defer b.close()
	if fl.names() {
		if err := fl.build(ctx, e, b); err != nil {
			return err
		}
	}
	if err := r.build(ctx, e, b); err != nil {
		return err
	}
	d := &resume.Decision{}
	if err := r.compare(ctx, d); err != nil {
		return err
	}
	if *asJSON {
		out, err := json.MarshalIndent(d.Record, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s\n", out)
	} else {
		fmt.Fprint(e.stdout, d.Record.Explain())
	}
	for _, s := range d.Record.Sources {
		if s.Err != nil {
			return withExit(ExitFailed, fmt.Errorf("flink record: %s %s could not be read", s.Kind, s.Source))
		}
	}
	return nil
}
