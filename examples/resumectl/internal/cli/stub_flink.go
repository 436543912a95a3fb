package cli

// Placeholder until the flink command lands: the file implementing it deletes this one.
func runFlink(e *env, args []string) error { return usagef("flink: not built yet") }
