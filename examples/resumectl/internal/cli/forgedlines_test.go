package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 31: a "\n" in a name from storage forged whole lines in the text
// writers. A consumer file named "consumer-job\nFORGED 99 …" is listed
// with its line break escaped: no line of the report starts with FORGED.
func TestNamesCannotForgeLines(t *testing.T) {
	dir, _ := paimonDir(t, nil)
	forged := "consumer-x\nFORGED\t99\t2026-01-01T00:00:00Z\rZ"
	if err := os.WriteFile(filepath.Join(dir, "consumer", forged), []byte(`{"nextSnapshot":7}`), 0o644); err != nil {
		t.Skipf("this file system takes no line break in a name: %v", err)
	}
	code, out, errs := runPaimonCLI("paimon", "consumers", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "FORGED") || strings.Contains(line, "\r") {
			t.Errorf("forged line %q in:\n%s", line, out)
		}
	}
	if !strings.Contains(out, `x\nFORGED`) {
		t.Errorf("the name is not shown escaped:\n%s", out)
	}
	if got := nameText("a\r\nb"); got != `a\r\nb` {
		t.Errorf("nameText = %q", got)
	}
}
