package sourcestate

import "github.com/resumekit/resumekit/flinkckpt/metadata/opstate"

// The per-format parsers are unexported: users decode whole snapshots with
// Decode. The fuzz and hostile-input tests, which build their input with
// flinkckpttest's encoder (which imports this package, so they cannot be
// in-package), reach the parsers through these names.
var (
	ParseKafkaSplit         = parseKafkaSplit
	ParseLegacyKafkaOffset  = parseLegacyKafkaOffset
	ParseKafkaEnumerator    = parseKafkaEnumerator
	ParseMySQLSplit         = parseMySQLSplit
	ParseMySQLEnumerator    = parseMySQLEnumerator
	ParsePaimonSplit        = parsePaimonSplit
	ParsePaimonJavaSplit    = parsePaimonJavaSplit
	ParsePaimonEnumerator   = parsePaimonEnumerator
	ParseMonitorSplit       = parseMonitorSplit
	ParseStreamHeader       = opstate.ParseStreamHeader
	ReadSplits              = readSplits
	ParseCoordinator        = parseCoordinator
	ParsePostgresSplit      = parsePostgresSplit
	ParsePostgresEnumerator = parsePostgresEnumerator
)
