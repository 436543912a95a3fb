package jobgraph_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// compatPlan is a compiled plan of Flink 1.20 as COMPILE PLAN writes it:
// orders → calc → count per customer → sink. aggID is the aggregate's node
// id: a refactor that rebuilds the query renumbers it.
func compatPlan(aggID string) string {
	return `{
  "flinkVersion" : "1.20",
  "nodes" : [ {
    "id" : 1,
    "type" : "stream-exec-table-source-scan_1",
    "scanTableSource" : { "table" : { "identifier" : "` + "`default_catalog`.`default_database`.`orders`" + `" } },
    "outputType" : "ROW<` + "`customer` BIGINT, `amount` INT" + `>",
    "description" : "TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[customer, amount])",
    "inputProperties" : [ ]
  }, {
    "id" : 2,
    "type" : "stream-exec-exchange_1",
    "inputProperties" : [ { "requiredDistribution" : { "type" : "HASH", "keys" : [ 0 ] }, "damBehavior" : "PIPELINED", "priority" : 0 } ],
    "outputType" : "ROW<` + "`customer` BIGINT, `amount` INT" + `>",
    "description" : "Exchange(distribution=[hash[customer]])"
  }, {
    "id" : ` + aggID + `,
    "type" : "stream-exec-group-aggregate_1",
    "configuration" : { "table.exec.mini-batch.enabled" : "false", "table.exec.mini-batch.size" : "-1" },
    "grouping" : [ 0 ],
    "outputType" : "ROW<` + "`customer` BIGINT, `orders` BIGINT NOT NULL" + `>",
    "description" : "GroupAggregate(groupBy=[customer], select=[customer, COUNT(*) AS orders])"
  }, {
    "id" : 4,
    "type" : "stream-exec-sink_1",
    "configuration" : { "table.exec.sink.keyed-shuffle" : "AUTO", "table.exec.sink.not-null-enforcer" : "ERROR",
      "table.exec.sink.rowtime-inserter" : "ENABLED", "table.exec.sink.type-length-enforcer" : "IGNORE", "table.exec.sink.upsert-materialize" : "AUTO" },
    "dynamicTableSink" : { "table" : { "identifier" : "` + "`default_catalog`.`default_database`.`order_counts`" + `",
      "resolvedTable" : { "schema" : { "columns" : [ { "name" : "customer", "dataType" : "BIGINT" }, { "name" : "orders", "dataType" : "BIGINT" } ],
        "watermarkSpecs" : [ ] }, "partitionKeys" : [ ] } } },
    "inputChangelogMode" : [ "INSERT", "UPDATE_BEFORE", "UPDATE_AFTER" ],
    "inputProperties" : [ { "requiredDistribution" : { "type" : "UNKNOWN" }, "damBehavior" : "PIPELINED", "priority" : 0 } ],
    "outputType" : "ROW<` + "`customer` BIGINT, `orders` BIGINT NOT NULL" + `>",
    "description" : "Sink(table=[default_catalog.default_database.order_counts], fields=[customer, orders])"
  } ],
  "edges" : [ { "source" : 1, "target" : 2, "shuffle" : { "type" : "FORWARD" }, "shuffleMode" : "PIPELINED" },
    { "source" : 2, "target" : ` + aggID + `, "shuffle" : { "type" : "FORWARD" }, "shuffleMode" : "PIPELINED" },
    { "source" : ` + aggID + `, "target" : 4, "shuffle" : { "type" : "FORWARD" }, "shuffleMode" : "PIPELINED" } ]
}
`
}

// compatSavepoint is a canonical savepoint of a job running compatPlan("3")
// at parallelism 2: the source's reader and enumerator state, the
// aggregate's keyed state, the sink's writer state.
func compatSavepoint() *metadata.Checkpoint {
	inline := func(b ...byte) *metadata.StreamHandle {
		return &metadata.StreamHandle{Type: metadata.TypeByteStream, Name: "inline", Data: b}
	}
	opState := func(name string) *metadata.OperatorHandle {
		return &metadata.OperatorHandle{Type: metadata.TypeOperatorStream,
			States: []metadata.OperatorStateInfo{{Name: name, Mode: metadata.ModeSplit, Offsets: []int64{0}}}, Stream: inline(0, 0, 0, 1)}
	}
	op := func(uid string, st func(i int32) metadata.SubtaskState) metadata.Operator {
		o := metadata.Operator{ID: jobgraph.OperatorID(uid), Parallelism: 2, MaxParallelism: 128}
		for i := int32(0); i < 2; i++ {
			o.SubtaskStates = append(o.SubtaskStates, st(i))
		}
		return o
	}
	source := op("1_source", func(i int32) metadata.SubtaskState {
		return metadata.SubtaskState{Index: i, ManagedOperator: opState("SourceReaderState")}
	})
	source.Coordinator = inline(0, 0, 0, 2)
	return &metadata.Checkpoint{Version: 4, CheckpointID: 12, Savepoint: true, Format: metadata.FormatCanonical,
		Operators: []metadata.Operator{
			source,
			op("3_group-aggregate", func(i int32) metadata.SubtaskState {
				return metadata.SubtaskState{Index: i, ManagedKeyed: &metadata.KeyedHandle{Type: metadata.TypeSavepointKeyGroups,
					KeyGroupStart: 64 * i, KeyGroupCount: 64, Offsets: make([]int64, 64), Stream: inline(1, 2, 3)}}
			}),
			op("4_sink", func(i int32) metadata.SubtaskState {
				return metadata.SubtaskState{Index: i, ManagedOperator: opState("writer_states")}
			}),
		}}
}

// TestCompatTestdata keeps testdata/compat (the Example's and resumectl's
// scripts' plan and savepoint) in step with compatPlan and
// compatSavepoint (FLINKCKPT_WRITE_SEEDS=1 rewrites it).
func TestCompatTestdata(t *testing.T) {
	md, err := flinkckpttest.Encode(compatSavepoint())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"plan.json":            []byte(compatPlan("3")),
		"plan-renumbered.json": []byte(compatPlan("13")),
		"savepoint-5b9e0a-3c1d2e4f6a7b/_metadata": md,
	}
	for name, want := range files {
		path := filepath.Join("testdata", "compat", name)
		if writeSeeds {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale (run with FLINKCKPT_WRITE_SEEDS=1)", path)
		}
	}
}
