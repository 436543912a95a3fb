package jobgraph

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Paimon's table options that name the operators its Flink source and sink
// add (FlinkConnectorOptions in paimon-flink-common).
const (
	paimonSourceUIDSuffix  = "source.operator-uid.suffix"
	paimonSinkUIDSuffix    = "sink.operator-uid.suffix"
	paimonBucket           = "bucket"
	paimonPrecommitCompact = "changelog.precommit-compact"
	paimonConsumerID       = "consumer-id"
	paimonConsumerMode     = "consumer.mode"
	paimonConsumerAtLeast  = "at-least-once"
	paimonConnectorName    = "paimon"
	paimonWriterPrefix     = "Writer"
	paimonCommitterPrefix  = "Global Committer"
	paimonSourcePrefix     = "Source"
	connectorOptionKey     = "connector"
	// Flink's Kafka SQL connectors and their topic option.
	kafkaConnectorName       = "kafka"
	upsertKafkaConnectorName = "upsert-kafka"
	kafkaTopicOption         = "topic"
	connectorTableFieldScan  = "scanTableSource"
	connectorTableFieldSink  = "dynamicTableSink"
)

// connectorTable is what a source or sink node of a plan says about its
// table: the identifier and the options the plan recorded.
type connectorTable struct {
	Identifier string
	Options    map[string]string
	// Recorded is false when the plan holds no options for the table (a
	// catalog table compiled with table.plan.compile.catalog-objects
	// IDENTIFIER).
	Recorded bool
}

// connectorTable reads the node's scanTableSource or dynamicTableSink table.
func (c *nodeContext) connectorTable(field string) connectorTable {
	var spec map[string]json.RawMessage
	if !c.decode(&spec) {
		return connectorTable{}
	}
	var t struct {
		Table struct {
			Identifier    string `json:"identifier"`
			ResolvedTable *struct {
				Options map[string]string `json:"options"`
			} `json:"resolvedTable"`
		} `json:"table"`
	}
	if raw, ok := spec[field]; !ok || json.Unmarshal(raw, &t) != nil {
		return connectorTable{}
	}
	out := connectorTable{Identifier: t.Table.Identifier}
	if t.Table.ResolvedTable != nil && t.Table.ResolvedTable.Options != nil {
		out.Options, out.Recorded = t.Table.ResolvedTable.Options, true
	}
	return out
}

// objectName is the last part of a table identifier
// ("`cat`.`db`.`tbl`" → "tbl"), backquotes undone.
func objectName(identifier string) string {
	var parts []string
	var b strings.Builder
	quoted := false
	for i := 0; i < len(identifier); i++ {
		ch := identifier[i]
		switch {
		case ch == '`' && quoted && i+1 < len(identifier) && identifier[i+1] == '`':
			b.WriteByte('`')
			i++
		case ch == '`':
			quoted = !quoted
		case ch == '.' && !quoted:
			parts = append(parts, b.String())
			b.Reset()
		default:
			b.WriteByte(ch)
		}
	}
	parts = append(parts, b.String())
	return parts[len(parts)-1]
}

// connector adds to a source or sink node what its connector adds itself,
// where resumekit knows it: Paimon's sink operators (named with the uids
// sink.operator-uid.suffix gives, listed in Unnamed otherwise) and its
// source (the planner's uid, or source.operator-uid.suffix's when the
// planner sets none; a consumer source's Monitor in Unnamed). A node whose table's options the
// plan does not hold is left as it was (its connector is not known).
func (c *nodeContext) connector(out *PlanNode) {
	field := connectorTableFieldScan
	if c.n.Name == "stream-exec-sink" {
		field = connectorTableFieldSink
	} else if c.n.Name != "stream-exec-table-source-scan" {
		return
	}
	t := c.connectorTable(field)
	if !t.Recorded {
		return
	}
	out.Connector = t.Options[connectorOptionKey]
	if field == connectorTableFieldSink && (out.Connector == kafkaConnectorName || out.Connector == upsertKafkaConnectorName) {
		for _, topic := range strings.Split(t.Options[kafkaTopicOption], ";") {
			if topic = strings.TrimSpace(topic); topic != "" {
				out.SinkTopics = append(out.SinkTopics, topic)
			}
		}
	}
	if out.Connector != paimonConnectorName {
		return
	}
	// Paimon's FileStoreTable.name(): the table's object name (for a
	// table over a path, the path's last directory).
	name := objectName(t.Identifier)
	if p := strings.TrimRight(t.Options["path"], "/"); p != "" {
		name = p[strings.LastIndexByte(p, '/')+1:]
	}
	add := func(prefix, suffix, what string) {
		uid := prefix + "_" + name + "_" + suffix // generateCustomUid
		out.Operators = append(out.Operators, PlanOperator{Transformation: "paimon " + what, UID: uid, ID: OperatorID(uid),
			Why: "added by Paimon with the uid its " + what + " option gives"})
	}
	if field == connectorTableFieldScan {
		// The planner puts its uid (<id>_source) on the last transformation
		// a DataStreamScanProvider returns (CommonExecTableSourceScan,
		// TransformationMetadata.fill), over the uid Paimon gave: the
		// FLIP-27 source, or the Reader of the consumer source, whose
		// Monitor keeps a topology hash.
		suffix := t.Options[paimonSourceUIDSuffix]
		consumer := t.Options[paimonConsumerID] != "" && !strings.EqualFold(t.Options[paimonConsumerMode], paimonConsumerAtLeast)
		switch {
		case consumer:
			out.Unnamed = append(out.Unnamed, fmt.Sprintf("the Monitor of Paimon's consumer source of table %s (consumer-id with consumer.mode exactly-once; Paimon never gives it a uid): a topology hash", name))
		case !c.setUID && strings.TrimSpace(suffix) != "":
			add(paimonSourcePrefix, suffix, "source")
		}
		return
	}
	suffix, set := t.Options[paimonSinkUIDSuffix]
	if !set {
		out.Unnamed = append(out.Unnamed, fmt.Sprintf("Paimon's Writer and Global Committer of table %s: topology hashes (%s not set)", name, paimonSinkUIDSuffix))
		return
	}
	add(paimonWriterPrefix, suffix, "writer")
	add(paimonCommitterPrefix, suffix, "global committer")
	if b, err := strconv.Atoi(strings.TrimSpace(t.Options[paimonBucket])); err != nil || b <= 0 {
		out.Unnamed = append(out.Unnamed, fmt.Sprintf("Paimon's sink of table %s without a fixed bucket count (bucket %q): its dynamic bucket assigner or compaction operators are not modelled", name, t.Options[paimonBucket]))
	}
	if strings.EqualFold(t.Options[paimonPrecommitCompact], "true") {
		out.Unnamed = append(out.Unnamed, fmt.Sprintf("Paimon's changelog compaction operators of table %s (%s): no uid, topology hashes", name, paimonPrecommitCompact))
	}
}
