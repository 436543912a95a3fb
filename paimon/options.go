package paimon

// The table options resumekit reads and the values it compares them with,
// in one place: the resolver and ResetConsumer read them from the table's
// schema (ParseSchema) and TableOptions.Options; Paimon's CoreOptions
// defines them.

// Table option keys resumekit reads (Paimon CoreOptions).
const (
	OptConsumerExpiration     = "consumer.expiration-time"
	OptConsumerMode           = "consumer.mode"
	OptConsumerIgnoreProgress = "consumer.ignore-progress"
	OptChangelogNumRetainMax  = "changelog.num-retained.max"
	OptChangelogTimeRetained  = "changelog.time-retained"
	OptSnapshotNumRetainMin   = "snapshot.num-retained.min"
	OptSnapshotNumRetainMax   = "snapshot.num-retained.max"
	OptSnapshotTimeRetained   = "snapshot.time-retained"
	// OptChangelogNumRetainMin is changelog.num-retained.min; like the other
	// changelog retention options it defaults to its snapshot counterpart.
	OptChangelogNumRetainMin = "changelog.num-retained.min"
	// OptChangelogProducer is changelog-producer (none, input,
	// full-compaction, lookup; default none). Paimon 0.8 reads long-lived
	// changelogs only when it is not none.
	OptChangelogProducer = "changelog-producer"
	// OptConsumerChangelogOnly is consumer.changelog-only (Paimon 1.4+,
	// default false): with decoupled changelogs, consumers protect
	// changelogs only and no longer stop snapshot expiry.
	OptConsumerChangelogOnly = "consumer.changelog-only"
	// OptScanMode is scan.mode; OptScanSnapshotID is scan.snapshot-id.
	OptScanMode       = "scan.mode"
	OptScanSnapshotID = "scan.snapshot-id"
)

// Consumer modes (consumer.mode).
const (
	ModeExactlyOnce = "exactly-once"
	ModeAtLeastOnce = "at-least-once"
)
