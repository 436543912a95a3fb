package paimon_test

import (
	"strings"
	"testing"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/paimon"
)

// TestHostileInputGivesShortErrors: a megabyte-long value given to an entry
// point — a table URL's scheme, host or query, a table path, a duration, a
// mode, a version, a table option — gives an error of less than 1 KiB that
// quotes it cut short (and escaped).
func TestHostileInputGivesShortErrors(t *testing.T) {
	huge := strings.Repeat("\x1b", 1<<20)
	word := strings.Repeat("w", 1<<20)
	digits := strings.Repeat("9", 1<<20)
	b := memblob.OpenBucket(nil)
	defer b.Close()
	table, err := paimon.NewTable(b, "wh/db.db/t", nil)
	if err != nil {
		t.Fatal(err)
	}
	resolver := func(o paimon.Options) func() error {
		return func() error { _, err := paimon.NewResolver(table, "job", &o); return err }
	}
	for name, call := range map[string]func() error{
		"OpenTable scheme":       func() error { _, err := paimon.OpenTable(bg, word+"://bucket/wh/db.db/t", nil); return err },
		"OpenTable scheme ctl":   func() error { _, err := paimon.OpenTable(bg, "s"+huge+"://bucket/t", nil); return err },
		"OpenTable host":         func() error { _, err := paimon.OpenTable(bg, "s3://"+word+"/wh/db.db/t", nil); return err },
		"OpenTable host escaped": func() error { _, err := paimon.OpenTable(bg, "s3://"+huge+"/wh/db.db/t", nil); return err },
		"OpenTable unknown":      func() error { _, err := paimon.OpenTable(bg, "nosuch://"+word+"/t", nil); return err },
		"OpenTable query":        func() error { _, err := paimon.OpenTable(bg, "mem://?"+word+"=1", nil); return err },
		"OpenTable file host":    func() error { _, err := paimon.OpenTable(bg, "file://"+word+"/t", nil); return err },
		"OpenTable path":         func() error { _, err := paimon.OpenTable(bg, "mem:///"+word+"/../t", nil); return err },
		"NewTable path":          func() error { _, err := paimon.NewTable(b, word+"/../t", nil); return err },
		"NewTable branch":        func() error { _, err := paimon.NewTable(b, "t", &paimon.TableOptions{Branch: huge}); return err },
		"ValidateID":             func() error { return paimon.ValidateID("consumer", huge) },
		"ParseDuration unit":     func() error { _, err := paimon.ParseDuration("1 " + huge); return err },
		"ParseDuration number":   func() error { _, err := paimon.ParseDuration(digits + "d"); return err },
		"ParseDuration nothing":  func() error { _, err := paimon.ParseDuration(huge); return err },
		"Mode":                   resolver(paimon.Options{Mode: huge}),
		"WrittenMode":            resolver(paimon.Options{WrittenMode: huge}),
		"PaimonVersion":          resolver(paimon.Options{PaimonVersion: huge}),
		"TableOptions mode":      resolver(paimon.Options{TableOptions: map[string]string{paimon.OptConsumerMode: huge}}),
		"TableOptions int":       resolver(paimon.Options{TableOptions: map[string]string{paimon.OptSnapshotNumRetainMin: huge}}),
		"TableOptions duration":  resolver(paimon.Options{TableOptions: map[string]string{paimon.OptSnapshotTimeRetained: huge}}),
		"TableOptions bool":      resolver(paimon.Options{TableOptions: map[string]string{paimon.OptConsumerIgnoreProgress: huge}}),
		"TableOptions producer":  resolver(paimon.Options{TableOptions: map[string]string{paimon.OptChangelogProducer: huge}}),
	} {
		err := call()
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if msg := err.Error(); len(msg) > 1024 || strings.Contains(msg, "\x1b") {
			t.Errorf("%s: error of %d bytes: %.200q", name, len(msg), msg)
		}
	}
}
