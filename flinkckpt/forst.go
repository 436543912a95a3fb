package flinkckpt

import (
	"context"
	"fmt"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// forStMetaLimit bounds the keyed meta data file read to tell ForSt's
// snapshots (a few KiB: the key serializer and each state's meta info).
const forStMetaLimit = 1 << 20

// noCanonicalFromForSt is what Flink 2.x does when asked for a canonical
// savepoint of ForSt state, in its own words (read from the Flink 2.2.0
// jars: ForStSyncKeyedStateBackend.savepoint, and the async state
// operators' StreamOperatorStateHandler), FLINK-39061.
const noCanonicalFromForSt = `ForSt takes no canonical savepoint ("Canonical savepoints are not supported by ForSt State Backend."; operators on the async state API: "Not supported yet.", Flink 2.2.0; FLINK-39061): its state moves only through a native savepoint or checkpoint, into ForSt again — not into another state backend, and not through a canonical savepoint`

// forStState reports whether the snapshot s (at Flink path path) holds
// ForSt state that its keyed state meta info shows: state of the async
// state API (metadata.MetaInfoKeyValueV2), which only ForSt's async keyed
// backend registers in Flink 2.x. ForSt's handles are otherwise RocksDB's
// (the same incremental handle types and files: conformance F15's and F2's
// meta data files are byte for byte alike), so a job on ForSt with the
// classic state API cannot be told from one on RocksDB. It reads the meta
// data stream of the first incremental keyed handle (inline, or one file
// of at most forStMetaLimit bytes), only for a _metadata of version 5 or
// later (Flink 2.x) whose keyed state is incremental.
func (r *Resolver) forStState(ctx context.Context, s *snap, path string) (bool, error) {
	if s.md.Version < 5 || s.facts.backend != BackendRocksDBIncremental {
		return false, nil
	}
	var meta *metadata.StreamHandle
	for _, op := range s.md.Operators {
		for _, st := range op.SubtaskStates {
			for _, k := range []*metadata.KeyedHandle{st.ManagedKeyed, st.RawKeyed} {
				if meta == nil && k != nil && (k.Type == metadata.TypeIncremental || k.Type == metadata.TypeIncrementalV2) && k.Stream != nil {
					meta = k.Stream
				}
			}
		}
	}
	if meta == nil {
		return false, nil
	}
	b := inlineData(meta)
	if b == nil {
		rd := &stateReader{ctx: ctx, b: s.loc.bucket, snap: &Snapshot{Key: s.key, Path: path}, limit: forStMetaLimit}
		var err error
		if b, err = rd.read(meta); err != nil {
			return false, err
		}
	}
	for _, m := range metadata.ScanStateMetaInfo(b) {
		if m.Type == metadata.MetaInfoKeyValueV2 {
			return true, nil
		}
	}
	return false, nil
}

// nameForSt sets the chosen snapshot's backend to BackendForSt when its
// keyed state meta info shows ForSt (forStState); a meta data file that
// cannot be read is said in the reasons, and changes nothing else: the
// restore does not depend on it.
func (r *Resolver) nameForSt(ctx context.Context, best *snap, path string) {
	forSt, err := r.forStState(ctx, best, path)
	switch {
	case err != nil:
		best.forStUnread = err.Error()
	case forSt:
		best.facts.backend = BackendForSt
	}
}

// backendReason says what the chosen snapshot's state backend is and how it
// is known, with what it means for a canonical savepoint: ForSt's take
// none, and a Flink 2.x snapshot of incremental handles may be ForSt's.
func (r *Resolver) backendReason(best *snap) string {
	b := best.facts.backend
	switch {
	case b == BackendForSt:
		return fmt.Sprintf("%s: state backend forst (its keyed state meta info records state of the async state API, KEY_VALUE_V2, which only ForSt's backend writes; its handles are RocksDB's incremental ones): %s", best.name(), noCanonicalFromForSt)
	case b == BackendRocksDBIncremental && best.md.Version >= 5:
		why := ""
		if best.forStUnread != "" {
			why = " (its keyed state meta info could not be read: " + best.forStUnread + ")"
		}
		return fmt.Sprintf("%s: state backend %s (from its keyed state handles), or ForSt's: Flink 2.x writes the same handles for both, and a ForSt job on the classic state API cannot be told from them%s; if it runs ForSt, %s", best.name(), b, why, noCanonicalFromForSt)
	}
	return fmt.Sprintf("%s: state backend %s (from its keyed state handles)", best.name(), b)
}
