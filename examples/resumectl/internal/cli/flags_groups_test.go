package cli

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// TestResolveFlagGroups: every flag of resolve belongs to one group or to
// the command (policy and output), never two; each source group's flags
// carry its source's prefix, so a new source's flags are found in its own
// file (flags_<source>.go); a group's set() reports each of its options.
func TestResolveFlagGroups(t *testing.T) {
	var f resolveFlags
	e := &env{stdout: io.Discard, stderr: io.Discard, hooks: &hooks{stdin: strings.NewReader("")}}
	owner := map[string]string{}
	prefixes := map[flagGroup][]string{
		&f.flink:  {"flink-"},
		&f.paimon: {"paimon-"},
		&f.kafka:  {"kafka-"},
		&f.live:   {"mysql-", "postgres-"},
		&f.sink:   {"kafka-sink-", "paimon-sink-"},
		// Flink's own record (the HA store, JobResultStore, REST) and the
		// operator's resources.
		&f.record: {"flink-ha-", "flink-zookeeper", "flink-cluster-id", "flink-job-result-store", "flink-rest", "k8s-"},
	}
	names := map[flagGroup]string{&f.flink: "flink", &f.paimon: "paimon", &f.kafka: "kafka", &f.live: "live", &f.sink: "sink", &f.record: "record"}
	if len(f.groups()) != len(f.buildOrder()) {
		t.Fatalf("groups %d, buildOrder %d: a group missing from one", len(f.groups()), len(f.buildOrder()))
	}
	for _, g := range f.groups() {
		fs := flag.NewFlagSet("g", flag.ContinueOnError)
		g.register(fs, e)
		fs.VisitAll(func(fl *flag.Flag) {
			if prev, ok := owner[fl.Name]; ok {
				t.Errorf("--%s registered by %s and %s", fl.Name, prev, names[g])
			}
			owner[fl.Name] = names[g]
			ok := false
			for _, p := range prefixes[g] {
				ok = ok || strings.HasPrefix(fl.Name, p)
			}
			if !ok {
				t.Errorf("--%s in group %s: want a prefix of %v", fl.Name, names[g], prefixes[g])
			}
		})
	}
	// set() sees an option of each group.
	for _, c := range []struct {
		g    flagGroup
		args []string
	}{
		{&f.flink, []string{"-flink-intent", "upgrade"}},
		{&f.paimon, []string{"-paimon-mode", "exactly-once"}},
		{&f.kafka, []string{"-kafka-strict"}},
		{&f.live, []string{"-mysql-dsn", "x"}},
		{&f.sink, []string{"-kafka-sink-transaction-timeout", "1m"}},
		{&f.record, []string{"-flink-rest", "http://127.0.0.1:8081"}},
	} {
		var fresh resolveFlags
		var g flagGroup
		for i, og := range f.groups() {
			if og == c.g {
				g = fresh.groups()[i]
			}
		}
		fs := flag.NewFlagSet("g", flag.ContinueOnError)
		g.register(fs, e)
		if g.set() {
			t.Errorf("%s: set before parsing", names[c.g])
		}
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if !g.set() {
			t.Errorf("%s: %v not seen by set()", names[c.g], c.args)
		}
	}
}
