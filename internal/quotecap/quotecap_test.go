package quotecap_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/resumekit/resumekit/internal/quotecap"
)

func TestJoin(t *testing.T) {
	var items []string
	for i := range 40_000 {
		items = append(items, "t"+strconv.Itoa(i))
	}
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, ""},
		{3, "t0, t1, t2"},
		{20, "t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17, t18, t19"},
		{21, "t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17, t18, t19, … and 1 more"},
		{40_000, "t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17, t18, t19, … and 39980 more"},
	} {
		if got := quotecap.Join(items[:tc.n], ", "); got != tc.want {
			t.Errorf("%d items: %q, want %q", tc.n, got, tc.want)
		}
	}
}

func ExampleJoin() {
	fmt.Println(quotecap.JoinN([]string{"a", "b", "c", "d"}, ", ", 2))
	// Output: a, b, … and 2 more
}
