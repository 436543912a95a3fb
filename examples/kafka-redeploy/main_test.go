package main

import (
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"chosen committed (replay): 'scan.startup.mode'='specific-offsets','scan.startup.specific-offsets'='partition:0,offset:55;partition:1,offset:52;partition:2,offset:50'",
		"orders/2 starts at 50",
		"after retention: nothing acceptable: guarantee data-loss is below the minimum replay",
		"orders/2 (4 records: committed 50, log start 54)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
