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
		"orders-enrich: replay from snapshot 58",
		"orders-enrich-v2: replay from snapshot 46",
		"bound warehouse/shop.db/orders/consumer/consumer-orders-enrich-v2",
		"orders-enrich-v2: replay, start the job with 'consumer-id'='orders-enrich-v2'",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
