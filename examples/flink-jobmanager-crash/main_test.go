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
		"restore file://$DIR/checkpoints/9f2c6d0b41e8a7355c1d2e3f4a5b6c7d/chk-41 (checkpoint 41",
		"flink run -s file://$DIR/checkpoints/9f2c6d0b41e8a7355c1d2e3f4a5b6c7d/chk-41 <job jar>",
		"chk-43 of job 9f2c6d0b41e8a7355c1d2e3f4a5b6c7d: no _metadata",
		"chk-42 of job 9f2c6d0b41e8a7355c1d2e3f4a5b6c7d: broken: 1 of 4 referenced files missing",
		"ranks above savepoint-9f2c6d-46b9e5e0570d: that is a savepoint of the same job at a lower checkpoint id (12 vs 41)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
