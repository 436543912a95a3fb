package flinkckpt

import (
	"context"
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

// legacyKafkaClassGone is Flink 2.2.0's error restoring the legacy
// FlinkKafkaConsumer's union state "topic-partition-offset-states" into an
// operator of the same id (conformance U4: a Flink 1.20.3 savepoint, the
// new job's KafkaSource under the consumer's uid): the operator state
// backend deserializes every state it restores, and the class the
// state's serializer names went with the consumer (flink-connector-kafka
// 4.0, FLINK-36848), so the restore fails before any operator asks for it.
const legacyKafkaClassGone = "Could not find class 'org.apache.flink.streaming.connectors.kafka.internals.KafkaTopicPartition' in classpath"

// upgradeFails says why Flink 2.x fails to restore the Flink 1.x snapshot
// md: an operator holds the legacy FlinkKafkaConsumer's offsets and the
// new job may restore state into it (its id is in the new job, or the new
// job is not named, or it is but without --allowNonRestoredState, which
// the job check refuses anyway). "" when the target is not 2.x, md is not
// 1.x, or nothing fails.
func (o Options) upgradeFails(md *metadata.Checkpoint) string {
	v, err := parseFlinkVersion(o.FlinkVersion)
	if err != nil || !v.Known() || !v.AtLeast(2, 0) || md.Version > 4 {
		return ""
	}
	var ops []string
	for _, op := range md.Operators {
		has := false
		for _, name := range operatorStateNames(op) {
			has = has || name == "topic-partition-offset-states"
		}
		if !has || (o.Job != nil && !o.Job.Has(op.ID) && o.AllowNonRestoredState) {
			continue
		}
		ops = append(ops, "operator "+op.ID+uidSuffix(op))
	}
	if len(ops) == 0 {
		return ""
	}
	return fmt.Sprintf("Flink %s fails to restore it: %q (the legacy FlinkKafkaConsumer's offsets \"topic-partition-offset-states\" in %s, restored into the operator of the same uid; real Flink 2.2.0 failed so on a Flink 1.20.3 savepoint); salvage the offsets into a KafkaSource start (--flink-sources), or give the new source another uid and restore with --allowNonRestoredState (naming the new job: --flink-uid …), which drops them",
		o.FlinkVersion, legacyKafkaClassGone, strings.Join(ops, ", "))
}

// orUpgradeFails returns jc, or, when neither it nor the version check
// (unread) refuses the snapshot md, a rejection saying why Flink 2.x fails
// to restore it (upgradeFails). jc may be nil (no new job given).
func (jc *jobCheck) orUpgradeFails(o Options, md *metadata.Checkpoint, unread string) *jobCheck {
	if unread != "" || (jc != nil && jc.reject != "") {
		return jc
	}
	if fails := o.upgradeFails(md); fails != "" {
		return &jobCheck{reject: fails}
	}
	return jc
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
// snapshot and a 2.x job, what the major upgrade does (majorUpgrade); for a
// 1.x job, a stop-with-savepoint's stale FlinkKafkaConsumer offsets
// (legacyStop).
func (r *Resolver) versionFacts(ctx context.Context, c *resume.Candidate, best *snap, path string) {
	md := best.md
	v, _ := parseFlinkVersion(r.opts.FlinkVersion)
	switch {
	case !v.Known() && md.Version >= 5:
		c.Warnings = append(c.Warnings, resume.Warnf(WarnVersionAssumed, "%s has a version %d _metadata, written by %s, which Flink 1.x cannot read (%q): if the new job runs Flink 1.x (a rollback), give its version (--flink-version, Options.FlinkVersion) and a snapshot it reads is chosen",
			best.name(), md.Version, writtenBy(md.Version), unrecognizedVersion(md.Version)))
	case v.Known() && md.Version <= 4 && v.AtLeast(2, 0):
		r.majorUpgrade(ctx, c, best, path)
	}
	r.legacyStop(c, best) // legacystop.go
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

// majorUpgrade adds what restoring a Flink 1.x snapshot into Flink 2.x
// does: the flink.major-upgrade warning, the legacy source and sink state
// dropped (data-loss), and the state Kryo serialized.
func (r *Resolver) majorUpgrade(ctx context.Context, c *resume.Candidate, best *snap, path string) {
	md := best.md
	kryo, unread := kryoStates(md, &stateReader{ctx: ctx, b: best.loc.bucket, snap: &Snapshot{Key: best.key, Path: path}, limit: metaInfoHead})
	unknown := ""
	if len(unread) > 0 {
		unknown = "; whether state is serialized by Kryo is not known for " + strings.Join(unread, "; ")
	}
	c.Warnings = append(c.Warnings, resume.Warnf(WarnMajorUpgrade, "%s was written by %s (_metadata version %d) and is restored by Flink %s: Flink does not guarantee state compatibility between 1.x and 2.x (2.0 release notes); Kryo moved from 2 to 5, and state Kryo serialized may not read back (FLINK-37661); SourceFunction, SinkFunction and Sink V1 are removed, so their state has no operator to go to; a canonical savepoint taken on 1.20 is the supported way across%s",
		best.name(), writtenBy(md.Version), md.Version, r.opts.FlinkVersion, unknown))
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
	if len(kryo) > 0 {
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
