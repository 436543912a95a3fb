package flinkckpt

import (
	"fmt"
	"strings"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/redact"
)

// Intent is what a restart is for: it decides which snapshots can serve.
type Intent string

// Intents.
const (
	// IntentRestart (the zero value): the same job on the same Flink minor
	// version, or changes every snapshot type supports (rescaling, a patch
	// release): the newest restorable snapshot wins.
	IntentRestart Intent = ""
	// IntentUpgrade: a Flink minor upgrade or a changed job. Savepoints
	// rank before checkpoints in the resolver's locations (its own and
	// Options.Locations: give the savepoint dir there), and unaligned
	// checkpoints are refused: Flink restores them neither across a minor
	// version nor into a changed job ("Checkpoints vs. Savepoints", Flink
	// 1.20: capabilities table). Between two separate resolvers the chain's
	// newest-At rule still decides.
	IntentUpgrade Intent = "upgrade"
)

// ParseIntent reads an intent: "", "restart" or "upgrade".
func ParseIntent(s string) (Intent, error) {
	i := Intent(strings.ToLower(strings.TrimSpace(s)))
	if i == "restart" {
		i = IntentRestart
	}
	if err := i.validate(); err != nil {
		return "", err
	}
	return i, nil
}

func (i Intent) validate() error {
	switch i {
	case IntentRestart, IntentUpgrade:
		return nil
	}
	return fmt.Errorf("flinkckpt: intent %s: want restart or upgrade", redact.Quote(string(i)))
}

// Backend is a state backend family, as the keyed state handle types show
// it (Position.StateBackend): one of the Backend* constants, a closed set.
// Its JSON is the string.
type Backend string

// State backend families, as the keyed state handle types show them
// (Position.StateBackend).
const (
	// BackendRocksDBIncremental: incremental RocksDB handles (types 5, 11):
	// an incremental checkpoint or a native RocksDB savepoint, or ForSt's
	// (Flink 2.x) when nothing tells them apart (BackendForSt).
	BackendRocksDBIncremental Backend = "rocksdb-incremental"
	// BackendFull: key-group handles (types 3, 12): a full snapshot of the
	// heap (hashmap) backend or of RocksDB without incremental
	// checkpoints, or a canonical savepoint before Flink 1.15.
	BackendFull Backend = "full"
	// BackendCanonical: savepoint key-group handles (type 7): a canonical
	// savepoint, which any state backend restores.
	BackendCanonical Backend = "canonical"
	// BackendChangelog: changelog state backend handles (types 8, 9, 10,
	// 13, 14).
	BackendChangelog Backend = "changelog"
	// BackendForSt: ForSt (Flink 2.x), told from RocksDB by its keyed state
	// meta info recording state of the async state API (KEY_VALUE_V2); its
	// handles are RocksDB's incremental ones, so a ForSt job on the classic
	// state API shows as BackendRocksDBIncremental. ForSt takes no
	// canonical savepoint (FLINK-39061).
	BackendForSt Backend = "forst"
)

// restoreFacts are what a _metadata says about where it can be restored.
type restoreFacts struct {
	backend Backend // a Backend… constant, "" without keyed state
	// channels counts in-flight data handles: an unaligned checkpoint.
	channels int
	// finished and partial list operators that had fully finished, or
	// had some finished subtasks.
	finished, partial []string
}

func restoreFactsOf(md *metadata.Checkpoint) restoreFacts {
	f := restoreFacts{backend: backendOf(md)}
	for _, op := range md.Operators {
		if op.Finished {
			f.finished = append(f.finished, op.ID)
			continue
		}
		some := false
		for _, st := range op.SubtaskStates {
			f.channels += len(st.InputChannels) + len(st.ResultSubpartitions)
			some = some || st.Finished
		}
		if some {
			f.partial = append(f.partial, op.ID)
		}
	}
	return f
}

// backendOf tells the state backend family from the keyed handle types:
// changelog before incremental before canonical before full, "" when no
// keyed state is recorded.
func backendOf(md *metadata.Checkpoint) Backend {
	rank := map[Backend]int{BackendFull: 1, BackendCanonical: 2, BackendRocksDBIncremental: 3, BackendChangelog: 4}
	var best Backend
	for _, op := range md.Operators {
		for _, st := range op.SubtaskStates {
			for _, k := range []*metadata.KeyedHandle{st.ManagedKeyed, st.RawKeyed} {
				if b := keyedFamily(k); rank[b] > rank[best] {
					best = b
				}
			}
		}
	}
	return best
}

func keyedFamily(k *metadata.KeyedHandle) Backend {
	if k == nil {
		return ""
	}
	switch {
	case k.Type.Changelog():
		return BackendChangelog
	case k.Type == metadata.TypeIncremental || k.Type == metadata.TypeIncrementalV2:
		return BackendRocksDBIncremental
	case k.Type == metadata.TypeSavepointKeyGroups:
		return BackendCanonical
	case k.Type == metadata.TypeKeyGroups || k.Type == metadata.TypeKeyGroupsV2:
		return BackendFull
	}
	return ""
}

// restoreWarnings are the restore limits a snapshot carries.
func restoreWarnings(name string, f restoreFacts) []resume.Warning {
	var out []resume.Warning
	if f.channels > 0 {
		out = append(out, resume.Warnf(WarnUnaligned, "%s is an unaligned checkpoint (%d in-flight data handles): Flink restores it into the same job only — no changed operator even with the topology and record types kept — on the same Flink minor version and state backend; a parallelism change and a Flink patch upgrade are supported (\"Checkpoints vs. Savepoints\"); take a savepoint for anything else",
			name, f.channels))
	}
	if n := len(f.finished) + len(f.partial); n > 0 {
		out = append(out, resume.Warnf(WarnFinishedOperators, "%s records %d fully and %d partially finished operators (first: %s): the new job does not run finished ones again (FLIP-147), and Flink refuses the restore if a changed job puts a fully finished operator after one that is not (VertexFinishedStateChecker)",
			name, len(f.finished), len(f.partial), firstOf(f.finished, f.partial)))
	}
	return out
}

func firstOf(lists ...[]string) string {
	for _, l := range lists {
		if len(l) > 0 {
			return l[0]
		}
	}
	return ""
}
