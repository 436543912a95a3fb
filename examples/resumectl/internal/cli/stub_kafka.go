package cli

// Placeholder until the kafka command lands: the file implementing it deletes this one.
func runKafka(e *env, args []string) error { return usagef("kafka: not built yet") }
