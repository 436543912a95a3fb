package paimon_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// A table is the live check of a Flink snapshot's Paimon source position.
var _ livecheck.PaimonTable = (*paimon.Table)(nil)

func TestOpenTable(t *testing.T) {
	root := t.TempDir()
	b := openLocalBucket(t, root)
	paimontest.New(t, b, "wh/db1.db/orders").CommitEvery(3, t0, 0)
	dir := filepath.Join(root, "wh", "db1.db", "orders")
	for _, u := range []string{dir, "file://" + dir, dir + "/"} {
		tbl, err := paimon.OpenTable(bg, u, nil)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		l, err := tbl.LatestSnapshotID(bg)
		if err != nil || l != 3 || tbl.Name() != "db1.orders" || tbl.String() != dir || tbl.Branch() != "main" {
			t.Errorf("%s: latest %d %v name %q string %q", u, l, err, tbl.Name(), tbl.String())
		}
		if err := tbl.Close(); err != nil {
			t.Error(err)
		}
	}
	// The metadata side files of fileblob are never written.
	tbl, _ := paimon.OpenTable(bg, dir, nil)
	if _, err := tbl.ResetConsumer(bg, "job", 2, &paimon.ResetOptions{Observe: -1}); err != nil {
		t.Fatal(err)
	}
	tbl.Close()
	entries, _ := os.ReadDir(filepath.Join(dir, "consumer"))
	if len(entries) != 1 || entries[0].Name() != "consumer-job" {
		t.Errorf("consumer folder holds %v", entries)
	}

	tbl, err := paimon.OpenTable(bg, "mem://b/wh/default.db/t", &paimon.TableOptions{Name: "db.tbl", Branch: "b1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.LatestSnapshotID(bg); !errors.Is(err, paimon.ErrSnapshotNotFound) || !strings.Contains(err.Error(), "wh/default.db/t/branch/branch-b1/snapshot/") {
		t.Errorf("empty mem table: %v", err)
	}
	if tbl.SQLName() != "db.tbl$branch_b1" || tbl.Path() != "wh/default.db/t/" {
		t.Errorf("SQLName %q Path %q", tbl.SQLName(), tbl.Path())
	}
	tbl.Close()

	for _, bad := range []string{"nosuch://b/t", "mem://b/wh/../t"} {
		if tbl, err := paimon.OpenTable(bg, bad, nil); err == nil {
			tbl.Close()
			t.Errorf("OpenTable(%q) succeeded", bad)
		}
	}
	if _, err := paimon.NewTable(nil, "t", nil); err == nil {
		t.Error("NewTable(nil) succeeded")
	}
}

// TestPaimontestFormat: the builder's files carry every field Paimon always
// writes, in the real files' style, and read back.
func TestPaimontestFormat(t *testing.T) {
	snap := string(paimontest.SnapshotJSON(7, 2, t0, "u"))
	for _, f := range []string{"version", "id", "schemaId", "baseManifestList", "deltaManifestList", "commitUser", "commitIdentifier", "commitKind", "timeMillis", "totalRecordCount", "deltaRecordCount"} {
		if !strings.Contains(snap, "\n  \""+f+"\" : ") {
			t.Errorf("snapshot JSON lacks %q", f)
		}
	}
	s, err := paimon.ParseSnapshot("k", []byte(snap))
	if err != nil || s.ID != 7 || s.SchemaID != 2 || !s.Time.Equal(t0) || s.Watermark != nil {
		t.Errorf("ParseSnapshot = %+v, %v", s, err)
	}
	sc, err := paimon.ParseSchema("k", paimontest.SchemaJSON(3, map[string]string{"a": "1", "b": "x y"}, t0))
	if err != nil || sc.ID != 3 || sc.Options["b"] != "x y" {
		t.Errorf("ParseSchema = %+v, %v", sc, err)
	}
}

var _ livecheck.PaimonRetention = (*paimon.Table)(nil)
