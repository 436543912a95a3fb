package paimon_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// TestBadConsumerFiles: every unusable consumer file gives an ErrCorrupt
// error naming its key; transient states are read again first.
func TestBadConsumerFiles(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		reads   int // reads of the consumer file
		msg     string
	}{
		{"Empty", "", 3, "empty consumer file"},
		{"WhiteSpaceOnly", " \n", 3, "empty consumer file"},
		{"HalfWritten", "{\n  \"nextSnap", 3, "half-written consumer JSON"},
		{"HalfWrittenNumber", "{\n  \"nextSnapshot\" : 4", 3, "half-written consumer JSON"},
		{"Negative", `{"nextSnapshot": -3}`, 1, `"nextSnapshot" -3 is not a positive snapshot id: Paimon reads it as a consumer at snapshot 0 or below, which stops snapshot expiry`},
		{"Zero", `{"nextSnapshot": 0}`, 1, "not a positive snapshot id: Paimon reads it as a consumer at snapshot 0"},
		{"Missing", `{"next": 3}`, 1, `no "nextSnapshot": Paimon reads it as a consumer at snapshot 0`},
		{"Null", `{"nextSnapshot": null}`, 1, `no "nextSnapshot": Paimon reads it as a consumer at snapshot 0`},
		{"FileblobSidecar", `{"user.cache_control":"","user.content_type":"application/octet-stream","md5":"1B2M2Y8AsgTpgAmY7PhCfg=="}`, 1, "(a gocloud fileblob consumer-<id>.attrs sidecar is such a file)"},
		{"String", `{"nextSnapshot": "3"}`, 1, "is not an integer id"},
		{"Fraction", `{"nextSnapshot": 3.5}`, 1, "is not an integer id"},
		{"Overflow", `{"nextSnapshot": 99999999999999999999}`, 1, "is not an integer id"},
		{"NotAnObject", `[1]`, 1, "consumer JSON"},
		{"TrailingGarbage", `{"nextSnapshot": 3} x`, 3, "half-written consumer JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, tb := newTable(t, 3, nil)
			tb.WriteFile("consumer/consumer-job", []byte(tc.content))
			wb, rec := blobtest.Wrap(b, nil)
			tbl := openTable(t, wb, tb.Path(), nil)
			_, err := tbl.Consumer(bg, "job")
			key := tb.Key("consumer/consumer-job")
			if !errors.Is(err, paimon.ErrCorrupt) || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Consumer error = %v; want ErrCorrupt naming %s and %q", err, key, tc.msg)
			}
			if got := rec.Count(blobtest.OpRead); got != tc.reads {
				t.Errorf("%d reads, want %d", got, tc.reads)
			}
			// The resolver reports the same error.
			r, _ := paimon.NewResolver(tbl, "job", nil)
			if _, err := r.Resolve(bg); !errors.Is(err, paimon.ErrCorrupt) {
				t.Errorf("Resolve error = %v", err)
			}
		})
	}
}

// TestEmptyConsumerFileThenWritten: Paimon rewrites consumer files in place;
// a reader that sees the empty file first reads again and succeeds.
func TestEmptyConsumerFileThenWritten(t *testing.T) {
	b, tb := newTable(t, 3, nil)
	tb.Consumer("job", 2)
	wb, rec := blobtest.Wrap(b, &blobtest.Options{Transform: func(c blobtest.Call, data []byte) []byte {
		if strings.HasSuffix(c.Key, "consumer-job") && c.N <= 2 {
			return data[:c.N-1] // "" then "{"
		}
		return data
	}})
	tbl := openTable(t, wb, tb.Path(), nil)
	c, err := tbl.Consumer(bg, "job")
	if err != nil || c.NextSnapshot != 2 {
		t.Fatalf("Consumer = %+v, %v", c, err)
	}
	if got := rec.Count(blobtest.OpRead); got != 3 {
		t.Errorf("%d reads, want 3", got)
	}
}

func TestBadSnapshotFiles(t *testing.T) {
	for _, tc := range []struct {
		name, content, msg string
	}{
		{"NoID", `{"version":3,"schemaId":0,"timeMillis":5}`, `no "id"`},
		{"NoTime", `{"version":3,"id":2,"schemaId":0}`, `no "timeMillis"`},
		{"NoSchema", `{"version":3,"id":2,"timeMillis":5}`, `no "schemaId"`},
		{"WrongID", `{"version":3,"id":7,"schemaId":0,"timeMillis":5}`, `holds "id" 7`},
		{"Truncated", `{"version":3,"id":2,`, "snapshot JSON"},
		{"Empty", ``, "empty snapshot file"},
		{"StringTime", `{"id":2,"schemaId":0,"timeMillis":"5"}`, "snapshot JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, tb := newTable(t, 3, nil)
			tb.WriteFile("snapshot/snapshot-2", []byte(tc.content))
			tbl := openTable(t, b, tb.Path(), nil)
			_, err := tbl.Snapshot(bg, 2)
			key := tb.Key("snapshot/snapshot-2")
			if !errors.Is(err, paimon.ErrCorrupt) || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Snapshot error = %v; want ErrCorrupt naming %s and %q", err, key, tc.msg)
			}
			// A resolve that needs snapshot-2 fails with the same error.
			tb.Consumer("job", 3)
			r, _ := paimon.NewResolver(tbl, "job", nil)
			if _, err := r.Resolve(bg); !errors.Is(err, paimon.ErrCorrupt) || !strings.Contains(err.Error(), key) {
				t.Errorf("Resolve error = %v", err)
			}
		})
	}
}

// TestHints: stale, garbage and missing hints fall back to a listing, which
// ignores names that are not snapshot-<number>.
func TestHints(t *testing.T) {
	for _, tc := range []struct {
		name             string
		earliest, latest *string // nil: leave; "-": delete
	}{
		{"Correct", nil, nil},
		{"LatestStale", nil, ptr("7")},
		{"LatestTooHigh", nil, ptr("0")},
		{"LatestGarbage", nil, ptr("x12")},
		{"LatestWithNewline", nil, ptr("10\n")},
		{"LatestEmpty", nil, ptr("")},
		{"LatestNegative", nil, ptr("-4")},
		{"LatestMissing", nil, ptr("-")},
		{"EarliestStale", ptr("1"), nil},
		{"EarliestGarbage", ptr("three"), nil},
		{"EarliestMissing", ptr("-"), nil},
		{"BothMissing", ptr("-"), ptr("-")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, tb := newTable(t, 10, nil)
			tb.ExpireBefore(3)
			tb.WriteFile("snapshot/snapshot-x", []byte("not a snapshot"))
			tb.WriteFile("snapshot/snapshot-", []byte("nothing"))
			tb.WriteFile("snapshot/snapshot-12a", []byte("nothing"))
			tb.WriteFile("snapshot/snapshot-0x", []byte("nothing"))
			for name, v := range map[string]*string{"EARLIEST": tc.earliest, "LATEST": tc.latest} {
				switch {
				case v == nil:
				case *v == "-":
					tb.DeleteHint(name)
				default:
					tb.SetHint(name, *v)
				}
			}
			tbl := openTable(t, b, tb.Path(), nil)
			e, err1 := tbl.EarliestSnapshotID(bg)
			l, err2 := tbl.LatestSnapshotID(bg)
			if err1 != nil || err2 != nil || e != 3 || l != 10 {
				t.Errorf("earliest %d %v, latest %d %v; want 3 and 10", e, err1, l, err2)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestParseHint(t *testing.T) {
	for in, want := range map[string]int64{"1": 1, "42": 42, "4611686018427387904": 1 << 62} {
		if got, err := paimon.ParseHint("k", []byte(in)); err != nil || got != want {
			t.Errorf("ParseHint(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "x", " 1", "1\n", "1.0", "99999999999999999999", strings.Repeat("1", 100), "4611686018427387905", "9223372036854775807"} {
		if _, err := paimon.ParseHint("snapshot/LATEST", []byte(in)); !errors.Is(err, paimon.ErrCorrupt) || !strings.Contains(err.Error(), "snapshot/LATEST") {
			t.Errorf("ParseHint(%q) error = %v", in, err)
		}
	}
}

func TestEmptyTable(t *testing.T) {
	b, tb := newTable(t, 0, nil)
	tbl := openTable(t, b, tb.Path(), nil)
	if _, err := tbl.LatestSnapshot(bg); !errors.Is(err, paimon.ErrSnapshotNotFound) {
		t.Errorf("LatestSnapshot error = %v", err)
	}
	if _, err := tbl.EarliestSnapshot(bg); !errors.Is(err, paimon.ErrSnapshotNotFound) {
		t.Errorf("EarliestSnapshot error = %v", err)
	}
	tb.Consumer("job", 3)
	r, _ := paimon.NewResolver(tbl, "job", nil)
	if _, err := r.Resolve(bg); err == nil || !strings.Contains(err.Error(), "recreated") {
		t.Errorf("consumer on empty table: %v", err)
	}
}

// TestHostileConsumerIDs: ids that could escape the consumer folder are
// refused before any storage call, by every method that takes one.
func TestHostileConsumerIDs(t *testing.T) {
	b, tb := newTable(t, 3, nil)
	wb, rec := blobtest.Wrap(b, nil)
	tbl := openTable(t, wb, tb.Path(), nil)
	for _, id := range []string{"", "..", "../x", "a/../../b", "a/b", `a\b`, "/abs", "a\x00b", "a\nb", "a\x7fb", " a", "a ", "\xff\xfe", strings.Repeat("a", 256)} {
		for name, call := range map[string]func() error{
			"Consumer":        func() error { _, err := tbl.Consumer(bg, id); return err },
			"ResetConsumer":   func() error { _, err := tbl.ResetConsumer(bg, id, 1, nil); return err },
			"PlanReset":       func() error { _, err := tbl.PlanResetConsumer(bg, id, 1); return err },
			"DeleteConsumer":  func() error { return tbl.DeleteConsumer(bg, id) },
			"NewResolver":     func() error { _, err := paimon.NewResolver(tbl, id, nil); return err },
			"NewTable/branch": func() error { _, err := paimon.NewTable(wb, "t", &paimon.TableOptions{Branch: id}); return err },
		} {
			if name == "NewTable/branch" && id == "" {
				continue // the main branch
			}
			if err := call(); !errors.Is(err, paimon.ErrInvalidID) {
				t.Errorf("%s(%q) error = %v, want ErrInvalidID", name, id, err)
			}
		}
	}
	if rec.Total() != 0 {
		t.Errorf("storage calls made: %s", rec)
	}
	for _, ok := range []string{"job", "job-1", "my.consumer", "ünïcode", "a.b.c"} {
		if err := paimon.ValidateID("consumer", ok); err != nil {
			t.Errorf("ValidateID(%q) = %v", ok, err)
		}
	}
}

// TestOversizedFiles: files larger than MaxFileSize are refused before
// their content is read, with bounded memory.
func TestOversizedFiles(t *testing.T) {
	b, tb := newTable(t, 3, nil)
	big := []byte(`{"nextSnapshot": 1, "pad": "` + strings.Repeat("x", 32<<20) + `"}`)
	tb.WriteFile("consumer/consumer-job", big)
	tb.WriteFile("snapshot/snapshot-2", big)
	tb.WriteFile("snapshot/LATEST", big)
	big = nil
	tbl := openTable(t, b, tb.Path(), &paimon.TableOptions{MaxFileSize: 64 << 10, ConsumerRetryInterval: -1, HintRetryInterval: -1})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, errC := tbl.Consumer(bg, "job")
	_, errS := tbl.Snapshot(bg, 2)
	l, errL := tbl.LatestSnapshotID(bg) // the hint is unusable: listing
	runtime.ReadMemStats(&after)
	for _, tc := range []struct {
		err error
		key string
	}{{errC, "consumer/consumer-job"}, {errS, "snapshot/snapshot-2"}} {
		if !errors.Is(tc.err, paimon.ErrCorrupt) || !strings.Contains(tc.err.Error(), tc.key) || !strings.Contains(tc.err.Error(), "limit") {
			t.Errorf("error = %v, want ErrCorrupt naming %s", tc.err, tc.key)
		}
	}
	if errL != nil || l != 3 {
		t.Errorf("LatestSnapshotID = %d, %v", l, errL)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("allocated %d bytes reading three 32 MiB files with a 64 KiB limit", alloc)
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]string{"1 d": "24h0m0s", "7d": "168h0m0s", "12 h": "12h0m0s", "30 min": "30m0s", "90s": "1m30s", "500 ms": "500ms", "1000": "1s", "2 hours": "2h0m0s"} {
		got, err := paimon.ParseDuration(in)
		if err != nil || got.String() != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "1 fortnight", "-1 d", "99999999999999 d"} {
		if _, err := paimon.ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) succeeded", in)
		}
	}
}
