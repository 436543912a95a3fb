package flinkckpt

import (
	"fmt"
	"sort"
	"strings"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume"
)

// What each Flink version reads and writes of _metadata, as its
// MetadataSerializers registers the versions and Checkpoints writes one
// (read from the released flink-runtime jars: 1.20.3 registers V1–V4 and
// writes V4; 2.0.0 registers V1–V5 and writes V5; 2.1.0, 2.2.0 and 2.3.0
// register V1–V6 and write V6). Before 1.20 the table follows the versions
// each format came with (FORMATS.md): 3 with 1.11, 4 with 1.16. A version
// it does not register fails the restore with "Unrecognized checkpoint
// version number: N" (MetadataSerializers.getSerializer).
//
// newestKnownFlink is the newest Flink whose serializers were read; for a
// later one what it reads is not known, and nothing is refused for it.
var newestKnownFlink = flinkVersion{}

func init() {
	v, _ := parseFlinkVersion("2.3")
	newestKnownFlink = v
}

// maxMetadataVersion is the newest _metadata version the Flink version v
// reads; ok is false when v is unknown or newer than newestKnownFlink.
func (v flinkVersion) maxMetadataVersion() (max int, ok bool) {
	switch {
	case !v.Known() || newestKnownFlink.Less(v.Major, v.Minor):
		return 0, false
	case v.Less(1, 11):
		return 2, true
	case v.Less(1, 16):
		return 3, true
	case v.Less(2, 0):
		return 4, true
	case v.Less(2, 1):
		return 5, true
	}
	return 6, true
}

// legacyClaimRemovedIn is the Flink version that removes the LEGACY claim
// mode (deprecated since 1.19, FLIP-416; its removal was moved to 2.4):
// from it on a LEGACY launch is refused (Options.validate).
var legacyClaimRemovedIn = struct{ major, minor int }{2, 4}

// writtenBy names the Flink versions that write _metadata version n.
func writtenBy(n int) string {
	switch n {
	case 1:
		return "Flink 1.1–1.2"
	case 2:
		return "Flink 1.3–1.10"
	case 3:
		return "Flink 1.11–1.15"
	case 4:
		return "Flink 1.16–1.20"
	case 5:
		return "Flink 2.0"
	case 6:
		return "Flink 2.1–2.3"
	}
	return "a Flink newer than 2.3"
}

// unrecognizedVersion is Flink's own text for a _metadata version it does
// not register (MetadataSerializers.getSerializer, 1.x and 2.x alike).
func unrecognizedVersion(n int) string {
	return fmt.Sprintf("Unrecognized checkpoint version number: %d", n)
}

// unreadable says why the new job's Flink (Options.FlinkVersion) cannot
// read the snapshot's _metadata, with Flink's own error text; "" when it
// can, or when the version is not given or not known.
func (o Options) unreadable(md *metadata.Checkpoint) string {
	v, err := parseFlinkVersion(o.FlinkVersion)
	if err != nil {
		return ""
	}
	max, ok := v.maxMetadataVersion()
	if !ok || md.Version <= max {
		return ""
	}
	return fmt.Sprintf("Flink %s cannot read it: %q (_metadata version %d, written by %s; Flink %s reads versions 1–%d)",
		o.FlinkVersion, unrecognizedVersion(md.Version), md.Version, writtenBy(md.Version), o.FlinkVersion, max)
}

// versionReason says which _metadata versions the new job's Flink reads,
// or, with no version given, what was assumed.
func (r *Resolver) versionReason(best *snap) string {
	md := best.md
	v, _ := parseFlinkVersion(r.opts.FlinkVersion)
	if !v.Known() {
		return fmt.Sprintf("%s: the new job's Flink version is not given (--flink-version, Options.FlinkVersion): assumed to read _metadata version %d (written by %s) and to be the same major version",
			best.name(), md.Version, writtenBy(md.Version))
	}
	if max, ok := v.maxMetadataVersion(); ok {
		return fmt.Sprintf("%s: Flink %s reads its _metadata version %d (it reads 1–%d)", best.name(), r.opts.FlinkVersion, md.Version, max)
	}
	return fmt.Sprintf("%s: which _metadata versions Flink %s reads is not known to resumekit (newest known: %s); version %d assumed readable",
		best.name(), r.opts.FlinkVersion, newestKnownFlink, md.Version)
}

// versionFacts adds the warnings and grade the new job's Flink version
// gives a chosen snapshot: with no version given, a snapshot only Flink
// 2.x reads is warned about (a rollback to 1.x would fail); for a Flink 1.x
// snapshot and a 2.x job, what the major upgrade does (majorUpgrade).
func (r *Resolver) versionFacts(c *resume.Candidate, best *snap) {
	md := best.md
	v, _ := parseFlinkVersion(r.opts.FlinkVersion)
	switch {
	case !v.Known() && md.Version >= 5:
		c.Warnings = append(c.Warnings, resume.Warnf(WarnVersionAssumed, "%s has a version %d _metadata, written by %s, which Flink 1.x cannot read (%q): if the new job runs Flink 1.x (a rollback), give its version (--flink-version, Options.FlinkVersion) and a snapshot it reads is chosen",
			best.name(), md.Version, writtenBy(md.Version), unrecognizedVersion(md.Version)))
	case v.Known() && md.Version <= 4 && v.AtLeast(2, 0):
		r.majorUpgrade(c, best)
	}
}

// legacyStates are the operator states of the legacy SourceFunction and
// SinkFunction connectors, which Flink 2.x removed: a 2.x job has no
// operator that reads them, so their content is dropped.
var legacyStates = map[string]struct {
	what   string
	source bool
}{
	"topic-partition-offset-states": {"the legacy FlinkKafkaConsumer's offsets (removed with SourceFunction in Flink 2.0 and from the Kafka connector in 4.0, FLINK-36848)", true},
	"offset-states":                 {"Flink CDC's legacy DebeziumSourceFunction offsets (a SourceFunction, removed in Flink 2.0)", true},
	"next-snapshot":                 {"Paimon's legacy MonitorFunction next snapshot (a SourceFunction, removed in Flink 2.0)", true},
	"state":                         {"a TwoPhaseCommitSinkFunction's pending transactions (a SinkFunction, removed in Flink 2.0)", false},
	"next-transactional-id-hint":    {"the legacy FlinkKafkaProducer's transactional id hint (a SinkFunction, removed in Flink 2.0)", false},
	"next-transactional-id-hint-v2": {"the legacy FlinkKafkaProducer's transactional id hint (a SinkFunction, removed in Flink 2.0)", false},
}

// kryoSnapshotClass is the serializer snapshot Flink writes for a type
// serialized by Kryo (a generic type).
const kryoSnapshotClass = "org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializerSnapshot"

// majorUpgrade adds what restoring a Flink 1.x snapshot into Flink 2.x
// does: the flink.major-upgrade warning, the legacy source and sink state
// dropped (data-loss), and the state Kryo serialized.
func (r *Resolver) majorUpgrade(c *resume.Candidate, best *snap) {
	md := best.md
	c.Warnings = append(c.Warnings, resume.Warnf(WarnMajorUpgrade, "%s was written by %s (_metadata version %d) and is restored by Flink %s: Flink does not guarantee state compatibility between 1.x and 2.x (2.0 release notes); Kryo moved from 2 to 5, and state Kryo serialized may not read back (FLINK-37661); SourceFunction, SinkFunction and Sink V1 are removed, so their state has no operator to go to; a canonical savepoint taken on 1.20 is the supported way across",
		best.name(), writtenBy(md.Version), md.Version, r.opts.FlinkVersion))
	var dropped []string
	source := false
	for _, op := range md.Operators {
		for _, name := range operatorStateNames(op) {
			if l, ok := legacyStates[name]; ok {
				dropped = append(dropped, fmt.Sprintf("operator %s%s: %q, %s", op.ID, uidSuffix(op), name, l.what))
				source = source || l.source
			}
		}
	}
	if len(dropped) > 0 {
		c.Guarantee = resume.DataLoss
		text := "Flink " + r.opts.FlinkVersion + " has no operator for the legacy source and sink state of " + strings.Join(dropped, "; ") +
			": it is dropped, graded data-loss — the source starts from its own startup options, prepared transactions are not committed"
		if source {
			text += "; salvage the source positions into a FLIP-27 source instead (a KafkaSource started with scan.startup.specific-offsets: resolve offers it as flink-salvage when the new job is named or with --flink-sources; package flinkckpt/salvage) or take a canonical savepoint on 1.20 after moving the job to FLIP-27 sources"
		}
		c.Warnings = append(c.Warnings, resume.Warnf(WarnUpgradeDropsState, "%s", text))
	}
	if kryo := kryoStates(md); len(kryo) > 0 {
		// Not graded down: real Flink 2.2.0 restored a Kryo-serialized
		// value state (a class of a long and a String) from a Flink 1.20.3
		// canonical RocksDB savepoint and read it (resumekit's check,
		// README "Flink versions"); what Kryo 5 reads differently
		// (FLINK-37661) depends on the classes.
		c.Warnings = append(c.Warnings, resume.Warnf(WarnKryoState, "state serialized by Kryo (%s): Flink %s serializes generic types with Kryo 5, the 1.x snapshot holds what Kryo 2 wrote; Flink 2.2.0 read such state of a simple class back in resumekit's check, but classes Kryo 5 handles differently fail the restore or read wrong values (FLINK-37661): test the restore of this job's classes, or give them a POJO or custom TypeSerializer in a canonical savepoint taken on 1.20 first",
			strings.Join(kryo, "; "), r.opts.FlinkVersion))
	}
}

func uidSuffix(op metadata.Operator) string {
	if op.UID != "" {
		return " (uid " + op.UID + ")"
	}
	return ""
}

// operatorStateNames lists the names of op's operator states, sorted.
func operatorStateNames(op metadata.Operator) []string {
	seen := map[string]bool{}
	for _, st := range op.SubtaskStates {
		for _, h := range []*metadata.OperatorHandle{st.ManagedOperator, st.RawOperator} {
			if h == nil {
				continue
			}
			for _, si := range h.States {
				seen[si.Name] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// kryoStates names, per operator and state, the state whose serializer
// snapshot in the state meta info is Kryo's: read from the meta info
// inline in _metadata (operator state streams, keyed state streams, the
// RocksDB meta data handle, changelog materializations). Meta info in
// files is not read.
func kryoStates(md *metadata.Checkpoint) []string {
	var out []string
	for _, op := range md.Operators {
		names := map[string]bool{}
		for _, st := range op.SubtaskStates {
			for _, h := range []*metadata.OperatorHandle{st.ManagedOperator, st.RawOperator} {
				if h != nil {
					scanKryo(inlineData(h.Stream), "operator state", names)
				}
			}
			for _, k := range []*metadata.KeyedHandle{st.ManagedKeyed, st.RawKeyed} {
				for _, b := range keyedInline(k, 0) {
					scanKryo(b, "keyed state", names)
				}
			}
		}
		if len(names) == 0 {
			continue
		}
		list := make([]string, 0, len(names))
		for n := range names {
			list = append(list, n)
		}
		sort.Strings(list)
		out = append(out, fmt.Sprintf("operator %s%s: %s", op.ID, uidSuffix(op), strings.Join(list, ", ")))
	}
	return out
}

func scanKryo(b []byte, kind string, names map[string]bool) {
	for _, m := range metadata.ScanStateMetaInfo(b) {
		for _, s := range m.Serializers {
			if s.Class != kryoSnapshotClass {
				continue
			}
			role := strings.ToLower(strings.TrimSuffix(s.Role, "_SERIALIZER"))
			if m.Name == "" {
				names[kind+" key serializer"] = true
			} else {
				names[fmt.Sprintf("%s %q (%s)", kind, m.Name, role)] = true
			}
		}
	}
}

// inlineData returns a stream handle's inline bytes (and those of the
// stream key groups delegate to), nil when the bytes are in a file.
func inlineData(h *metadata.StreamHandle) []byte {
	for d := 0; h != nil && d < 8; d++ {
		if h.Type == metadata.TypeByteStream {
			return h.Data
		}
		h = h.Nested
	}
	return nil
}

// keyedInline returns the inline streams of a keyed handle that can hold
// the keyed state meta info: a key-groups stream, the RocksDB meta data
// handle, the materialized part of a changelog handle.
func keyedInline(k *metadata.KeyedHandle, depth int) [][]byte {
	if k == nil || depth > 8 {
		return nil
	}
	var out [][]byte
	if b := inlineData(k.Stream); b != nil {
		out = append(out, b)
	}
	for _, m := range k.Materialized {
		out = append(out, keyedInline(m, depth+1)...)
	}
	for _, m := range k.NonMaterialized {
		out = append(out, keyedInline(m, depth+1)...)
	}
	for _, c := range k.Changes {
		out = append(out, c.Data)
	}
	return out
}
