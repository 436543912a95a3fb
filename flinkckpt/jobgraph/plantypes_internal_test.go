package jobgraph

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTypeString(t *testing.T) {
	for in, want := range map[string]logicalType{
		"INT":                             {Root: "INT", Length: -1},
		"BIGINT NOT NULL":                 {Root: "BIGINT", Length: -1, NotNull: true},
		"VARCHAR(2147483647)":             {Root: "VARCHAR", Length: maxTypeLength},
		"STRING NOT NULL":                 {Root: "VARCHAR", Length: maxTypeLength, NotNull: true},
		"CHAR(4) NOT NULL":                {Root: "CHAR", Length: 4, NotNull: true},
		"CHAR":                            {Root: "CHAR", Length: 1},
		"BYTES":                           {Root: "VARBINARY", Length: maxTypeLength},
		"TIMESTAMP(3) *ROWTIME*":          {Root: "TIMESTAMP", Length: -1, Rowtime: true},
		"TIMESTAMP_LTZ(3) *PROCTIME*":     {Root: "TIMESTAMP_LTZ", Length: -1, Proctime: true},
		"TIMESTAMP(3) NOT NULL *ROWTIME*": {Root: "TIMESTAMP", Length: -1, NotNull: true, Rowtime: true},
		"ARRAY<INT NOT NULL>":             {Root: "ARRAY", Length: -1, NestedNotNull: true},
		"ROW<`a` INT NOT NULL> NOT NULL":  {Root: "ROW", Length: -1, NotNull: true, NestedNotNull: true},
	} {
		got, ok := parseTypeString(in)
		if !ok {
			t.Errorf("%q: not parsed", in)
			continue
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(logicalType{})); diff != "" {
			t.Errorf("%q (-want +got):\n%s", in, diff)
		}
	}
	for _, bad := range []string{"", "int", "(5)", "<INT>"} {
		if _, ok := parseTypeString(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestRowFields(t *testing.T) {
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	for _, tc := range []struct {
		in      json.RawMessage
		rowtime []bool
		ok      bool
	}{
		{str("ROW<`a` INT, `ts` TIMESTAMP(3) *ROWTIME*>"), []bool{false, true}, true},
		{str("ROW<`a, b` INT 'a comment, with commas', `c``d` ROW<`x` INT, `y` INT>, `ts` TIMESTAMP(3) *ROWTIME* 'it''s time'> NOT NULL"), []bool{false, false, true}, true},
		{str("ROW<>"), nil, true},
		{json.RawMessage(`{"type": "ROW", "fields": [{"name": "a", "fieldType": "INT"}, {"name": "t", "fieldType": {"type": "TIMESTAMP_WITHOUT_TIME_ZONE", "kind": "ROWTIME"}}]}`), []bool{false, true}, true},
		{str("INT"), nil, false},
		{str("ROW<`a` INT"), nil, false},
		{str("ROW<`a INT>"), nil, false},
		{str("ROW<INT>"), nil, false},
		{str("ROW<`a` INT>>"), nil, false},
		{json.RawMessage(`{"type": "ARRAY"}`), nil, false},
		{json.RawMessage(`[1]`), nil, false},
		{nil, nil, false},
	} {
		fields, ok := rowFields(tc.in)
		if ok != tc.ok {
			t.Errorf("%s: ok %v", tc.in, ok)
			continue
		}
		var rowtime []bool
		for _, f := range fields {
			rowtime = append(rowtime, f.Rowtime)
		}
		if !cmp.Equal(tc.rowtime, rowtime) {
			t.Errorf("%s: rowtime %v, want %v", tc.in, rowtime, tc.rowtime)
		}
	}
}
