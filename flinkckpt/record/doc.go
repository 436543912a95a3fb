// Package record reads what Flink and the flink-kubernetes-operator record
// about a job — the HA store (Kubernetes ConfigMaps, ZooKeeper) and the
// CompletedCheckpoint files it points to under high-availability.storageDir,
// the JobResultStore, a running JobManager's REST API, FlinkDeployment,
// FlinkSessionJob and FlinkStateSnapshot resources — and compares it with
// what storage holds: the decision's second opinion (resume.Record).
//
// The readers take bytes (kubectl -o json output, a znode's data) or a
// bucket; no Kubernetes or ZooKeeper client is in this package (package
// zkrecord reads ZooKeeper):
//
//	h, err := record.ParseConfigMaps("ha.json", kubectlOutput)
//	err = record.ReadPointers(ctx, &record.Store{Bucket: haBucket, Dir: "s3://b/flink/ha"}, h)
//	d, _ := chain.Resolve(ctx)
//	err = record.Compare(ctx, d, []record.Input{{Kind: resume.RecordFlinkHA, Source: "ha.json", HA: h}},
//		&record.CompareOptions{Storage: &record.BucketStorage{Checkpoints: ck, CheckpointsPrefix: "ck/"}})
//
// Compare never changes the choice: every disagreement (the record's
// snapshot broken or gone, older than the chosen one, missing; the job
// still running; finished cleanly; the chosen snapshot due for the
// operator's history cleanup) is a "record." warning on the record source
// and on the chosen candidate.
//
// # Errors
//
// Input that is not what Flink or the operator writes, or that is over a
// size bound ([MaxHandleBytes], [MaxCompletedBytes], [MaxConfigMapsBytes],
// [MaxJobResultBytes], [MaxRESTBytes], [MaxOperatorBytes]), is a
// *MalformedError (errors.Is [ErrMalformed]) naming the record. A pointer
// file outside the HA storage dir is never read ([KeyUnder]). A record that
// cannot be read is an [Input] with Err: Compare says so (record.unreadable)
// and the decision stands on storage.
//
// # Cost
//
// ParseConfigMaps reads one kubectl output; ReadPointers reads one
// CompletedCheckpoint file per job; ReadJobResults with a job id reads at
// most two entries; FetchREST makes two GET requests; Compare makes one
// storage lookup (flinkckpt.Inspect) per record that names a snapshot.
package record
