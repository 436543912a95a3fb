package flinkckpt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/resumekit/resumekit/resume/redact"
)

// flinkVersion is a Flink major.minor version: the new job's
// (Options.FlinkVersion, for the run line's claim-mode flag) or the one a
// compiled plan runs on (PlanOptions.FlinkVersion, a plan's flinkVersion,
// for its uid rules). The zero value means unknown.
type flinkVersion struct{ major, minor int }

// parseFlinkVersion reads "1.20", "1.19.1", "v1.20" or "1.20-SNAPSHOT".
// Its error names the input but not the field; callers say which.
func parseFlinkVersion(s string) (flinkVersion, error) {
	bad := fmt.Errorf("Flink version %s: want MAJOR.MINOR such as 1.20", redact.Quote(s))
	t := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "v"), "-SNAPSHOT")
	parts := strings.Split(t, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return flinkVersion{}, bad
	}
	var n [3]int
	for i, p := range parts {
		if p == "" || len(p) > 3 || strings.TrimLeft(p, "0123456789") != "" {
			return flinkVersion{}, bad
		}
		n[i], _ = strconv.Atoi(p)
	}
	if n[0] < 1 {
		return flinkVersion{}, bad
	}
	return flinkVersion{n[0], n[1]}, nil
}

func (v flinkVersion) String() string { return fmt.Sprintf("%d.%d", v.major, v.minor) }

func (v flinkVersion) known() bool { return v.major > 0 }

func (v flinkVersion) less(major, minor int) bool {
	return v.major < major || (v.major == major && v.minor < minor)
}

func (v flinkVersion) atLeast(major, minor int) bool { return !v.less(major, minor) }
