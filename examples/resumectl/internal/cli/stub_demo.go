package cli

// Placeholder until the demo command lands: the file implementing it deletes this one.
func runDemo(e *env, args []string) error { return usagef("demo: not built yet") }
