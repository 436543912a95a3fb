package salvage

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/resume"
)

// savepointDirRE matches the directory Flink gives a savepoint:
// savepoint-<first 6 hex digits of the job id>-<12 random hex digits>.
var savepointDirRE = regexp.MustCompile(`^savepoint-([0-9a-f]{6})-[0-9a-f]{12}$`)

// RecordStopProof returns an [Options.StopProof] that proves a salvaged
// savepoint a completed stop's from the JobResultStore entries in rec
// (record.JobResultsRecord, or a decision's record section): a savepoint
// of a job whose entry says it finished (SUCCEEDED, FinishedCleanly) had
// its committers' transactions committed before the job ended (a job
// finishes only after the notification of its final checkpoint or
// stop-with-savepoint, which commits every pending committable up to it).
// The savepoint's job is known from its directory name,
// savepoint-<first 6 hex digits of the job id>-…: every JobResultStore
// entry whose job id starts with them must say finished, else nothing is
// proved (another job, or one that failed or was cancelled). A checkpoint,
// a savepoint dir named otherwise, or a record without such an entry
// proves nothing (""). rec nil: nil.
func RecordStopProof(rec *resume.Record) func(context.Context, *flinkckpt.Snapshot) (string, error) {
	if rec == nil {
		return nil
	}
	return func(_ context.Context, s *flinkckpt.Snapshot) (string, error) {
		key := strings.TrimSuffix(s.Key, "/")
		m := savepointDirRE.FindStringSubmatch(key[strings.LastIndexByte(key, '/')+1:])
		if !s.Savepoint || m == nil {
			return "", nil
		}
		var proof []string
		for _, src := range rec.Sources {
			if src.Kind != resume.RecordJobResultStore || src.Err != nil || !strings.HasPrefix(src.JobID, m[1]) {
				continue
			}
			if !src.FinishedCleanly {
				return "", nil
			}
			proof = append(proof, fmt.Sprintf("the JobResultStore %s says %s", src.Source, src.Says))
		}
		if len(proof) == 0 {
			return "", nil
		}
		return strings.Join(proof, "; ") + fmt.Sprintf(": the job of savepoint %s (job id %s…) finished, so a stop-with-savepoint that ended it completed", key[strings.LastIndexByte(key, '/')+1:], m[1]), nil
	}
}
