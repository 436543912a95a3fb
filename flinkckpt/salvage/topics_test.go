package salvage_test

import (
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/salvage"
)

// Issue 31: a KafkaSource with one split per topic made the several-topics
// warning quote every topic and every start (and took 30 s at 40,000
// topics). The warning quotes 20 topics, then "… and N more"; the
// candidate's position still holds every start.
func TestSeveralTopicsWarningCapped(t *testing.T) {
	l, dir := manyTopics(t, 500)
	c := salvaged(t, l, &salvage.Options{Snapshot: dir})
	var text string
	for _, w := range c.Warnings {
		if w.Code == salvage.WarnSeveralTopics {
			text = w.Text
		}
	}
	for _, want := range []string{"read 500 topics (topic-00000, ", "topic-00019, … and 480 more)", "… and 480 more topics", "… and 480 more partitions"} {
		if !strings.Contains(text, want) {
			t.Errorf("warning lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "topic-00020") || len(text) > 8<<10 {
		t.Errorf("warning quotes past the cap (%d bytes)", len(text))
	}
	if starts := kafkaStarts(t, c); len(starts) != 500 {
		t.Errorf("%d starts, want 500", len(starts))
	}
}
