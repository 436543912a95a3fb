package paimon_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
)

// TestMaxInt64SnapshotID: a table whose LATEST hint and newest snapshot
// file say 9223372036854775807 (where id+1 wraps) is reported as corrupt,
// naming the file — never a loop, never "the table was recreated".
func TestMaxInt64SnapshotID(t *testing.T) {
	huge := fmt.Sprint(int64(math.MaxInt64))
	b, tb := newTable(t, 3, nil)
	tb.Consumer("job", 4)
	tb.WriteFile("snapshot/snapshot-"+huge, paimontest.SnapshotJSON(math.MaxInt64, 0, t0, "writer"))
	tb.SetHint("LATEST", huge)
	tbl := openTable(t, b, tb.Path(), nil)
	if _, err := tbl.LatestSnapshotID(bg); !errors.Is(err, paimon.ErrCorrupt) || !strings.Contains(err.Error(), "snapshot-"+huge) || !strings.Contains(err.Error(), "above 2^62") {
		t.Errorf("LatestSnapshotID: %v", err)
	}
	r, _ := paimon.NewResolver(tbl, "job", nil)
	_, err := r.Resolve(bg)
	if !errors.Is(err, paimon.ErrCorrupt) || strings.Contains(err.Error(), "recreated") {
		t.Errorf("Resolve: %v", err)
	}
	// The file alone, without the hint.
	tb.SetHint("LATEST", "3")
	if _, err := paimon.ParseSnapshot("k", paimontest.SnapshotJSON(math.MaxInt64, 0, t0, "w")); !errors.Is(err, paimon.ErrCorrupt) {
		t.Errorf("ParseSnapshot(id MaxInt64): %v", err)
	}
	if _, err := paimon.ParseConsumer("k", []byte(`{"nextSnapshot":`+huge+`}`)); !errors.Is(err, paimon.ErrCorrupt) {
		t.Errorf("ParseConsumer(MaxInt64): %v", err)
	}
	if ids, err := tbl.SnapshotIDs(bg); !errors.Is(err, paimon.ErrCorrupt) {
		t.Errorf("SnapshotIDs = %v, %v", ids, err)
	}
}

// TestIDLookalikes: every invisible, direction-changing or look-alike
// character is refused in a consumer id, with a short message naming its
// code point.
func TestIDLookalikes(t *testing.T) {
	for name, r := range map[string]rune{
		"zero-width space":          '\u200b',
		"zero-width non-joiner":     '\u200c',
		"zero-width joiner":         '\u200d',
		"word joiner":               '\u2060',
		"byte order mark":           '\ufeff',
		"left-to-right mark":        '\u200e',
		"right-to-left mark":        '\u200f',
		"right-to-left override":    '\u202e',
		"left-to-right embedding":   '\u202a',
		"first strong isolate":      '\u2068',
		"arabic letter mark":        '\u061c',
		"soft hyphen":               '\u00ad',
		"division slash":            '\u2215',
		"fraction slash":            '\u2044',
		"fullwidth solidus":         '\uff0f',
		"big solidus":               '\u29f8',
		"fullwidth reverse solidus": '\uff3c',
		"set minus":                 '\u2216',
		"one dot leader":            '\u2024',
		"two dot leader":            '\u2025',
		"fullwidth full stop":       '\uff0e',
		"small full stop":           '\ufe52',
		"horizontal ellipsis":       '\u2026',
		"big reverse solidus":       '\u29f9',
		"box drawings diagonal":     '\u2571',
		"solidus overlay":           '\u0338',
		"short solidus overlay":     '\u0337',
		"reverse solidus overlay":   '\u20e5',
		"grapheme joiner":           '\u034f',
		"hangul filler":             '\u3164',
		"hangul choseong filler":    '\u115f',
		"hangul jungseong filler":   '\u1160',
		"halfwidth hangul filler":   '\uffa0',
		"braille blank":             '\u2800',
		"variation selector 16":     '\ufe0f',
		"variation selector 17":     '\U000e0100',
		"tag space":                 '\U000e0020',
		"mongolian vowel separator": '\u180e',
		"function application":      '\u2061',
		"invisible separator":       '\u2063',
	} {
		id := "orders" + string(r) + "job"
		err := paimon.ValidateID("consumer", id)
		if !errors.Is(err, paimon.ErrInvalidID) || !strings.Contains(err.Error(), fmt.Sprintf("U+%04X", r)) {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, ok := range []string{"orders-job", "订单作业", "Ölstand_1", "a.b.c"} {
		if err := paimon.ValidateID("consumer", ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	huge := strings.Repeat("x", 1<<20)
	if err := paimon.ValidateID("consumer", huge); err == nil || len(err.Error()) > 200 {
		t.Errorf("a 1 MiB id: error of %d bytes", len(fmt.Sprint(err)))
	}
}

// TestStoredIDsAreListedCallerIDsRefused: ValidateID is for ids a caller
// gives; a consumer file found in storage whose id it would refuse (a
// terminal escape) is listed and read by Consumers, as Paimon lists it,
// while asking for that id by name is refused before any read.
func TestStoredIDsAreListedCallerIDsRefused(t *testing.T) {
	const evil = "ev\x1b[31mil"
	b, tb := newTable(t, 3, nil)
	tb.Consumer("job", 2)
	tb.WriteFile("consumer/consumer-"+evil, []byte(`{"nextSnapshot":3}`))
	tbl := openTable(t, b, tb.Path(), nil)
	cs, err := tbl.Consumers(bg)
	if err != nil || len(cs) != 2 || cs[0].ID != evil || cs[0].NextSnapshot != 3 || cs[1].ID != "job" {
		t.Errorf("Consumers = %+v, %v", cs, err)
	}
	if _, err := tbl.Consumer(bg, evil); !errors.Is(err, paimon.ErrInvalidID) {
		t.Errorf("Consumer(%q): %v, want ErrInvalidID", evil, err)
	}
}
