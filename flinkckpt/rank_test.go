package flinkckpt

import (
	"testing"
	"time"
)

// The order of snapshots is a pure function of four values; these cases pin
// it at every boundary with literal values (litestream's habit: the choice
// is tested where it turns). Each pair is checked both ways, so a case also
// proves the order is strict and total there.
func TestRanksAboveTotalOrder(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 11, 41, 0, 0, time.UTC)
	chk := func(eff time.Time, id int64, key string) rankKey { return rankKey{false, eff, id, key} }
	sp := func(eff time.Time, id int64, key string) rankKey { return rankKey{true, eff, id, key} }
	for _, c := range []struct {
		name   string
		intent Intent
		hi, lo rankKey
	}{
		{"later effective time wins over a higher id", IntentRestart, chk(t0.Add(time.Millisecond), 1, "b"), chk(t0, 99, "a")},
		{"one nanosecond later still wins", IntentRestart, chk(t0.Add(time.Nanosecond), 1, "z"), chk(t0, 2, "a")},
		{"equal times: the higher id", IntentRestart, chk(t0, 42, "z"), chk(t0, 41, "a")},
		{"equal times and ids: the smaller key", IntentRestart, chk(t0, 41, "a/chk-41"), chk(t0, 41, "b/chk-41")},
		{"restart: a newer checkpoint over an older savepoint", IntentRestart, chk(t0.Add(time.Second), 41, "ck"), sp(t0, 12, "sp")},
		{"restart: a newer savepoint over an older checkpoint", IntentRestart, sp(t0.Add(time.Second), 12, "sp"), chk(t0, 41, "ck")},
		{"upgrade: an older savepoint over a newer checkpoint", IntentUpgrade, sp(t0, 12, "sp"), chk(t0.Add(time.Hour), 41, "ck")},
		{"upgrade: between savepoints, the later time", IntentUpgrade, sp(t0.Add(time.Second), 1, "b"), sp(t0, 2, "a")},
		{"upgrade: between checkpoints, the later time", IntentUpgrade, chk(t0.Add(time.Second), 1, "b"), chk(t0, 2, "a")},
	} {
		if !ranksAbove(c.hi, c.lo, c.intent) {
			t.Errorf("%s: %+v does not rank above %+v", c.name, c.hi, c.lo)
		}
		if ranksAbove(c.lo, c.hi, c.intent) {
			t.Errorf("%s: %+v also ranks above %+v (not strict)", c.name, c.lo, c.hi)
		}
	}
	// Irreflexive: nothing ranks above itself, so pick is deterministic.
	k := chk(t0, 41, "a")
	if ranksAbove(k, k, IntentRestart) || ranksAbove(k, k, IntentUpgrade) {
		t.Error("a snapshot ranks above itself")
	}
}

// pick takes the head that ranks above all others, whatever their order in
// the slice.
func TestPickIgnoresInputOrder(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 11, 0, 0, 0, time.UTC)
	mk := func(id int64, eff time.Time, savepoint bool, key string) *snap {
		return &snap{id: id, eff: eff, savepoint: savepoint, key: key}
	}
	a := mk(40, t0, false, "ck/j/chk-40")
	b := mk(41, t0, false, "ck/j/chk-41")                   // same time, higher id: the restart choice
	c := mk(12, t0.Add(-time.Hour), true, "sp/savepoint-1") // the only savepoint: the upgrade choice
	for _, heads := range [][]*snap{{a, b, c}, {c, b, a}, {b, c, a}} {
		if got := pick(heads, IntentRestart); got != b {
			t.Errorf("restart picked %s, want %s", got.key, b.key)
		}
		if got := pick(heads, IntentUpgrade); got != c {
			t.Errorf("upgrade picked %s, want %s", got.key, c.key)
		}
	}
	if pick(nil, IntentRestart) != nil {
		t.Error("pick of no heads is not nil")
	}
}
