package specificoffsets

import (
	"maps"
	"strings"
	"testing"
)

type po struct {
	p int32
	o int64
}

func at(x po) (int32, int64) { return x.p, x.o }

func TestFormatAndParse(t *testing.T) {
	in := []po{{0, 42}, {1, 300}, {7, 0}}
	s := Format(in, at)
	if s != "partition:0,offset:42;partition:1,offset:300;partition:7,offset:0" {
		t.Fatalf("Format = %q", s)
	}
	if Format([]po(nil), at) != "" {
		t.Error("Format of nothing is not empty")
	}
	got, err := Parse(s + ";")
	if err != nil || !maps.Equal(got, map[int32]int64{0: 42, 1: 300, 7: 0}) {
		t.Errorf("Parse(%q) = %v, %v", s, got, err)
	}
	for in, want := range map[string]string{
		"":                      "empty",
		"partition:0":           "want partition:<n>,offset:<n>",
		"partition:-1,offset:1": "bad partition",
		"partition:0,offset:-1": "bad offset",
		"partition:0,offset:1;partition:0,offset:2": "given twice",
		"partition:99999999999,offset:1":            "bad partition",
	} {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", in, err, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("partition:0,offset:42;partition:1,offset:300")
	f.Add("partition:0,offset:1;")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := Parse(s)
		if err != nil {
			return
		}
		type e struct {
			p int32
			o int64
		}
		var es []e
		for p, o := range m {
			es = append(es, e{p, o})
		}
		back, err := Parse(Format(es, func(x e) (int32, int64) { return x.p, x.o }))
		if err != nil || !maps.Equal(back, m) {
			t.Errorf("Parse(%q) = %v does not read back: %v %v", s, m, back, err)
		}
	})
}
