// Package quotecap caps what one warning or message quotes from input-sized
// lists (topics, operator ids, checkpoint ids): the first [Max] items, then
// "… and N more". A snapshot with 40,000 topics makes one short warning,
// not a 40,000-entry line (issue 31), and the k8s annotations stay far under
// Kubernetes' 256 KiB.
package quotecap

import (
	"strconv"
	"strings"
)

// Max is how many items one warning quotes.
const Max = 20

// Join joins the first Max items with sep and, when there are more, adds
// "… and N more".
func Join(items []string, sep string) string {
	return JoinN(items, sep, Max)
}

// JoinN is Join with a cap of max items (at least 1).
func JoinN(items []string, sep string, max int) string {
	max = Clamp(max)
	if len(items) <= max {
		return strings.Join(items, sep)
	}
	return strings.Join(items[:max], sep) + sep + More(len(items)-max)
}

// More is "… and N more".
func More(n int) string {
	return "… and " + strconv.Itoa(n) + " more"
}

// Clamp returns max, or 1 when it is less.
func Clamp(max int) int {
	if max < 1 {
		return 1
	}
	return max
}
