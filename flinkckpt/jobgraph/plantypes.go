package jobgraph

import (
	"encoding/json"
	"strconv"
	"strings"
)

// logicalType is what the uid rules need to know of a Flink logical type
// written in a compiled plan: the planner decides some transformations by
// the types of a node's input (a rowtime attribute) or of a sink's columns
// (NOT NULL, CHAR lengths). A plan writes a type either as its serializable
// string ("VARCHAR(5) NOT NULL", "TIMESTAMP(3) *ROWTIME*",
// "ROW<`a` INT, `b` BIGINT>") or, when it has none, as a JSON object
// ({"type": "TIMESTAMP_WITHOUT_TIME_ZONE", "precision": 3, "kind":
// "ROWTIME"}).
type logicalType struct {
	// Root is the type root as written: "INT", "VARCHAR", "ROW",
	// "TIMESTAMP" (string form) or "TIMESTAMP_WITHOUT_TIME_ZONE" (object
	// form).
	Root string
	// Length of CHAR, VARCHAR, BINARY and VARBINARY; -1 otherwise or when
	// not written.
	Length int
	// NotNull is a top-level NOT NULL.
	NotNull bool
	// NestedNotNull is a NOT NULL below the top level (a ROW field, an
	// ARRAY element).
	NestedNotNull bool
	// Rowtime and Proctime mark time attributes.
	Rowtime, Proctime bool
}

// maxTypeLength is CharType.MAX_LENGTH and BinaryType.MAX_LENGTH.
const maxTypeLength = 2147483647

// lengthConstrained reports whether a sink column of this type gets a
// length enforcer with table.exec.sink.type-length-enforcer=TRIM_PAD
// (CommonExecSink.getFieldInfoForLengthEnforcer: every CHAR and BINARY, a
// VARCHAR or VARBINARY shorter than the maximum).
func (t logicalType) lengthConstrained() bool {
	switch t.Root {
	case "CHAR", "BINARY":
		return true
	case "VARCHAR", "VARBINARY":
		return t.Length >= 0 && t.Length < maxTypeLength
	}
	return false
}

// parseLogicalType reads a type in either form; ok is false when it is
// neither.
func parseLogicalType(raw json.RawMessage) (logicalType, bool) {
	return parseTypeDepth(raw, 0)
}

const maxTypeDepth = 32

func parseTypeDepth(raw json.RawMessage, depth int) (logicalType, bool) {
	if depth > maxTypeDepth {
		return logicalType{}, false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return parseTypeString(s)
	}
	var o struct {
		Type        string            `json:"type"`
		Nullable    *bool             `json:"nullable"`
		Length      *int              `json:"length"`
		Kind        string            `json:"kind"`
		Fields      []json.RawMessage `json:"fields"`
		ElementType json.RawMessage   `json:"elementType"`
		KeyType     json.RawMessage   `json:"keyType"`
		ValueType   json.RawMessage   `json:"valueType"`
	}
	if err := json.Unmarshal(raw, &o); err != nil || o.Type == "" {
		return logicalType{}, false
	}
	t := logicalType{Root: o.Type, Length: -1, NotNull: o.Nullable != nil && !*o.Nullable,
		Rowtime: o.Kind == "ROWTIME", Proctime: o.Kind == "PROCTIME"}
	if o.Length != nil {
		t.Length = *o.Length
	}
	var nested []json.RawMessage
	for _, f := range o.Fields {
		var field struct {
			FieldType json.RawMessage `json:"fieldType"`
		}
		if json.Unmarshal(f, &field) != nil || field.FieldType == nil {
			return logicalType{}, false
		}
		nested = append(nested, field.FieldType)
	}
	for _, n := range []json.RawMessage{o.ElementType, o.KeyType, o.ValueType} {
		if n != nil {
			nested = append(nested, n)
		}
	}
	for _, n := range nested {
		nt, ok := parseTypeDepth(n, depth+1)
		if !ok {
			return logicalType{}, false
		}
		t.NestedNotNull = t.NestedNotNull || nt.NotNull || nt.NestedNotNull
	}
	return t, true
}

// parseTypeString reads the string form. Only the top level is parsed; a
// NOT NULL anywhere below it sets NestedNotNull.
func parseTypeString(s string) (logicalType, bool) {
	s = strings.TrimSpace(s)
	t := logicalType{Length: -1}
	switch {
	case strings.HasSuffix(s, "*ROWTIME*"):
		t.Rowtime, s = true, strings.TrimSpace(strings.TrimSuffix(s, "*ROWTIME*"))
	case strings.HasSuffix(s, "*PROCTIME*"):
		t.Proctime, s = true, strings.TrimSpace(strings.TrimSuffix(s, "*PROCTIME*"))
	}
	if strings.HasSuffix(s, " NOT NULL") {
		t.NotNull, s = true, strings.TrimSuffix(s, " NOT NULL")
	}
	end := strings.IndexAny(s, "(< ")
	if end < 0 {
		end = len(s)
	}
	t.Root = s[:end]
	if t.Root == "" {
		return logicalType{}, false
	}
	for _, r := range t.Root {
		if (r < 'A' || r > 'Z') && r != '_' {
			return logicalType{}, false
		}
	}
	switch t.Root {
	case "STRING":
		t.Root, t.Length = "VARCHAR", maxTypeLength
	case "BYTES":
		t.Root, t.Length = "VARBINARY", maxTypeLength
	case "CHAR", "VARCHAR", "BINARY", "VARBINARY":
		if rest := s[end:]; strings.HasPrefix(rest, "(") {
			if close := strings.IndexByte(rest, ')'); close > 0 {
				if n, err := strconv.Atoi(rest[1:close]); err == nil {
					t.Length = n
				}
			}
		} else if t.Root == "CHAR" || t.Root == "BINARY" {
			t.Length = 1 // CHAR and BINARY without a length are of length 1
		}
	}
	t.NestedNotNull = strings.Contains(s[end:], "NOT NULL")
	return t, true
}

// rowFields returns the top-level field types of a ROW type in either
// form; ok is false when raw is not a ROW type this reader understands.
func rowFields(raw json.RawMessage) ([]logicalType, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return rowFieldsString(s)
	}
	var o struct {
		Type   string `json:"type"`
		Fields []struct {
			FieldType json.RawMessage `json:"fieldType"`
		} `json:"fields"`
	}
	if err := json.Unmarshal(raw, &o); err != nil || o.Type != "ROW" {
		return nil, false
	}
	out := make([]logicalType, 0, len(o.Fields))
	for _, f := range o.Fields {
		t, ok := parseLogicalType(f.FieldType)
		if !ok {
			return nil, false
		}
		out = append(out, t)
	}
	return out, true
}

// rowFieldsString splits "ROW<`a` INT, `b` TIMESTAMP(3) *ROWTIME*>" (maybe
// followed by NOT NULL) into its fields' types. Field names are backquoted
// (a backquote doubled inside), descriptions single-quoted (a quote doubled
// inside); commas split fields only outside both and outside <> and ().
func rowFieldsString(s string) ([]logicalType, bool) {
	s = strings.TrimSuffix(strings.TrimSpace(s), " NOT NULL")
	if !strings.HasPrefix(s, "ROW<") || !strings.HasSuffix(s, ">") {
		return nil, false
	}
	inner := s[len("ROW<") : len(s)-1]
	var out []logicalType
	if strings.TrimSpace(inner) == "" {
		return out, true
	}
	depth, start := 0, 0
	typeEnd := -1 // where a field's description starts
	fieldStart := true
	nameEnd := -1
	for i := 0; i < len(inner); i++ {
		switch c := inner[i]; c {
		case '`', '\'':
			j := i + 1
			for ; j < len(inner); j++ {
				if inner[j] == c {
					if j+1 < len(inner) && inner[j+1] == c {
						j++
						continue
					}
					break
				}
			}
			if j >= len(inner) {
				return nil, false
			}
			if depth == 0 {
				if c == '`' && fieldStart {
					nameEnd = j + 1
				} else if c == '\'' && typeEnd < 0 {
					typeEnd = i
				}
			}
			fieldStart = false
			i = j
		case '<', '(':
			depth++
			fieldStart = false
		case '>', ')':
			depth--
			if depth < 0 {
				return nil, false
			}
		case ',':
			if depth == 0 {
				t, ok := rowField(inner[start:i], nameEnd-start, typeEnd-start, typeEnd >= 0)
				if !ok {
					return nil, false
				}
				out = append(out, t)
				start, typeEnd, nameEnd, fieldStart = i+1, -1, -1, true
			}
		case ' ':
		default:
			fieldStart = false
		}
	}
	if depth != 0 {
		return nil, false
	}
	t, ok := rowField(inner[start:], nameEnd-start, typeEnd-start, typeEnd >= 0)
	if !ok {
		return nil, false
	}
	return append(out, t), true
}

// rowField parses one "`name` TYPE 'description'" of a ROW string; nameEnd
// and descStart are offsets into f.
func rowField(f string, nameEnd, descStart int, hasDesc bool) (logicalType, bool) {
	if nameEnd <= 0 || nameEnd > len(f) {
		return logicalType{}, false
	}
	typ := f[nameEnd:]
	if hasDesc {
		if descStart < nameEnd || descStart > len(f) {
			return logicalType{}, false
		}
		typ = f[nameEnd:descStart]
	}
	return parseTypeString(typ)
}
