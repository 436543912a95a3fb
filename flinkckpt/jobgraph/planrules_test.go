package jobgraph_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
)

const (
	rowRowtimeString = "\"outputType\": \"ROW<`a` INT, `ts` TIMESTAMP(3) *ROWTIME*>\""
	rowRowtimeObject = `"outputType": {"type": "ROW", "fields": [{"name": "a", "fieldType": "INT"},
		{"name": "ts", "fieldType": {"type": "TIMESTAMP_WITHOUT_TIME_ZONE", "precision": 3, "kind": "ROWTIME"}}]}`
	rowProctime = `"outputType": {"type": "ROW", "fields": [{"name": "a", "fieldType": "INT"},
		{"name": "pt", "fieldType": {"type": "TIMESTAMP_WITH_LOCAL_TIME_ZONE", "nullable": false, "precision": 3, "kind": "PROCTIME"}}]}`
)

// sinkPlan is source 1 → sink 2 with the sink's extra fields.
func sinkPlan(sourceType, sink string) string {
	return testPlan("1.19", []testNode{
		{1, "stream-exec-table-source-scan_1", sourceType},
		{2, "stream-exec-sink_1", sink},
	})
}

var committers = []string{"Sink Committer: 2_sink?", "Sink 2_sink Global Committer?"}

func withCommitters(uids ...string) []string { return append(uids, committers...) }

// TestPlanConditionalTransformations covers each rule that decides a
// transformation from the plan.
func TestPlanConditionalTransformations(t *testing.T) {
	col := func(name, typ string) string { return `{"name": "` + name + `", "dataType": "` + typ + `"}` }
	for _, tc := range []struct {
		name string
		plan string
		opts *jobgraph.PlanOptions
		want []string
	}{
		{"SinkPlain", sinkPlan(rowA, sinkFields(col("a", "INT"), `"INSERT"`)), nil,
			withCommitters("1_source", "2_sink")},
		{"SinkNotNullColumn", sinkPlan(rowA, sinkFields(col("a", "INT NOT NULL"), `"INSERT"`)), nil,
			withCommitters("1_source", "2_constraint-validator", "2_sink")},
		{"SinkNotNullObjectType", sinkPlan(rowA, sinkFields(`{"name": "a", "dataType": {"type": "INTEGER", "nullable": false}}`, `"INSERT"`)), nil,
			withCommitters("1_source", "2_constraint-validator", "2_sink")},
		{"SinkNotNullComputedColumn", sinkPlan(rowA, sinkFields(col("a", "INT")+`, {"name": "c", "kind": "COMPUTED", "dataType": "INT NOT NULL"}`, `"INSERT"`)), nil,
			withCommitters("1_source", "2_sink")},
		{"SinkNestedNotNull", sinkPlan(rowA, sinkFields(col("a", "ARRAY<INT NOT NULL>"), `"INSERT"`)), nil,
			withCommitters("1_source", "2_sink")},
		{"SinkCharIgnored", sinkPlan(rowA, sinkFields(col("a", "CHAR(5)"), `"INSERT"`)), nil,
			withCommitters("1_source", "2_sink")},
		{"SinkCharTrimPad", sinkPlan(rowA, `"configuration": {"table.exec.sink.type-length-enforcer": "TRIM_PAD"}, `+sinkFields(col("a", "CHAR(5)"), `"INSERT"`)), nil,
			withCommitters("1_source", "2_constraint-validator", "2_sink")},
		{"SinkVarcharTrimPad", sinkPlan(rowA, sinkFields(col("a", "VARCHAR(10)"), `"INSERT"`)),
			&jobgraph.PlanOptions{Config: map[string]string{"table.exec.sink.type-length-enforcer": "trim_pad"}},
			withCommitters("1_source", "2_constraint-validator", "2_sink")},
		{"SinkStringTrimPad", sinkPlan(rowA, sinkFields(col("a", "VARCHAR(2147483647)")+", "+col("b", "STRING"), `"INSERT"`)),
			&jobgraph.PlanOptions{Config: map[string]string{"table.exec.sink.type-length-enforcer": "TRIM_PAD"}},
			withCommitters("1_source", "2_sink")},
		{"SinkSchemaNotInPlan", sinkPlan(rowA, `"dynamicTableSink": {"table": {"identifier": "t"}}, "inputChangelogMode": ["INSERT"]`), nil,
			withCommitters("1_source", "2_constraint-validator?", "2_sink")},
		{"SinkUpsertMaterialize", sinkPlan(rowA, sinkFields(col("a", "INT"), `"INSERT", "UPDATE_AFTER", "DELETE"`)+`, "requireUpsertMaterialize": true`), nil,
			withCommitters("1_source", "2_upsert-materialize", "2_sink")},
		{"SinkUpsertMaterializeInsertOnly", sinkPlan(rowA, sinkFields(col("a", "INT"), `"INSERT"`)+`, "requireUpsertMaterialize": true`), nil,
			withCommitters("1_source", "2_sink")},
		{"SinkRowLevelDelete", sinkPlan(rowA, `"dynamicTableSink": {"table": {"identifier": "t", "resolvedTable": {"schema": {"columns": [`+col("a", "INT")+
			`]}}}, "abilities": [{"type": "RowLevelDelete", "rowLevelDeleteMode": "DELETED_ROWS"}]}, "inputChangelogMode": ["INSERT"]`), nil,
			withCommitters("1_source", "2_row-kind-setter", "2_sink")},
		{"SinkRowLevelDeleteRemaining", sinkPlan(rowA, `"dynamicTableSink": {"table": {"identifier": "t", "resolvedTable": {"schema": {"columns": [`+col("a", "INT")+
			`]}}}, "abilities": [{"type": "RowLevelDelete", "rowLevelDeleteMode": "REMAINING_ROWS"}]}, "inputChangelogMode": ["INSERT"]`), nil,
			withCommitters("1_source", "2_sink")},
		{"SinkRowtimeString", sinkPlan(rowRowtimeString, sinkFields(col("a", "INT"), `"INSERT"`)), nil,
			withCommitters("1_source", "2_timestamp-inserter?", "2_sink")},
		{"SinkRowtimeObject", sinkPlan(rowRowtimeObject, sinkFields(col("a", "INT"), `"INSERT"`)), nil,
			withCommitters("1_source", "2_timestamp-inserter?", "2_sink")},
		{"SinkRowtimeInserterDisabled", sinkPlan(rowRowtimeObject, `"configuration": {"table.exec.sink.rowtime-inserter": "DISABLED"}, `+sinkFields(col("a", "INT"), `"INSERT"`)), nil,
			withCommitters("1_source", "2_sink")},
		{"SinkProctimeOnly", sinkPlan(rowProctime, sinkFields(col("a", "INT"), `"INSERT"`)), nil,
			withCommitters("1_source", "2_sink")},

		{"LookupJoin", testPlan("1.19", []testNode{{1, "stream-exec-table-source-scan_1", rowA}, {2, "stream-exec-lookup-join_1", `"lookupKeyContainsPrimaryKey": true`}}), nil,
			[]string{"1_source", "2_lookup-join"}},
		{"LookupJoinMaterialize", testPlan("1.19", []testNode{{1, "stream-exec-table-source-scan_1", rowA}, {2, "stream-exec-lookup-join_1", `"requireUpsertMaterialize": true`}}), nil,
			[]string{"1_source", "2_lookup-join-materialize"}},

		{"MatchByRowtime", matchPlan(rowRowtimeObject, 1), nil, []string{"1_source", "2_timestamp-inserter", "2_match"}},
		{"MatchByRowtimeString", matchPlan(rowRowtimeString, 1), nil, []string{"1_source", "2_timestamp-inserter", "2_match"}},
		{"MatchByInt", matchPlan(rowRowtimeObject, 0), nil, []string{"1_source", "2_match"}},
		{"MatchOrderOutOfRange", matchPlan(rowRowtimeObject, 9), nil, []string{"1_source", "2_timestamp-inserter?", "2_match"}},

		{"TemporalSortProctimeOnly", temporalSortPlan(rowProctime, `{"index": 1, "isAscending": true, "nullIsLast": false}`), nil, []string{"1_source"}},
		{"TemporalSortProctimeThenField", temporalSortPlan(rowProctime, `{"index": 1, "isAscending": true, "nullIsLast": false}, {"index": 0, "isAscending": true, "nullIsLast": false}`), nil,
			[]string{"1_source", "2_temporal-sort"}},
		{"TemporalSortRowtime", temporalSortPlan(rowRowtimeObject, `{"index": 1, "isAscending": true, "nullIsLast": false}`), nil, []string{"1_source", "2_temporal-sort"}},

		{"IntervalJoin", intervalJoinPlan("INNER", 0, 5000), nil, []string{"1_source", "2_source", "3_interval-join"}},
		{"IntervalJoinNegativeLeft", intervalJoinPlan("LEFT", 10000, 5000), nil,
			[]string{"1_source", "2_source", "<pad-left of node 3>", "<filter-right of node 3>"}},
		{"IntervalJoinNegativeFullLegacyFlag", intervalJoinPlan("FULL", 10000, 5000),
			&jobgraph.PlanOptions{Config: map[string]string{"table.exec.legacy-transformation-uids": "true"}},
			[]string{"<source of node 1>", "<source of node 2>", "3_pad-left", "3_pad-right"}},
		{"IntervalJoinUnreadable", testPlan("1.19", []testNode{{1, "stream-exec-table-source-scan_1", rowA}, {3, "stream-exec-interval-join_1", ""}}), nil,
			[]string{"1_source", "3_interval-join?", "<filter-left of node 3>?", "<filter-right of node 3>?", "<pad-left of node 3>?", "<pad-right of node 3>?"}},

		{"ExchangeAndUnionHaveNoOperator", testPlan("1.19", []testNode{
			{1, "stream-exec-table-source-scan_1", rowA}, {2, "stream-exec-table-source-scan_1", rowA},
			{3, "stream-exec-union_1", rowA}, {4, "stream-exec-exchange_1", rowA}, {5, "stream-exec-calc_1", rowA},
		}, [2]int{1, 3}, [2]int{2, 3}, [2]int{3, 4}, [2]int{4, 5}), nil, []string{"1_source", "2_source", "5_calc"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, uidsOf(t, tc.plan, tc.opts)); diff != "" {
				t.Errorf("operators (-want +got):\n%s", diff)
			}
		})
	}
}

func matchPlan(input string, orderIndex int) string {
	return testPlan("1.19", []testNode{
		{1, "stream-exec-table-source-scan_1", input},
		{2, "stream-exec-match_1", `"matchSpec": {"orderBy": {"fields": [{"index": ` + itoa(orderIndex) + `, "isAscending": true, "nullIsLast": false}]}}`},
	})
}

func temporalSortPlan(input, fields string) string {
	return testPlan("1.19", []testNode{
		{1, "stream-exec-table-source-scan_1", input},
		{2, "stream-exec-temporal-sort_1", `"sortSpec": {"fields": [` + fields + `]}`},
	})
}

func intervalJoinPlan(joinType string, lower, upper int) string {
	return testPlan("1.19", []testNode{
		{1, "stream-exec-table-source-scan_1", rowRowtimeObject},
		{2, "stream-exec-table-source-scan_1", rowRowtimeObject},
		{3, "stream-exec-interval-join_1", `"intervalJoinSpec": {"joinSpec": {"joinType": "` + joinType + `", "leftKeys": [0], "rightKeys": [0]},
			"windowBounds": {"isEventTime": true, "leftLowerBound": ` + itoa(lower) + `, "leftUpperBound": ` + itoa(upper) + `, "leftTimeIndex": 1, "rightTimeIndex": 1}}`},
	}, [2]int{1, 3}, [2]int{2, 3})
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestPlanTemporalSortNote(t *testing.T) {
	p, err := jobgraph.ParsePlan([]byte(temporalSortPlan(rowProctime, `{"index": 1}`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := p.Nodes[1]; len(n.Operators) != 0 || len(n.Notes) != 1 || !strings.Contains(n.Notes[0], "no operator") {
		t.Errorf("node %+v", n)
	}
}

// TestPlanVirtualTransformations: exchange and partitioner have uids but
// never become operators; the job leaves them out.
func TestPlanVirtualTransformations(t *testing.T) {
	plan := testPlan("1.19", []testNode{
		{1, "stream-exec-table-source-scan_1", rowA}, {2, "stream-exec-exchange_1", rowA},
		{3, "stream-exec-lookup-join_1", `"requireUpsertMaterialize": true`},
	})
	p, err := jobgraph.ParsePlan([]byte(plan), nil)
	if err != nil {
		t.Fatal(err)
	}
	ex := p.Nodes[1].Operators
	if len(ex) != 1 || !ex[0].Virtual || ex[0].UID != "2_exchange" {
		t.Errorf("exchange %+v", ex)
	}
	lj := p.Nodes[2].Operators
	if len(lj) != 2 || !lj[0].Virtual || lj[0].UID != "3_partitioner" || lj[1].Virtual {
		t.Errorf("lookup join %+v", lj)
	}
	j := &jobgraph.Job{}
	j.AddPlan(p)
	for _, uid := range []string{"2_exchange", "3_partitioner", "1_partitioner"} {
		if j.Has(jobgraph.OperatorID(uid)) {
			t.Errorf("job has virtual %s", uid)
		}
	}
	if !j.Has(jobgraph.OperatorID("3_lookup-join-materialize")) {
		t.Error("job lacks 3_lookup-join-materialize")
	}
}
