package version

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Version{
		"1.20": {1, 20}, "1.19.1": {1, 19}, "v1.20": {1, 20}, " 1.20-SNAPSHOT ": {1, 20},
		"0.8": {0, 8}, "1.4.1+build": {1, 4}, "2.0": {2, 0}, "1.5 beta": {1, 5},
	} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1", "1.", ".1", "1.2.3.4", "a.b", "0.0", "1.-2", "12345.1", "1..2", "-1.20"} {
		if got, err := Parse(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) = %v, %v; want ErrSyntax", in, got, err)
		}
	}
}

func TestOrder(t *testing.T) {
	v := Version{1, 15}
	if !v.AtLeast(1, 15) || v.AtLeast(1, 16) || !v.Less(2, 0) || v.Less(1, 14) || !v.AtLeast(0, 99) {
		t.Errorf("order of %v", v)
	}
	if (Version{}).Known() || !v.Known() || v.String() != "1.15" {
		t.Errorf("Known/String of %v", v)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"1.20", "v1.19.1-SNAPSHOT", "0.8", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			if v != (Version{}) {
				t.Errorf("Parse(%q) failed but returned %v", s, v)
			}
			return
		}
		if v2, err := Parse(v.String()); err != nil || v2 != v {
			t.Errorf("Parse(%q) = %v, whose String does not read back: %v %v", s, v, v2, err)
		}
	})
}

func TestParseFlink(t *testing.T) {
	if v, err := ParseFlink("v1.20-SNAPSHOT"); err != nil || v != (Version{1, 20}) {
		t.Errorf("ParseFlink: %v %v", v, err)
	}
	if _, err := ParseFlink("0.9"); err == nil || err.Error() != `Flink version "0.9": want MAJOR.MINOR such as 1.20` {
		t.Errorf("ParseFlink(0.9): %v", err)
	}
}
